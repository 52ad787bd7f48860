/**
 * `upstreamAuth.tokenExchange`: the gateway never passes a caller's own token upstream. For a
 * server with this option it exchanges the caller's token at the authorization server for one
 * meant for that server (OAuth 2.0 Token Exchange, RFC 8693, through `oauth4webapi`), keeps it per
 * caller until shortly before it expires, and sends that instead. A caller without an OAuth token
 * (an API key holder) has nothing to exchange: its calls to such a server are refused.
 *
 * Which caller an upstream request is for travels with it as async context ({@link onBehalfOf}, set
 * by the guard around each downstream request): the upstream channels are shared by callers
 * (2026-07-28) or opened per downstream session, and their HTTP requests start inside the call.
 * Requests for no caller (the gateway's own catalog session) go with the entry's own credentials.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as oauth from 'oauth4webapi';
import { requireAuthorizationServer } from '../auth/discovery.js';
import { OAuthHttp, type WebFetch } from '../auth/http.js';
import type { AuthInfo } from '../engine/channel.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { FetchLike } from '../transports/http/client/fetch-like.js';
import { sha256 } from './audit.js';
import type { TokenExchangeConfig } from './config-security.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
/** A token is exchanged again this long before it expires. */
const EARLY_MS = 30_000;
/** Without `expires_in`, a token is kept this long. */
const DEFAULT_TTL_MS = 5 * 60_000;
const MAX_CACHED = 10_000;

interface Cached {
  readonly token: string;
  readonly until: number;
}

export interface TokenExchangerOptions {
  /** The fetch for the authorization server (a WHATWG fetch). Default: the global one. */
  readonly fetch?: WebFetch;
  /** The clock (ms), for tests. */
  readonly now?: () => number;
}

export class TokenExchanger {
  readonly #config: TokenExchangeConfig;
  readonly #resource: string;
  readonly #http: OAuthHttp;
  readonly #now: () => number;
  #as: Promise<oauth.AuthorizationServer> | undefined;
  /** Per caller's token (its digest): the exchanged token, or the exchange under way. */
  readonly #cache = new Map<string, Cached | Promise<Cached>>();

  /** `resource`: the upstream's URL, the default `resource` of the request. */
  constructor(config: TokenExchangeConfig, resource: string, options: TokenExchangerOptions = {}) {
    this.#config = config;
    this.#resource = config.resource ?? resource;
    this.#http = new OAuthHttp(options.fetch ? { fetch: options.fetch } : {});
    this.#now = options.now ?? Date.now;
  }

  /** The token to send upstream for the caller `auth`. */
  async tokenFor(auth: AuthInfo | undefined): Promise<string> {
    const subject = auth?.token;
    if (subject === undefined) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        'This server takes a token exchanged for the caller (upstreamAuth.tokenExchange), and the caller signed in without an OAuth token (an API key, or no sign-in): sign in with OAuth.',
      );
    }
    const key = sha256(subject);
    const held = this.#cache.get(key);
    if (held !== undefined) {
      const cached = await held;
      if (cached.until > this.#now()) return cached.token;
    }
    const exchange = this.#exchange(subject);
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
    this.#cache.set(key, exchange);
    try {
      const cached = await exchange;
      this.#cache.set(key, cached);
      return cached.token;
    } catch (error) {
      this.#cache.delete(key);
      throw error;
    }
  }

  async #exchange(subject: string): Promise<Cached> {
    const { issuer, clientId, clientSecret, audience, scope } = this.#config;
    const as = await this.#server();
    const client: oauth.Client = { client_id: clientId };
    const parameters: Record<string, string> = {
      subject_token: subject,
      subject_token_type: ACCESS_TOKEN,
      requested_token_type: ACCESS_TOKEN,
      resource: this.#resource,
    };
    if (audience !== undefined) parameters.audience = audience;
    if (scope !== undefined) parameters.scope = scope;
    let issued: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.genericTokenEndpointRequest(
        as,
        client,
        oauth.ClientSecretBasic(clientSecret),
        TOKEN_EXCHANGE,
        parameters,
        this.#http.options(),
      );
      issued = await oauth.processGenericTokenEndpointResponse(as, client, response);
    } catch (error) {
      this.#as = undefined;
      const reason =
        error instanceof oauth.ResponseBodyError
          ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''} (HTTP ${error.status})`
          : (error as Error).message;
      throw new SwitchboardError('AUTHORIZATION', `${issuer} refused the token exchange: ${reason}.`, {
        cause: error,
      });
    }
    const ttl = typeof issued.expires_in === 'number' ? issued.expires_in * 1000 : DEFAULT_TTL_MS;
    return { token: issued.access_token, until: this.#now() + Math.max(0, ttl - EARLY_MS) };
  }

  #server(): Promise<oauth.AuthorizationServer> {
    const { issuer, tokenEndpoint } = this.#config;
    this.#as ??=
      tokenEndpoint !== undefined
        ? Promise.resolve({
            issuer,
            token_endpoint: this.#http.check(tokenEndpoint, 'The token endpoint').href,
          })
        : requireAuthorizationServer(issuer, this.#http);
    return this.#as;
  }
}

/** The credentials of the downstream request an upstream request is made for. */
const current = new AsyncLocalStorage<AuthInfo | undefined>();

/** Runs `work` on behalf of the caller `auth`: the upstream requests it makes carry its exchanged token. */
export function onBehalfOf<T>(auth: AuthInfo | undefined, work: () => T): T {
  return current.run(auth, work);
}

/**
 * The fetch of a server with `upstreamAuth.tokenExchange`: each request made on behalf of a caller
 * carries, as its `Authorization`, the token exchanged for that caller; other requests go as `base`
 * sends them.
 */
export function exchangingFetch(exchanger: TokenExchanger, base: FetchLike): FetchLike {
  return async (url, init) => {
    const auth = current.getStore();
    if (auth === undefined) return base(url, init);
    const token = await exchanger.tokenFor(auth);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.headers))
      if (name.toLowerCase() !== 'authorization') headers[name] = value;
    headers.authorization = `Bearer ${token}`;
    return base(url, { ...init, headers });
  };
}

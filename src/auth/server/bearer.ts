/**
 * `bearer({...})`: makes a Switchboard HTTP server an OAuth 2.1 protected resource, as the MCP
 * specification asks of it (2025-06-18 and later; see docs/auth.md).
 *
 * - Protected Resource Metadata (RFC 9728) at `/.well-known/oauth-protected-resource` and at the
 *   path-inserted form for an endpoint with a path (`.../oauth-protected-resource/mcp`); both name
 *   the canonical server URI as `resource`.
 * - Every request to an MCP path needs `Authorization: Bearer <token>`, in both eras. No token: 401
 *   with `WWW-Authenticate: Bearer resource_metadata="…"` (and `scope="…"` when the server names the
 *   scopes it wants); a refused token: the same with `error="invalid_token"`.
 * - Tokens: JWT access tokens checked against the issuers' keys (`jwt`), opaque ones by
 *   introspection (`introspection`), or your own `verify`. Issuer allow-list, audience = this
 *   server (RFC 8707), expiry with a clock tolerance.
 * - Scopes: `requiredScopes` for every request, `methodScopes` per method, and those registered on
 *   tools, prompts, resources and templates; a request lacking them gets 403
 *   `error="insufficient_scope"` with every scope the operation needs (step-up). `impliedScopes`
 *   declares hierarchies (a broader scope grants narrower ones).
 * - `ctx.auth` carries the verified principal: subject, client, issuer, scopes, expiry, claims.
 *   The token itself is there too (not enumerable, so it is not logged by accident); never pass it
 *   on: the spec forbids token passthrough (see docs/auth.md for calling other APIs).
 */
import type { AuthInfo } from '../../engine/channel.js';
import { ErrorCode, SwitchboardError } from '../../protocol/errors.js';
import { formatScopes, missingScopes, parseScopes, SCOPE_TOKEN, unionScopes } from '../../protocol/scopes.js';
import type { HttpAuthenticator, ScopedRequest } from '../../transports/http/server/authenticator.js';
import {
  errorReply,
  type HttpExchange,
  type HttpReply,
  jsonReply,
} from '../../transports/http/server/exchange.js';
import { OAuthHttp, type WebFetch } from '../http.js';
import {
  canonicalResource,
  httpUrl,
  protectedResourceMetadataPaths,
  protectedResourceMetadataUrls,
} from '../urls.js';
import { formatChallenge } from '../www-authenticate.js';
import { type IntrospectionOptions, Introspector } from './introspection.js';
import { type JwtOptions, JwtVerifier } from './jwt.js';
import { InvalidToken, TokenServiceUnavailable, type VerifiedToken } from './verified.js';

export interface BearerOptions {
  /**
   * This server's canonical URI, e.g. `https://mcp.example.com/mcp`: what the metadata names as
   * `resource` and what a token's audience must name. Required: it is never guessed from a request.
   */
  resource: string;
  /** The authorization servers (issuer identifiers) clients are sent to, and whose tokens are accepted. */
  authorizationServers: readonly string[];
  /**
   * JWT access tokens (the default when neither `introspection` nor `verify` is given): options, or
   * false to accept none.
   */
  jwt?: JwtOptions | false;
  /** Opaque tokens, checked by introspection (RFC 7662); JWT-shaped tokens still go to `jwt` when it is set. */
  introspection?: IntrospectionOptions;
  /**
   * Your own check, tried when `jwt` and `introspection` are not configured: return the verified
   * token (check its audience yourself), or undefined to refuse it.
   */
  verify?: (token: string) => Promise<VerifiedToken | undefined> | VerifiedToken | undefined;
  /** Scopes every request needs. Default none. */
  requiredScopes?: readonly string[];
  /** Scopes per JSON-RPC method, e.g. `{ 'tools/list': ['mcp:read'] }`. */
  methodScopes?: Readonly<Record<string, readonly string[]>>;
  /** Scope hierarchies: a scope and the narrower scopes it grants, e.g. `{ 'files:admin': ['files:write'] }`. */
  impliedScopes?: Readonly<Record<string, readonly string[]>>;
  /**
   * `scopes_supported` in the metadata: the scopes a client asks for first (the spec: the minimal
   * set for basic use). Default: `requiredScopes`, when there are any.
   */
  scopesSupported?: readonly string[];
  /** Other metadata fields (`resource_name`, `resource_documentation`...). */
  metadata?: Readonly<Record<string, unknown>>;
  /** Tolerance for `exp`/`nbf`, in seconds. Default 30. */
  clockToleranceSec?: number;
  /** The fetch for metadata, keys and introspection (a WHATWG fetch). Default: the global one. */
  fetch?: WebFetch;
  /** Allow plain http to non-loopback authorization servers. Default false. */
  allowInsecureHttp?: boolean;
  /** Told when tokens cannot be checked (keys or introspection unreachable). Default: ignored. */
  onerror?: (error: Error) => void;
}

type Check = (token: string) => Promise<VerifiedToken>;

/** A Bearer token in an Authorization header (RFC 6750 §2.1), or why there is none. */
function bearerToken(header: string | undefined): string | 'absent' | 'malformed' {
  if (header === undefined) return 'absent';
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (match) return match[1]!;
  return /^Bearer\b/i.test(header) ? 'malformed' : 'absent';
}

class BearerAuthenticator implements HttpAuthenticator {
  readonly resource: string;
  readonly #metadataUrl: string;
  readonly #documentPaths: ReadonlySet<string>;
  readonly #document: string;
  readonly #challengeScope: string | undefined;
  readonly #required: readonly string[];
  readonly #methodScopes: Readonly<Record<string, readonly string[]>>;
  readonly #implied: Map<string, readonly string[]>;
  readonly #check: Check;
  readonly #onerror: (error: Error) => void;

  constructor(options: BearerOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new SwitchboardError('CONFIG', 'bearer(options): pass { resource, authorizationServers, ... }.');
    }
    const resourceUrl = httpUrl(options.resource, 'bearer(): resource');
    if (resourceUrl.hash !== '') {
      throw new SwitchboardError('CONFIG', 'bearer(): resource must not have a fragment (RFC 8707 §2).');
    }
    this.resource = canonicalResource(resourceUrl);
    const servers = options.authorizationServers;
    if (!Array.isArray(servers) || servers.length === 0) {
      throw new SwitchboardError(
        'CONFIG',
        'bearer(): authorizationServers must list at least one issuer URL (the spec: the metadata names at least one).',
      );
    }
    for (const issuer of servers) httpUrl(issuer, 'bearer(): each of authorizationServers');
    const scopes = (name: string, list: readonly string[] | undefined) => {
      if (list === undefined) return [];
      if (!Array.isArray(list) || !list.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
        throw new SwitchboardError(
          'CONFIG',
          `bearer(): ${name} must be an array of scope tokens, got ${JSON.stringify(list)}.`,
        );
      }
      return [...list];
    };
    this.#required = scopes('requiredScopes', options.requiredScopes);
    const methodScopes: Record<string, readonly string[]> = {};
    for (const [method, list] of Object.entries(options.methodScopes ?? {})) {
      methodScopes[method] = scopes(`methodScopes[${JSON.stringify(method)}]`, list);
    }
    this.#methodScopes = methodScopes;
    this.#implied = new Map(
      Object.entries(options.impliedScopes ?? {}).map(([scope, list]) => [
        scope,
        scopes(`impliedScopes[${JSON.stringify(scope)}]`, list),
      ]),
    );
    const supported = scopes('scopesSupported', options.scopesSupported);
    const advertised = supported.length > 0 ? supported : this.#required;
    this.#challengeScope = formatScopes(this.#required.length > 0 ? this.#required : advertised);
    this.#metadataUrl = protectedResourceMetadataUrls(this.resource)[0]!;
    this.#documentPaths = new Set(protectedResourceMetadataPaths(this.resource));
    const document: Record<string, unknown> = {
      ...options.metadata,
      resource: this.resource,
      authorization_servers: [...servers],
      bearer_methods_supported: ['header'],
    };
    if (advertised.length > 0) document.scopes_supported = advertised;
    this.#document = JSON.stringify(document);
    this.#onerror = options.onerror ?? (() => {});
    this.#check = this.#checker(options, servers);
  }

  #checker(options: BearerOptions, issuers: readonly string[]): Check {
    const http = new OAuthHttp({ fetch: options.fetch, allowInsecureHttp: options.allowInsecureHttp });
    const tolerance = options.clockToleranceSec ?? 30;
    // Audiences a token may name: the canonical URI, and the same with a trailing slash.
    const audiences = [this.resource, `${this.resource}/`];
    const { jwt, introspection, verify } = options;
    const jwtChecker =
      jwt === false || (jwt === undefined && (introspection !== undefined || verify !== undefined))
        ? undefined
        : new JwtVerifier(issuers, audiences, http, jwt ?? {}, tolerance);
    const introspector =
      introspection === undefined
        ? undefined
        : new Introspector(
            introspection.issuer ?? issuers[0]!,
            issuers,
            audiences,
            http,
            introspection,
            tolerance,
          );
    if (!jwtChecker && !introspector && !verify) {
      throw new SwitchboardError(
        'CONFIG',
        'bearer(): jwt is false and neither introspection nor verify is given: no token could pass.',
      );
    }
    return async (token) => {
      const looksLikeJwt = token.split('.').length === 3;
      if (jwtChecker && (looksLikeJwt || !introspector)) return jwtChecker.verify(token);
      if (introspector) return introspector.verify(token);
      const verified = await verify!(token);
      if (!verified) throw new InvalidToken('the verifier refused it');
      return verified;
    };
  }

  document(exchange: HttpExchange): HttpReply | undefined {
    if (exchange.method !== 'GET' || !this.#documentPaths.has(exchange.path)) return undefined;
    // Public metadata: any origin may read it (browser clients discover from other origins).
    return jsonReply(200, this.#document, {
      'access-control-allow-origin': '*',
      'cache-control': 'max-age=300',
    });
  }

  async authenticate(exchange: HttpExchange): Promise<AuthInfo | HttpReply> {
    const token = bearerToken(exchange.header('authorization'));
    if (token === 'absent') {
      return this.#refuse(
        401,
        `Unauthorized: this server needs an OAuth access token (Authorization: Bearer ...). Its authorization servers are listed in ${this.#metadataUrl}.`,
        { scope: this.#challengeScope },
      );
    }
    if (token === 'malformed') {
      return this.#refuse(
        400,
        'Bad Request: the Authorization header is not a valid Bearer credential (RFC 6750 §2.1).',
        {
          error: 'invalid_request',
        },
      );
    }
    let verified: VerifiedToken;
    try {
      verified = await this.#check(token);
    } catch (error) {
      if (error instanceof InvalidToken) {
        return this.#refuse(401, `Unauthorized: the access token was refused: ${error.message}.`, {
          error: 'invalid_token',
          error_description: `The access token was refused: ${error.message}`,
          scope: this.#challengeScope,
        });
      }
      const why = error instanceof Error ? error : new Error(String(error));
      this.#onerror(why);
      const reason = error instanceof TokenServiceUnavailable ? error.message : 'an unexpected error';
      return errorReply(
        503,
        `Service Unavailable: the access token could not be checked (${reason}); try again later.`,
        {
          code: ErrorCode.InternalError,
          headers: { 'retry-after': '5' },
        },
      );
    }
    return this.#authInfo(token, verified);
  }

  authorize(auth: AuthInfo, requests: readonly ScopedRequest[]): HttpReply | undefined {
    const needed = unionScopes(
      this.#required,
      ...requests.map((r) => this.#methodScopes[r.method]),
      ...requests.map((r) => r.itemScopes),
    );
    const missing = missingScopes(auth.scopes, needed);
    if (missing.length === 0) return undefined;
    const what = requests.length === 1 ? `${requests[0]!.method} needs` : 'these requests need';
    const description = `${what} the scope${needed.length === 1 ? '' : 's'} ${needed.join(' ')}; the token lacks ${missing.join(' ')}`;
    return this.#refuse(403, `Forbidden: ${description}. Ask the authorization server for them (step-up).`, {
      error: 'insufficient_scope',
      error_description: description,
      scope: formatScopes(needed),
    });
  }

  #refuse(status: number, message: string, params: Record<string, string | undefined>): HttpReply {
    const challenge = formatChallenge('Bearer', { ...params, resource_metadata: this.#metadataUrl });
    return errorReply(status, message, { headers: { 'www-authenticate': challenge } });
  }

  #authInfo(token: string, verified: VerifiedToken): AuthInfo {
    const info: Record<string, unknown> = { scopes: this.#expand(parseScopes(verified.scope)) };
    if (verified.subject !== undefined) info.subject = verified.subject;
    if (verified.clientId !== undefined) info.clientId = verified.clientId;
    if (verified.issuer !== undefined) info.issuer = verified.issuer;
    if (verified.expiresAt !== undefined) info.expiresAt = verified.expiresAt;
    info.extra = { resource: this.resource, ...(verified.claims ? { claims: verified.claims } : {}) };
    // There for token exchange (RFC 8693) and nothing else: kept out of JSON and logs.
    Object.defineProperty(info, 'token', { value: token, enumerable: false });
    return info as AuthInfo;
  }

  /** The granted scopes with every scope they imply (transitively). */
  #expand(granted: string[]): string[] {
    if (this.#implied.size === 0) return granted;
    const all = new Set(granted);
    const queue = [...granted];
    while (queue.length > 0) {
      for (const narrower of this.#implied.get(queue.pop()!) ?? []) {
        if (!all.has(narrower)) {
          all.add(narrower);
          queue.push(narrower);
        }
      }
    }
    return [...all];
  }
}

/** The `auth` option of `createHttpHandler` that makes the server a protected resource (see the module comment). */
export function bearer(options: BearerOptions): HttpAuthenticator & { readonly resource: string } {
  return new BearerAuthenticator(options);
}

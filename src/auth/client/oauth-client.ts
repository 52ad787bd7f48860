/**
 * `OAuthClient`: signs a Switchboard client in to protected MCP servers. Give its `fetch(...)` to
 * an HTTP client channel: every request carries the stored access token; a 401 runs the
 * specification's flow (discovery, registration, authorization code with PKCE or client
 * credentials, resource indicators) and the request is sent again; a 403 `insufficient_scope`
 * asks for the scopes it names (step-up), a bounded number of times. Tokens are refreshed shortly
 * before they expire, and once more when a server refuses a token that had not expired.
 *
 * The protocol steps (PKCE, state, RFC 9207 `iss`, token requests, client authentication,
 * registration) are `oauth4webapi`'s; this module adds the MCP rules: where to look, in which
 * order to register, which scopes to ask for, what to store, when to retry.
 */
import * as oauth from 'oauth4webapi';
import { SwitchboardError } from '../../protocol/errors.js';
import { parseScopes, unionScopes } from '../../protocol/scopes.js';
import type { FetchLike, RequestInitLike, ResponseLike } from '../../transports/http/client/fetch-like.js';
import { OAuthHttp, type WebFetch } from '../http.js';
import { canonicalResource } from '../urls.js';
import { findChallenge } from '../www-authenticate.js';
import { discoverServerAuthorization, type ServerAuthorization } from './discovery.js';
import { MemoryTokenStore, type StoredClient, type StoredTokens, type TokenStore } from './store.js';

/** Credentials registered with an authorization server beforehand. */
export interface PreRegisteredClient {
  client_id: string;
  client_secret?: string;
  /** Default: `client_secret_basic` with a secret (or what the server supports), `none` without. */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  /** For `private_key_jwt`: the client's private key (a CryptoKey, or `{ key, kid }`). */
  private_key?: Parameters<typeof oauth.PrivateKeyJwt>[0];
}

/** What a JWT-bearer grant's assertion is made for: the authorization server and the resource. */
export interface AssertionTarget {
  /** The authorization server's issuer identifier. */
  readonly issuer: string;
  /** Its token endpoint (the audience some assertion issuers want instead of the issuer). */
  readonly tokenEndpoint: string;
  /** The canonical URI of the MCP server the token is for. */
  readonly resource: string;
  /** The scopes the sign-in asks for, if any. */
  readonly scope?: string | undefined;
}

export interface OAuthClientOptions {
  /**
   * `authorization_code` (default: a user signs in through `authorize`), `client_credentials`
   * (machine to machine: `client` must be given) or `jwt_bearer` (RFC 7523: a JWT from elsewhere
   * is exchanged for a token, `assertion` gives it: a workload identity token, or an identity
   * assertion grant from an enterprise identity provider, see `identityAssertionGrant`).
   */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  /**
   * For `jwt_bearer`: the assertion to present, asked for at every sign-in (a fresh one each time:
   * assertions are short-lived).
   */
  assertion?: (target: AssertionTarget) => string | Promise<string>;
  /**
   * Opens `url` for the user (a browser) and resolves with the URL the authorization server
   * redirected back to (`redirectUri` with `code`, `state`, `iss`). Required for
   * `authorization_code`.
   */
  authorize?: (url: URL) => Promise<URL | string>;
  /**
   * The redirect URI, e.g. `http://127.0.0.1:8976/callback`; or a function giving it when a sign-in
   * starts (a loopback listener on a port chosen then). A stored registration whose redirect URIs
   * do not include it is replaced by a new one.
   */
  redirectUri?: string | (() => string | Promise<string>);
  /** Pre-registered credentials: for every authorization server, or chosen per issuer. */
  client?: PreRegisteredClient | ((issuer: string) => PreRegisteredClient | undefined);
  /**
   * An https URL serving this client's metadata document (Client ID Metadata Documents,
   * 2025-11-25): used as the client id by authorization servers that advertise support.
   */
  clientMetadataUrl?: string;
  /** The name registered (DCR) and shown to the user. Default `Switchboard`. */
  clientName?: string;
  /** The scopes to ask for; default: the server's challenge, else its `scopes_supported`, else none. */
  scope?: string;
  /** Where clients and tokens are kept. Default: a MemoryTokenStore. */
  store?: TokenStore;
  /** The fetch for discovery and token requests. Default: the global fetch. */
  fetch?: WebFetch;
  /** Allow plain http to non-loopback servers. Default false. */
  allowInsecureHttp?: boolean;
  /** How many times one request may step up its scopes after 403 insufficient_scope. Default 2. */
  maxStepUps?: number;
  /** Refresh this many seconds before expiry. Default 60. */
  refreshBeforeSec?: number;
  /**
   * DPoP (RFC 9449, the MCP extension SEP-1932): tokens bound to a key pair only this client
   * holds, each request carrying a fresh proof signed with it. `'auto'` (default): used when the
   * MCP server says it takes DPoP tokens (a `DPoP` challenge, or the DPoP fields of its resource
   * metadata) and the authorization server lists ES256 in `dpop_signing_alg_values_supported`.
   * `true`: at every sign-in (an authorization server without DPoP ignores the proof and issues a
   * Bearer token). `false`: never.
   */
  dpop?: 'auto' | boolean;
  /**
   * The DPoP key pair (its public key extractable). Default: a P-256 key made per OAuthClient and
   * kept in memory, so DPoP tokens stored by another process are not used (it signs in again).
   */
  dpopKey?: oauth.CryptoKeyPair;
}

/** How one {@link OAuthClient.fetch} runs its sign-ins. */
export interface OAuthFetchOptions {
  /**
   * Called when a request waits for the user to sign in (or step up); the function it returns is
   * called once the tokens are in hand. Give `() => client.holdTimeouts()` so the client's calls
   * (the era probe among them) do not time out while the user is at the browser.
   */
  holdTimeouts?: () => () => void;
}

/** The DPoP key in use: oauth4webapi's handle (proofs, nonces) and the key's thumbprint. */
interface DpopKey {
  readonly handle: oauth.DPoPHandle;
  readonly jkt: string;
}

interface SignInHint {
  resourceMetadata?: string | undefined;
  scope?: string | undefined;
  stepUp?: boolean;
  /** The server's challenge offered the DPoP scheme. */
  dpop?: boolean;
}

interface Signed {
  readonly auth: ServerAuthorization;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  /** The redirect URI of the sign-in in progress (authorization code). */
  readonly redirectUri?: string | undefined;
  /** The DPoP key token requests prove, when the sign-in uses DPoP. */
  readonly dpop?: DpopKey | undefined;
}

const nowSec = () => Math.floor(Date.now() / 1000);

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Never show a token: errors from the protocol library are summarized, not forwarded. */
function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) {
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''} (HTTP ${error.status})`;
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    // A 401 from the token endpoint (a client it does not accept): its challenge says why.
    const { error: code, error_description: text } = error.cause[0]?.parameters ?? {};
    if (code) return `${code}${text ? `: ${text}` : ''} (HTTP ${error.status})`;
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export class OAuthClient {
  readonly store: TokenStore;
  readonly #options: OAuthClientOptions;
  readonly #http: OAuthHttp;
  /** What discovery found per server URL, and the client to use there. */
  readonly #signed = new Map<string, Signed>();
  /** One sign-in at a time per server: concurrent 401s wait for the same one. */
  readonly #pending = new Map<string, Promise<StoredTokens>>();
  #dpopInUse: Promise<DpopKey> | undefined;

  constructor(options: OAuthClientOptions = {}) {
    const grant = options.grant ?? 'authorization_code';
    if (grant !== 'authorization_code' && grant !== 'client_credentials' && grant !== 'jwt_bearer') {
      throw new SwitchboardError(
        'CONFIG',
        `OAuthClient: grant must be authorization_code, client_credentials or jwt_bearer, not ${JSON.stringify(grant)}.`,
      );
    }
    if (grant === 'authorization_code' && (typeof options.authorize !== 'function' || !options.redirectUri)) {
      throw new SwitchboardError(
        'CONFIG',
        'OAuthClient: the authorization code grant needs `authorize` (opens the URL for the user, resolves with the redirect) and `redirectUri`.',
      );
    }
    if (grant !== 'authorization_code' && options.client === undefined) {
      throw new SwitchboardError(
        'CONFIG',
        `OAuthClient: the ${grant === 'jwt_bearer' ? 'JWT-bearer' : 'client credentials'} grant needs \`client\` (its client_id, and its secret or key if it has one).`,
      );
    }
    if (grant === 'jwt_bearer' && typeof options.assertion !== 'function') {
      throw new SwitchboardError(
        'CONFIG',
        'OAuthClient: the JWT-bearer grant needs `assertion` (a function giving the JWT to exchange).',
      );
    }
    const dpop = options.dpop;
    if (dpop !== undefined && dpop !== 'auto' && typeof dpop !== 'boolean') {
      throw new SwitchboardError('CONFIG', "OAuthClient: dpop must be 'auto', true or false.");
    }
    const key = options.dpopKey;
    if (
      key !== undefined &&
      !(typeof key === 'object' && key !== null && 'privateKey' in key && 'publicKey' in key)
    ) {
      throw new SwitchboardError(
        'CONFIG',
        'OAuthClient: dpopKey must be a CryptoKeyPair ({ privateKey, publicKey }).',
      );
    }
    this.#options = { ...options, grant };
    this.store = options.store ?? new MemoryTokenStore();
    this.#http = new OAuthHttp({ fetch: options.fetch, allowInsecureHttp: options.allowInsecureHttp });
  }

  /**
   * A fetch for an HTTP client channel (`new StreamableHttpClientChannel(url, { fetch:
   * oauthClient.fetch(nodeFetch) })`): adds the token, signs in on 401, steps up on 403.
   */
  fetch(inner: FetchLike, options: OAuthFetchOptions = {}): FetchLike {
    const { holdTimeouts } = options;
    const userSignsIn = this.#options.grant === 'authorization_code';
    return async (url, init) => {
      const server = canonicalResource(url);
      let tokens = await this.#usable(server);
      let refreshed = false;
      let signedIn = false;
      let stepUps = 0;
      let nonces = 0;
      for (;;) {
        const response = await this.#send(inner, url, init, tokens);
        const { status } = response;
        if (status !== 401 && status !== 403) return response;
        const header = response.headers.get('www-authenticate');
        const dpopChallenge = findChallenge(header, 'DPoP');
        const bearerChallenge = findChallenge(header, 'Bearer');
        // The challenge of the scheme this request used says what was wrong with it.
        const challenge = tokens?.dpop_jkt
          ? (dpopChallenge ?? bearerChallenge)
          : (bearerChallenge ?? dpopChallenge);
        if (
          status === 401 &&
          tokens?.dpop_jkt &&
          dpopChallenge?.params.error === 'use_dpop_nonce' &&
          nonces < 2
        ) {
          // RFC 9449 §9: the server wants a nonce in the proof; the handle took it from DPoP-Nonce.
          nonces++;
          await response.text().catch(() => undefined);
          continue;
        }
        if (status === 403) {
          const limit = this.#options.maxStepUps ?? 2;
          if (challenge?.params.error !== 'insufficient_scope' || stepUps >= limit) return response;
          stepUps++;
        } else if (signedIn) {
          return response; // refused right after signing in: no loop
        }
        await response.text().catch(() => undefined);
        if (status === 401 && tokens && !refreshed) {
          refreshed = true;
          const fresh = await this.#refresh(server).catch(() => undefined);
          if (fresh) {
            tokens = fresh;
            continue;
          }
        }
        // The request waits on the user at the browser now, not on the server.
        const release = userSignsIn ? holdTimeouts?.() : undefined;
        try {
          tokens = await this.#signInOnce(server, {
            resourceMetadata: challenge?.params.resource_metadata,
            scope: challenge?.params.scope,
            stepUp: status === 403,
            dpop: dpopChallenge !== undefined,
          });
        } finally {
          release?.();
        }
        if (status === 401) signedIn = true;
      }
    };
  }

  /** The stored access token for the server at `url` (refreshed first when it is about to expire), if any. */
  async accessToken(url: string): Promise<string | undefined> {
    return (await this.#usable(canonicalResource(url)))?.access_token;
  }

  /** Signs in to the server at `url` (discovery, registration, grant) and returns the access token. */
  async signIn(url: string, hint: SignInHint = {}): Promise<string> {
    return (await this.#signInOnce(canonicalResource(url), hint)).access_token;
  }

  #signInOnce(server: string, hint: SignInHint): Promise<StoredTokens> {
    const running = this.#pending.get(server);
    if (running) return running;
    const started = this.#signIn(server, hint).finally(() => this.#pending.delete(server));
    this.#pending.set(server, started);
    return started;
  }

  /**
   * The stored tokens for `server`, refreshed first when about to expire; undefined when there are
   * none, or they are bound to a DPoP key this client does not hold.
   */
  async #usable(server: string): Promise<StoredTokens | undefined> {
    let tokens = await this.#stored(server);
    if (!tokens) return undefined;
    const margin = this.#options.refreshBeforeSec ?? 60;
    if (tokens.expires_at !== undefined && tokens.expires_at - margin <= nowSec()) {
      tokens = await this.#refresh(server).catch(() => undefined);
    }
    if (tokens?.dpop_jkt !== undefined && tokens.dpop_jkt !== (await this.#dpopOrNone())?.jkt)
      return undefined;
    return tokens;
  }

  /**
   * One request with the token: `Authorization: Bearer`, or for a DPoP-bound token
   * `Authorization: DPoP` and a fresh proof (`ath` = the token's hash; the nonce a server last
   * gave), made by oauth4webapi; the request itself goes through `inner` as it is.
   */
  async #send(
    inner: FetchLike,
    url: string,
    init: RequestInitLike,
    tokens: StoredTokens | undefined,
  ): Promise<ResponseLike> {
    if (tokens?.dpop_jkt === undefined) return inner(url, withHeaders(init, bearer(tokens)));
    const { handle } = await this.#dpop();
    // oauth4webapi wants a Response back; it reads the status and two headers (DPoP-Nonce, to keep
    // for the next proof, and WWW-Authenticate). The channel gets the real response.
    let real: ResponseLike | undefined;
    const seen = async (_url: string, sent: { headers: Record<string, string> }) => {
      real = await inner(url, withHeaders(init, sent.headers, true));
      const headers = new Headers();
      for (const name of ['dpop-nonce', 'www-authenticate']) {
        const value = real.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      return new Response(null, { status: real.status, headers });
    };
    try {
      await oauth.protectedResourceRequest(
        tokens.access_token,
        init.method,
        new URL(url),
        new Headers(init.headers),
        undefined,
        // The channel decides which URLs it may reach; the body and signal stay the channel's.
        { DPoP: handle, [oauth.allowInsecureRequests]: true, [oauth.customFetch]: seen as never },
      );
    } catch (error) {
      // A challenge is the loop's to read, not an error.
      if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
    }
    return real!;
  }

  /** This client's DPoP key (made on first use) and its oauth4webapi handle. */
  #dpop(): Promise<DpopKey> {
    this.#dpopInUse ??= (async () => {
      const keys =
        this.#options.dpopKey ??
        ((await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
          'sign',
          'verify',
        ])) as oauth.CryptoKeyPair);
      const handle = oauth.DPoP({}, keys);
      return { handle, jkt: await handle.calculateThumbprint() };
    })();
    return this.#dpopInUse;
  }

  /** The DPoP key when this client may use DPoP at all (a stored DPoP token needs it). */
  #dpopOrNone(): Promise<DpopKey | undefined> {
    return this.#options.dpop === false ? Promise.resolve(undefined) : this.#dpop();
  }

  /** Whether this sign-in uses DPoP (see the `dpop` option), and with which key. */
  async #dpopFor(auth: ServerAuthorization, offered: boolean | undefined): Promise<DpopKey | undefined> {
    const mode = this.#options.dpop ?? 'auto';
    if (mode === false) return undefined;
    if (mode === 'auto') {
      const algs = auth.as.dpop_signing_alg_values_supported;
      if (!(offered || auth.dpop) || !Array.isArray(algs) || !algs.includes('ES256')) return undefined;
    }
    return this.#dpop();
  }

  /** Forgets the tokens for the server at `url` (its client registrations are kept). */
  async signOut(url: string): Promise<void> {
    const server = canonicalResource(url);
    const signed = this.#signed.get(server);
    this.#signed.delete(server);
    await this.store.deleteTokens(signed?.auth.resource ?? server);
  }

  async #stored(server: string): Promise<StoredTokens | undefined> {
    const signed = this.#signed.get(server);
    const resource = signed?.auth.resource ?? server;
    const issuer = signed?.auth.issuer ?? (await this.store.issuerOf(resource));
    return issuer === undefined ? undefined : this.store.getTokens(issuer, resource);
  }

  async #signIn(server: string, hint: SignInHint): Promise<StoredTokens> {
    const auth = await discoverServerAuthorization(server, hint.resourceMetadata, this.#http);
    const given = this.#options.grant === 'authorization_code' ? this.#options.redirectUri : undefined;
    const redirectUri = typeof given === 'function' ? await given() : given;
    const dpop = await this.#dpopFor(auth, hint.dpop);
    const signed = { ...(await this.#register(auth, redirectUri)), redirectUri, dpop };
    this.#signed.set(server, signed);
    const previous = await this.store.getTokens(auth.issuer, auth.resource);
    const scope = this.#scope(auth, hint.scope, hint.stepUp ? previous?.scope : undefined);
    const response =
      this.#options.grant === 'client_credentials'
        ? await this.#clientCredentials(signed, scope)
        : this.#options.grant === 'jwt_bearer'
          ? await this.#jwtBearer(signed, scope)
          : await this.#authorizationCode(signed, scope);
    return this.#save(auth, response, scope, dpop);
  }

  /** Scope selection: configured, else the challenge's, else `scopes_supported`, else none; plus what a step-up keeps. */
  #scope(
    auth: ServerAuthorization,
    challenged: string | undefined,
    kept: string | undefined,
  ): string | undefined {
    let scopes =
      this.#options.scope !== undefined ? parseScopes(this.#options.scope) : parseScopes(challenged);
    if (scopes.length === 0 && this.#options.scope === undefined) scopes = [...auth.scopesSupported];
    scopes = unionScopes(parseScopes(kept), scopes);
    // A refresh token needs offline_access where the authorization server lists it (SEP-2207).
    const asScopes = parseScopes(auth.as.scopes_supported);
    if (
      this.#options.grant === 'authorization_code' &&
      scopes.length > 0 &&
      asScopes.includes('offline_access')
    ) {
      scopes = unionScopes(scopes, ['offline_access']);
    }
    return scopes.length === 0 ? undefined : scopes.join(' ');
  }

  /** The client to use at `auth.issuer`: pre-registered, else CIMD, else stored, else DCR. */
  async #register(auth: ServerAuthorization, redirectUri: string | undefined): Promise<Signed> {
    const { as, issuer } = auth;
    const given =
      typeof this.#options.client === 'function' ? this.#options.client(issuer) : this.#options.client;
    if (given) return { auth, ...this.#clientOf(as, given) };
    if (this.#options.clientMetadataUrl && as.client_id_metadata_document_supported === true) {
      return { auth, client: { client_id: this.#options.clientMetadataUrl }, clientAuth: oauth.None() };
    }
    const stored = await this.store.getClient(issuer);
    const expired = stored?.client_secret_expires_at ? stored.client_secret_expires_at <= nowSec() : false;
    const redirects = redirectUri === undefined || (stored?.redirect_uris ?? []).includes(redirectUri);
    if (stored && !expired && redirects) return { auth, ...this.#clientOf(as, stored) };
    if (!as.registration_endpoint) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `Cannot register with the authorization server ${issuer}: it offers no dynamic client registration${this.#options.clientMetadataUrl ? '' : ' and no client ID metadata documents'}. Register a client there and pass its credentials as OAuthClient's \`client\` option.`,
      );
    }
    const methods = as.token_endpoint_auth_methods_supported;
    const method =
      !methods || methods.includes('none')
        ? 'none'
        : (methods.find((m) => m === 'client_secret_basic' || m === 'client_secret_post') ?? 'none');
    const grants =
      this.#options.grant === 'client_credentials'
        ? ['client_credentials']
        : ['authorization_code', 'refresh_token'];
    let registered: StoredClient;
    try {
      const response = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: this.#options.clientName ?? 'Switchboard',
          redirect_uris: redirectUri ? [redirectUri] : [],
          grant_types: grants,
          response_types: this.#options.grant === 'client_credentials' ? [] : ['code'],
          token_endpoint_auth_method: method,
          // SEP-837: say what kind of client this is; a loopback redirect is a native app's.
          application_type:
            redirectUri === undefined || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(redirectUri)
              ? 'native'
              : 'web',
        },
        this.#http.options(),
      );
      registered = await registrationResponse(response);
    } catch (error) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `Dynamic client registration at ${issuer} failed: ${describe(error)}.`,
        { cause: error },
      );
    }
    await this.store.setClient(issuer, registered);
    return { auth, ...this.#clientOf(as, registered) };
  }

  #clientOf(as: oauth.AuthorizationServer, client: StoredClient | PreRegisteredClient): Omit<Signed, 'auth'> {
    const supported = as.token_endpoint_auth_methods_supported;
    const secret = client.client_secret;
    const method =
      client.token_endpoint_auth_method ??
      ('private_key' in client && client.private_key
        ? 'private_key_jwt'
        : secret === undefined
          ? 'none'
          : supported &&
              !supported.includes('client_secret_basic') &&
              supported.includes('client_secret_post')
            ? 'client_secret_post'
            : 'client_secret_basic');
    const base: oauth.Client = { client_id: client.client_id };
    switch (method) {
      case 'none':
        return { client: base, clientAuth: oauth.None() };
      case 'client_secret_basic':
      case 'client_secret_post':
        if (secret === undefined) break;
        return {
          client: base,
          clientAuth:
            method === 'client_secret_basic' ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret),
        };
      case 'private_key_jwt': {
        const key = 'private_key' in client ? client.private_key : undefined;
        if (!key) break;
        return { client: base, clientAuth: oauth.PrivateKeyJwt(key) };
      }
    }
    throw new SwitchboardError(
      'AUTHORIZATION',
      `The client ${client.client_id} authenticates with ${method}, but its ${method === 'private_key_jwt' ? 'private_key' : 'client_secret'} is missing.`,
    );
  }

  async #authorizationCode(signed: Signed, scope: string | undefined): Promise<oauth.TokenEndpointResponse> {
    const { auth, client, clientAuth } = signed;
    const { as } = auth;
    // PKCE S256 is required; a server that does not list it is refused (2025-11-25). A 2025-03-26
    // server without metadata lists nothing: S256 is sent all the same.
    const methods = as.code_challenge_methods_supported;
    if (!auth.legacy || methods !== undefined) {
      if (!methods?.includes('S256')) {
        throw new SwitchboardError(
          'AUTHORIZATION',
          `The authorization server ${auth.issuer} does not list PKCE S256 in code_challenge_methods_supported: refusing to sign in without PKCE.`,
        );
      }
    }
    if (!as.authorization_endpoint) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The authorization server ${auth.issuer} names no authorization_endpoint.`,
      );
    }
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const redirectUri = signed.redirectUri!;
    const url = new URL(this.#http.check(as.authorization_endpoint, 'The authorization endpoint'));
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: auth.resource,
    };
    if (scope !== undefined) params.scope = scope;
    // RFC 9449 §10: the code is bound to the DPoP key too.
    if (signed.dpop) params.dpop_jkt = signed.dpop.jkt;
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    let redirected: URL;
    try {
      redirected = new URL(await this.#options.authorize!(url));
    } catch (error) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The user did not come back from ${auth.issuer}: ${describe(error).replace(/\.$/, '')}.`,
        { cause: error },
      );
    }
    let callback: URLSearchParams;
    try {
      // Checks state, and `iss` (RFC 9207) when present or when the server promises it.
      callback = oauth.validateAuthResponse(as, client, redirected, state);
    } catch (error) {
      throw new SwitchboardError('AUTHORIZATION', `Sign-in at ${auth.issuer} failed: ${describe(error)}.`, {
        cause: error,
      });
    }
    try {
      return await withNonceRetry(signed.dpop, async () => {
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          clientAuth,
          callback,
          redirectUri,
          verifier,
          this.#http.options({
            additionalParameters: { resource: auth.resource },
            DPoP: signed.dpop?.handle,
          }),
        );
        return oauth.processAuthorizationCodeResponse(as, client, response);
      });
    } catch (error) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The token request to ${auth.issuer} failed: ${describe(error)}.`,
        { cause: error },
      );
    }
  }

  #clientCredentials(signed: Signed, scope: string | undefined): Promise<oauth.TokenEndpointResponse> {
    return this.#grant(signed, 'client_credentials', {}, scope, 'client credentials request');
  }

  /**
   * RFC 7523 §2.1: the assertion exchanged for an access token. A refusal is final (SEP-1933: no
   * retry, no other grant): the error says what the authorization server answered.
   */
  async #jwtBearer(signed: Signed, scope: string | undefined): Promise<oauth.TokenEndpointResponse> {
    const { auth } = signed;
    const tokenEndpoint = auth.as.token_endpoint;
    if (!tokenEndpoint) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The authorization server ${auth.issuer} names no token_endpoint.`,
      );
    }
    const assertion = await this.#options.assertion!({
      issuer: auth.issuer,
      tokenEndpoint,
      resource: auth.resource,
      scope,
    });
    return this.#grant(signed, JWT_BEARER, { assertion }, scope, 'JWT-bearer token request');
  }

  /** A token request of a grant without a user (`resource` and `scope` added); `what` names it in errors. */
  async #grant(
    signed: Signed,
    grantType: string,
    given: Record<string, string>,
    scope: string | undefined,
    what: string,
  ): Promise<oauth.TokenEndpointResponse> {
    const { auth, client, clientAuth } = signed;
    const parameters: Record<string, string> = { ...given, resource: auth.resource };
    if (scope !== undefined) parameters.scope = scope;
    try {
      return await withNonceRetry(signed.dpop, async () => {
        const response = await oauth.genericTokenEndpointRequest(
          auth.as,
          client,
          clientAuth,
          grantType,
          parameters,
          this.#http.options({ DPoP: signed.dpop?.handle }),
        );
        return oauth.processGenericTokenEndpointResponse(auth.as, client, response);
      });
    } catch (error) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The ${what} to ${auth.issuer} failed: ${describe(error)}.`,
        {
          cause: error,
        },
      );
    }
  }

  /** New tokens from the stored refresh token, or undefined when there is none. */
  async #refresh(server: string): Promise<StoredTokens | undefined> {
    const signed = this.#signed.get(server) ?? (await this.#restore(server));
    if (!signed) return undefined;
    const { auth, client, clientAuth } = signed;
    const tokens = await this.store.getTokens(auth.issuer, auth.resource);
    if (!tokens?.refresh_token) return undefined;
    // A DPoP-bound grant is refreshed with a proof of the same key (RFC 9449 §5), or not at all.
    let dpop: DpopKey | undefined;
    if (tokens.dpop_jkt !== undefined) {
      dpop = await this.#dpopOrNone();
      if (dpop?.jkt !== tokens.dpop_jkt) return undefined;
    }
    const result = await withNonceRetry(dpop, async () => {
      const response = await oauth.refreshTokenGrantRequest(
        auth.as,
        client,
        clientAuth,
        tokens.refresh_token!,
        this.#http.options({ additionalParameters: { resource: auth.resource }, DPoP: dpop?.handle }),
      );
      return oauth.processRefreshTokenResponse(auth.as, client, response);
    });
    return this.#save(
      auth,
      { ...result, refresh_token: result.refresh_token ?? tokens.refresh_token },
      tokens.scope,
      dpop,
    );
  }

  /** Rebuilds what a refresh needs from the store (a new process with stored tokens). */
  async #restore(server: string): Promise<Signed | undefined> {
    const issuer = await this.store.issuerOf(server);
    if (!issuer) return undefined;
    try {
      const auth = await discoverServerAuthorization(server, undefined, this.#http);
      if (auth.issuer !== issuer) return undefined;
      const signed = await this.#register(auth, undefined);
      this.#signed.set(server, signed);
      return signed;
    } catch {
      return undefined;
    }
  }

  async #save(
    auth: ServerAuthorization,
    response: oauth.TokenEndpointResponse,
    asked: string | undefined,
    dpop: DpopKey | undefined,
  ): Promise<StoredTokens> {
    const tokens: { -readonly [K in keyof StoredTokens]: StoredTokens[K] } = {
      access_token: response.access_token,
      token_type: response.token_type,
    };
    if (response.refresh_token) tokens.refresh_token = response.refresh_token;
    if (typeof response.expires_in === 'number') tokens.expires_at = nowSec() + response.expires_in;
    const scope = response.scope ?? asked;
    if (scope !== undefined) tokens.scope = scope;
    // The authorization server decides: a DPoP token type means the token is bound to our key.
    if (dpop && response.token_type.toLowerCase() === 'dpop') tokens.dpop_jkt = dpop.jkt;
    await this.store.setTokens(auth.issuer, auth.resource, tokens);
    return tokens;
  }
}

/**
 * `client_secret_basic` with the id and secret form-encoded as RFC 6749 §2.3.1 says (what
 * URLSearchParams does): oauth4webapi escapes more (`-` as `%2D`), which servers that compare
 * the decoded header without form-decoding it (the conformance suite's) refuse.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return (_as, client, _body, headers) => {
    const credentials = `${encode(client.client_id)}:${encode(secret)}`;
    headers.set('authorization', `Basic ${btoa(credentials)}`);
  };
}

/**
 * The client an RFC 7591 registration response describes. Read here rather than by oauth4webapi,
 * which refuses the whole response over an optional field of the wrong type (the conformance
 * suite's server sends a non-number `client_secret_expires_at`): only `client_id` is required.
 */
async function registrationResponse(response: Response): Promise<StoredClient> {
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (response.status !== 201 && response.status !== 200) {
    const error = typeof body?.error === 'string' ? body.error : '';
    throw new Error(`HTTP ${response.status}${error ? ` (${error})` : ''}`);
  }
  if (typeof body?.client_id !== 'string' || body.client_id === '') {
    throw new Error('the response names no client_id');
  }
  const client: { -readonly [K in keyof StoredClient]: StoredClient[K] } = { client_id: body.client_id };
  if (typeof body.client_secret === 'string') client.client_secret = body.client_secret;
  if (typeof body.token_endpoint_auth_method === 'string') {
    client.token_endpoint_auth_method = body.token_endpoint_auth_method;
  }
  if (typeof body.client_secret_expires_at === 'number') {
    client.client_secret_expires_at = body.client_secret_expires_at;
  }
  if (Array.isArray(body.redirect_uris)) {
    client.redirect_uris = body.redirect_uris.filter((u): u is string => typeof u === 'string');
  }
  return client;
}

/** The Bearer authorization header for `tokens`, if there are any. */
function bearer(tokens: StoredTokens | undefined): Record<string, string> | undefined {
  return tokens ? { authorization: `Bearer ${tokens.access_token}` } : undefined;
}

/**
 * `init` with `headers` added (or, with `replace`, instead of its own); its other properties
 * copied as they are (`signal` may be a lazy getter).
 */
function withHeaders(
  init: RequestInitLike,
  headers: Record<string, string> | undefined,
  replace = false,
): RequestInitLike {
  if (!headers) return init;
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(init)) as RequestInitLike;
  copy.headers = replace ? headers : { ...init.headers, ...headers };
  return copy;
}

/**
 * A token request, made once more when the authorization server answers `use_dpop_nonce` (RFC
 * 9449 §8): the DPoP handle has kept the nonce from that answer for the next proof.
 */
async function withNonceRetry<T>(dpop: DpopKey | undefined, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (dpop && oauth.isDPoPNonceError(error)) return request();
    throw error;
  }
}

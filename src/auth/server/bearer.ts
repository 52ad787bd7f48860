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
 * - DPoP (RFC 9449, SEP-1932), opt-in with `dpop`: tokens bound to a client's key (`cnf.jkt`) are
 *   presented as `Authorization: DPoP <token>` with a proof of that key for this very request;
 *   challenges name the DPoP scheme too. A bound token presented as Bearer is always refused.
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
import { type DpopOptions, DpopVerifier, InvalidProof } from './dpop.js';
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
  /**
   * Accept DPoP-bound tokens (RFC 9449, SEP-1932): `true`, or options (`required` refuses Bearer
   * tokens). Default: Bearer tokens only.
   */
  dpop?: boolean | DpopOptions;
}

type Check = (token: string) => Promise<VerifiedToken>;

type Scheme = 'Bearer' | 'DPoP';

/** The token in an Authorization header (RFC 6750 §2.1, RFC 9449 §7.1) and its scheme, or why there is none. */
function credentialOf(
  header: string | undefined,
  schemes: readonly Scheme[],
): { scheme: Scheme; token: string } | 'absent' | 'malformed' {
  if (header === undefined) return 'absent';
  const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  const scheme = schemes.find(
    (s) => s.toLowerCase() === (match?.[1] ?? /^\S+/.exec(header)?.[0])?.toLowerCase(),
  );
  if (!scheme) return 'absent';
  return match ? { scheme, token: match[2]! } : 'malformed';
}

/** The key a token is bound to (`cnf.jkt`, RFC 9449 §6), if it is. */
function boundKey(verified: VerifiedToken): string | undefined {
  const cnf = verified.claims?.cnf;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as Record<string, unknown>).jkt : undefined;
  return typeof jkt === 'string' ? jkt : undefined;
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
  readonly #dpop: DpopVerifier | undefined;
  /** The schemes a request may use: Bearer unless DPoP is required, DPoP when enabled. */
  readonly #schemes: readonly Scheme[];
  readonly #origin: string;

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
    const dpop = options.dpop;
    if (dpop !== undefined && typeof dpop !== 'boolean' && (typeof dpop !== 'object' || dpop === null)) {
      throw new SwitchboardError(
        'CONFIG',
        'bearer(): dpop must be true, false or { required, algorithms, proofWindowSec }.',
      );
    }
    this.#dpop = dpop ? new DpopVerifier(dpop === true ? {} : dpop) : undefined;
    this.#schemes = !this.#dpop ? ['Bearer'] : this.#dpop.required ? ['DPoP'] : ['Bearer', 'DPoP'];
    this.#origin = resourceUrl.origin;
    this.#metadataUrl = protectedResourceMetadataUrls(this.resource)[0]!;
    this.#documentPaths = new Set(protectedResourceMetadataPaths(this.resource));
    const document: Record<string, unknown> = {
      ...options.metadata,
      resource: this.resource,
      authorization_servers: [...servers],
      bearer_methods_supported: ['header'],
    };
    if (advertised.length > 0) document.scopes_supported = advertised;
    if (this.#dpop) {
      document.dpop_signing_alg_values_supported = this.#dpop.algorithms;
      if (this.#dpop.required) document.dpop_bound_access_tokens_required = true;
    }
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
    const credential = credentialOf(exchange.header('authorization'), this.#schemes);
    if (credential === 'absent') {
      return this.#refuse(
        401,
        `Unauthorized: this server needs an OAuth access token (Authorization: ${this.#schemes.join(' or ')} ...). Its authorization servers are listed in ${this.#metadataUrl}.`,
        { scope: this.#challengeScope },
      );
    }
    if (credential === 'malformed') {
      return this.#refuse(
        400,
        'Bad Request: the Authorization header is not a valid credential (RFC 6750 §2.1, RFC 9449 §7.1).',
        {
          error: 'invalid_request',
        },
      );
    }
    const { scheme, token } = credential;
    const invalid = (why: string) =>
      this.#refuse(
        401,
        `Unauthorized: the access token was refused: ${why}.`,
        {
          error: 'invalid_token',
          error_description: `The access token was refused: ${why}`,
          scope: this.#challengeScope,
        },
        scheme,
      );
    let proofKey: string | undefined;
    if (scheme === 'DPoP') {
      try {
        proofKey = await this.#dpop!.verify(exchange.header('dpop'), {
          method: exchange.method,
          url: `${this.#origin}${exchange.path}`,
          token,
        });
      } catch (error) {
        if (!(error instanceof InvalidProof)) throw error;
        return this.#refuse(
          401,
          `Unauthorized: ${error.message}.`,
          { error: 'invalid_dpop_proof', error_description: error.message },
          scheme,
        );
      }
    }
    let verified: VerifiedToken;
    try {
      verified = await this.#check(token);
    } catch (error) {
      if (error instanceof InvalidToken) return invalid(error.message);
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
    const bound = boundKey(verified);
    if (scheme === 'Bearer' && bound !== undefined) {
      // RFC 9449 §7.1: whoever holds only the token (not the key) must not get in.
      return invalid('it is bound to a DPoP key: present it as Authorization: DPoP with a proof of that key');
    }
    if (scheme === 'DPoP' && bound !== proofKey) {
      return invalid(
        bound === undefined
          ? 'it is not bound to a DPoP key (present it as Authorization: Bearer)'
          : 'it is bound to another key than the one that signed the DPoP proof',
      );
    }
    return this.#authInfo(token, verified, proofKey);
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
    return this.#refuse(
      403,
      `Forbidden: ${description}. Ask the authorization server for them (step-up).`,
      {
        error: 'insufficient_scope',
        error_description: description,
        scope: formatScopes(needed),
      },
      auth.extra?.dpopKey === undefined ? 'Bearer' : 'DPoP',
    );
  }

  /**
   * An error reply with a challenge per scheme this server takes; the error goes in the challenge
   * of the scheme the request used (the other gets the rest).
   */
  #refuse(
    status: number,
    message: string,
    params: Record<string, string | undefined>,
    used?: Scheme,
  ): HttpReply {
    const rest = { ...params, error: undefined, error_description: undefined };
    const challenges = this.#schemes.map((scheme) =>
      formatChallenge(scheme, {
        ...(scheme === 'DPoP' ? { algs: this.#dpop!.algorithms.join(' ') } : {}),
        ...(used === undefined || used === scheme || !this.#schemes.includes(used) ? params : rest),
        resource_metadata: this.#metadataUrl,
      }),
    );
    return errorReply(status, message, { headers: { 'www-authenticate': challenges.join(', ') } });
  }

  #authInfo(token: string, verified: VerifiedToken, dpopKey: string | undefined): AuthInfo {
    const info: Record<string, unknown> = { scopes: this.#expand(parseScopes(verified.scope)) };
    if (verified.subject !== undefined) info.subject = verified.subject;
    if (verified.clientId !== undefined) info.clientId = verified.clientId;
    if (verified.issuer !== undefined) info.issuer = verified.issuer;
    if (verified.expiresAt !== undefined) info.expiresAt = verified.expiresAt;
    info.extra = {
      resource: this.resource,
      ...(verified.claims ? { claims: verified.claims } : {}),
      ...(dpopKey ? { dpopKey } : {}),
    };
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

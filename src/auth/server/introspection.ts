/**
 * Opaque access tokens, checked by asking the authorization server (RFC 7662 token introspection,
 * through `oauth4webapi`): the token must be active, issued by an accepted issuer and for this
 * server (its `aud` must name this server's canonical URI: a token whose introspection names no
 * audience is refused unless `requireAudience: false`), and not expired. Answers are cached for a
 * short while (never past the token's expiry), keyed by a digest of the token, not the token.
 */
import * as oauth from 'oauth4webapi';
import { digest } from '../../server/request-state.js';
import { requireAuthorizationServer } from '../discovery.js';
import type { OAuthHttp } from '../http.js';
import { InvalidToken, TokenServiceUnavailable, type VerifiedToken } from './verified.js';

export interface IntrospectionOptions {
  /** The issuer whose introspection endpoint to use. Default: the first authorization server. */
  issuer?: string;
  /** The introspection endpoint. Default: `introspection_endpoint` from the issuer's metadata. */
  endpoint?: string;
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its secret (sent with `client_secret_basic`, or `client_secret_post` when `authMethod` says so). */
  clientSecret: string;
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Refuse tokens whose introspection names no audience. Default true. */
  requireAudience?: boolean;
  /** How long an answer is reused. Default 30 s (never past the token's expiry). */
  cacheTtlMs?: number;
}

interface Cached {
  readonly until: number;
  readonly result: VerifiedToken | InvalidToken;
}

const MAX_CACHED = 10_000;

export class Introspector {
  readonly #cache = new Map<string, Cached>();
  #as: Promise<oauth.AuthorizationServer> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly issuers: readonly string[],
    private readonly audiences: readonly string[],
    private readonly http: OAuthHttp,
    private readonly options: IntrospectionOptions,
    private readonly clockToleranceSec: number,
  ) {}

  async verify(token: string): Promise<VerifiedToken> {
    const key = await digest(token);
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && cached.until > now) {
      if (cached.result instanceof InvalidToken) throw cached.result;
      return cached.result;
    }
    let result: VerifiedToken | InvalidToken;
    try {
      result = this.#judge(await this.#introspect(token));
    } catch (error) {
      if (error instanceof TokenServiceUnavailable) throw error;
      // An authorization server that cannot introspect this kind of token (oidc-provider answers so
      // for JWT access tokens) has not vouched for it: refuse the token, the service is fine.
      if (error instanceof oauth.ResponseBodyError && error.error === 'unsupported_token_type') {
        throw new InvalidToken('the authorization server does not introspect tokens of its kind');
      }
      throw new TokenServiceUnavailable(`the introspection endpoint of ${this.issuer} failed`, {
        cause: error,
      });
    }
    const ttl = this.options.cacheTtlMs ?? 30_000;
    const expires =
      result instanceof InvalidToken || result.expiresAt === undefined ? Infinity : result.expiresAt * 1000;
    if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
    this.#cache.set(key, { until: Math.min(now + ttl, expires), result });
    if (result instanceof InvalidToken) throw result;
    return result;
  }

  async #introspect(token: string): Promise<oauth.IntrospectionResponse> {
    this.#as ??= this.#metadata();
    const as = await this.#as.catch((error) => {
      this.#as = undefined;
      throw error;
    });
    const client: oauth.Client = { client_id: this.options.clientId };
    const auth =
      this.options.authMethod === 'client_secret_post'
        ? oauth.ClientSecretPost(this.options.clientSecret)
        : oauth.ClientSecretBasic(this.options.clientSecret);
    const response = await oauth.introspectionRequest(as, client, auth, token, this.http.options());
    return oauth.processIntrospectionResponse(as, client, response);
  }

  async #metadata(): Promise<oauth.AuthorizationServer> {
    const endpoint = this.options.endpoint;
    if (endpoint !== undefined) {
      this.http.check(endpoint, 'The introspection endpoint');
      return { issuer: this.issuer, introspection_endpoint: endpoint };
    }
    let as: oauth.AuthorizationServer;
    try {
      as = await requireAuthorizationServer(this.issuer, this.http);
    } catch (error) {
      throw new TokenServiceUnavailable(`the metadata of ${this.issuer} could not be read`, { cause: error });
    }
    if (as.introspection_endpoint === undefined) {
      throw new TokenServiceUnavailable(
        `the metadata of ${this.issuer} names no introspection_endpoint; configure introspection.endpoint`,
      );
    }
    this.http.check(as.introspection_endpoint, 'The introspection endpoint');
    return as;
  }

  #judge(answer: oauth.IntrospectionResponse): VerifiedToken | InvalidToken {
    if (!answer.active) return new InvalidToken('it is not active (revoked, expired or unknown)');
    const issuer = typeof answer.iss === 'string' ? answer.iss : this.issuer;
    if (!this.issuers.includes(issuer)) {
      return new InvalidToken('it was not issued by an authorization server this server accepts');
    }
    const aud = answer.aud === undefined ? [] : Array.isArray(answer.aud) ? answer.aud : [answer.aud];
    if (
      aud.length === 0 ? this.options.requireAudience !== false : !aud.some((a) => this.audiences.includes(a))
    ) {
      return new InvalidToken('it was issued for another resource (its audience does not name this server)');
    }
    const now = Date.now() / 1000;
    if (typeof answer.exp === 'number' && answer.exp + this.clockToleranceSec < now) {
      return new InvalidToken('it has expired');
    }
    if (typeof answer.nbf === 'number' && answer.nbf - this.clockToleranceSec > now) {
      return new InvalidToken('it is not valid yet');
    }
    return {
      issuer,
      subject: typeof answer.sub === 'string' ? answer.sub : undefined,
      clientId: typeof answer.client_id === 'string' ? answer.client_id : undefined,
      scope: answer.scope,
      expiresAt: typeof answer.exp === 'number' ? answer.exp : undefined,
      claims: { ...answer },
    };
  }
}

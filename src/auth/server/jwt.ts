/**
 * JWT access tokens (RFC 9068 and the common variants), checked with `jose`: the signature against
 * the issuer's published keys, the issuer against the allow-list, the audience against this
 * server's canonical URI (RFC 8707: a token minted for another server is refused), and the time
 * claims with a small clock tolerance.
 *
 * Keys: each allowed issuer's JWKS, found in its authorization server metadata (`jwks_uri`) unless
 * configured, fetched on first use and kept by `jose`'s remote key set: cached, re-fetched when a
 * token names a key id it does not hold (rotation), at most once per cooldown.
 */
import * as jose from 'jose';
import { requireAuthorizationServer } from '../discovery.js';
import type { OAuthHttp } from '../http.js';
import { InvalidToken, TokenServiceUnavailable, type VerifiedToken } from './verified.js';

export interface JwtOptions {
  /**
   * The JWKS URL, or one per issuer; default: each issuer's `jwks_uri` from its authorization
   * server metadata.
   */
  jwksUri?: string | Readonly<Record<string, string>>;
  /** Accepted signature algorithms. Default: the asymmetric ones (RS*, PS*, ES*, EdDSA). */
  algorithms?: readonly string[];
  /** A required `typ` header, e.g. `at+jwt` (RFC 9068). Default: any. */
  typ?: string;
  /**
   * How soon after a JWKS fetch a token naming an unknown key may make it fetch again (so random key
   * ids cannot make the server hammer the authorization server). Default 30000 ms.
   */
  jwksCooldownMs?: number;
  /** How long fetched keys are used before they are fetched again. Default 600000 ms. */
  jwksMaxAgeMs?: number;
}

const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

export class JwtVerifier {
  readonly #keys = new Map<string, Promise<jose.JWTVerifyGetKey>>();

  constructor(
    private readonly issuers: readonly string[],
    private readonly audiences: readonly string[],
    private readonly http: OAuthHttp,
    private readonly options: JwtOptions,
    private readonly clockToleranceSec: number,
  ) {}

  async verify(token: string): Promise<VerifiedToken> {
    let issuer: unknown;
    try {
      issuer = jose.decodeJwt(token).iss;
    } catch {
      throw new InvalidToken('it is not a JWT access token');
    }
    if (typeof issuer !== 'string' || !this.issuers.includes(issuer)) {
      throw new InvalidToken('it was not issued by an authorization server this server accepts');
    }
    const keys = await this.#keysOf(issuer);
    let result: jose.JWTVerifyResult;
    try {
      result = await jose.jwtVerify(token, keys, {
        issuer,
        audience: [...this.audiences],
        algorithms: [...(this.options.algorithms ?? ASYMMETRIC)],
        clockTolerance: this.clockToleranceSec,
        ...(this.options.typ !== undefined ? { typ: this.options.typ } : {}),
      });
    } catch (error) {
      if (error instanceof TokenServiceUnavailable) throw error;
      throw new InvalidToken(reasonOf(error), { cause: error });
    }
    const claims = result.payload;
    return {
      issuer,
      subject: typeof claims.sub === 'string' ? claims.sub : undefined,
      clientId: firstString(claims.client_id, claims.azp, claims.cid),
      scope: claims.scope ?? claims.scp,
      expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
      claims: claims as Record<string, unknown>,
    };
  }

  #keysOf(issuer: string): Promise<jose.JWTVerifyGetKey> {
    let keys = this.#keys.get(issuer);
    if (!keys) {
      keys = this.#load(issuer);
      this.#keys.set(issuer, keys);
      // A failed lookup is retried by the next request, not remembered.
      keys.catch(() => this.#keys.delete(issuer));
    }
    return keys;
  }

  async #load(issuer: string): Promise<jose.JWTVerifyGetKey> {
    const configured = this.options.jwksUri;
    let uri = typeof configured === 'string' ? configured : configured?.[issuer];
    try {
      uri ??= (await requireAuthorizationServer(issuer, this.http)).jwks_uri;
    } catch (error) {
      throw new TokenServiceUnavailable(`the metadata of ${issuer} could not be read`, { cause: error });
    }
    if (uri === undefined) {
      throw new TokenServiceUnavailable(
        `the metadata of ${issuer} names no jwks_uri; configure jwt.jwksUri, or use introspection`,
      );
    }
    const url = this.http.check(uri, 'The JWKS URL');
    const remote = jose.createRemoteJWKSet(url, {
      cooldownDuration: this.options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: this.options.jwksMaxAgeMs ?? 600_000,
      // Capped: a JWKS larger than a megabyte is not read (the request gets 503, as for a slow one).
      [jose.customFetch]: (input: string, init: RequestInit) => this.http.documentFetch(input, init),
    });
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        if (
          error instanceof jose.errors.JWKSNoMatchingKey ||
          error instanceof jose.errors.JWKSMultipleMatchingKeys
        ) {
          throw error;
        }
        throw new TokenServiceUnavailable(`the keys of ${issuer} could not be fetched from ${url.href}`, {
          cause: error,
        });
      }
    };
  }
}

const firstString = (...values: unknown[]): string | undefined =>
  values.find((v): v is string => typeof v === 'string');

/** Why `jose` refused a token, in words a client can act on (never the token itself). */
function reasonOf(error: unknown): string {
  if (error instanceof jose.errors.JWTExpired) return 'it has expired';
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud')
      return 'it was issued for another resource (its audience does not name this server)';
    if (error.claim === 'nbf') return 'it is not valid yet';
    if (error.claim === 'iss') return 'its issuer is not accepted';
    if (error.claim === 'typ') return 'it is not an access token (wrong typ)';
    return `its ${error.claim} claim is invalid`;
  }
  if (error instanceof jose.errors.JWKSNoMatchingKey)
    return 'it is signed with a key its issuer does not publish';
  if (error instanceof jose.errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof jose.errors.JOSEAlgNotAllowed)
    return 'it is signed with an algorithm this server does not accept';
  return 'it could not be verified';
}

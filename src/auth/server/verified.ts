/**
 * What a token check yields, whatever checked it (JWT, introspection, a custom verifier), and the
 * two ways it fails: the token is refused (401 `invalid_token`), or it could not be checked now
 * (the authorization server is unreachable: 503, the client should retry rather than sign in again).
 */

export interface VerifiedToken {
  readonly issuer?: string;
  readonly subject?: string;
  readonly clientId?: string;
  /** The granted scopes: a space-separated string, or an array (`scp`). */
  readonly scope?: unknown;
  /** Seconds since the epoch. */
  readonly expiresAt?: number;
  readonly claims?: Record<string, unknown>;
}

/** The token is refused; the message says why, without the token. */
export class InvalidToken extends Error {
  override name = 'InvalidToken';
}

/** The token could not be checked (keys or introspection unreachable). */
export class TokenServiceUnavailable extends Error {
  override name = 'TokenServiceUnavailable';
}

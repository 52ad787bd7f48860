/**
 * DPoP proofs (RFC 9449 §4.3) for `bearer({ dpop })`, checked with `jose`: the proof is a JWT of
 * type `dpop+jwt` signed by the public key in its own header; it names the request (`htm`, `htu`),
 * its time (`iat`, within a window either side of now: SEP-1932 asks ±5 minutes of a server that
 * cannot share state), a unique `jti` (refused when seen again inside the window: replay), and the
 * hash of the access token it accompanies (`ath`). The key's thumbprint is what the token's
 * `cnf.jkt` must name; the caller compares them.
 *
 * The replay cache is this process's memory: servers behind a load balancer each keep their own,
 * so a proof replayed to another instance inside the window is not caught (SEP-1932 accepts this
 * for stateless servers; the window bounds it).
 */
import * as jose from 'jose';

export interface DpopOptions {
  /**
   * Refuse Bearer tokens: every request needs a DPoP-bound token and a proof (the metadata says
   * `dpop_bound_access_tokens_required`). Default false: Bearer and DPoP tokens are both taken.
   */
  required?: boolean;
  /** Proof signature algorithms accepted (and advertised). Default: ES256, ES384, ES512, PS256..., RS256..., EdDSA. */
  algorithms?: readonly string[];
  /** How far a proof's `iat` may be from now, either way, in seconds. Default 300. */
  proofWindowSec?: number;
  /** At most this many proof ids are remembered (oldest forgotten first). Default 100000. */
  maxRememberedProofs?: number;
}

const DEFAULT_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
  'Ed25519',
];

/** The proof is refused; the message says why (never the proof or the token). */
export class InvalidProof extends Error {
  override name = 'InvalidProof';
}

/** What a proof must match: the request it came with and the token it accompanies. */
export interface ProofTarget {
  readonly method: string;
  /** The request's URL without query or fragment, as this server is reached (its canonical origin). */
  readonly url: string;
  readonly token: string;
}

export class DpopVerifier {
  readonly algorithms: readonly string[];
  readonly required: boolean;
  readonly #windowSec: number;
  readonly #max: number;
  /** Proof ids seen (`jkt jti`), with when they may be forgotten (seconds); oldest first. */
  readonly #seen = new Map<string, number>();

  constructor(options: DpopOptions) {
    this.algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
    this.required = options.required === true;
    this.#windowSec = options.proofWindowSec ?? 300;
    this.#max = options.maxRememberedProofs ?? 100_000;
  }

  /** The thumbprint (RFC 7638, SHA-256) of the key that signed the proof, once every check passed. */
  async verify(proof: string | undefined, target: ProofTarget): Promise<string> {
    if (proof === undefined || proof === '') throw new InvalidProof('the request has no DPoP proof header');
    // Repeated headers arrive joined by commas; a JWT has none.
    if (proof.includes(',')) throw new InvalidProof('the request has more than one DPoP proof');
    let header: jose.ProtectedHeaderParameters;
    try {
      header = jose.decodeProtectedHeader(proof);
    } catch {
      throw new InvalidProof('the DPoP proof is not a JWT');
    }
    if (header.typ !== 'dpop+jwt') throw new InvalidProof('the DPoP proof is not of type dpop+jwt');
    const alg = header.alg;
    if (typeof alg !== 'string' || !this.algorithms.includes(alg)) {
      throw new InvalidProof(
        `the DPoP proof is signed with an algorithm this server does not accept (${this.algorithms.join(' ')})`,
      );
    }
    const jwk = header.jwk;
    if (typeof jwk !== 'object' || jwk === null)
      throw new InvalidProof('the DPoP proof names no public key (jwk)');
    if ('d' in jwk || 'p' in jwk || 'k' in jwk)
      throw new InvalidProof('the DPoP proof header carries a private key');
    let claims: jose.JWTPayload;
    try {
      const key = await jose.importJWK(jwk, alg);
      claims = (await jose.jwtVerify(proof, key, { typ: 'dpop+jwt', algorithms: [alg] })).payload;
    } catch {
      throw new InvalidProof('the DPoP proof signature does not verify with the key it names');
    }
    if (claims.htm !== target.method)
      throw new InvalidProof(`the DPoP proof is for ${String(claims.htm)}, not ${target.method}`);
    if (typeof claims.htu !== 'string' || !sameResource(claims.htu, target.url)) {
      throw new InvalidProof('the DPoP proof is for another URL (htu)');
    }
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.iat !== 'number' || Math.abs(now - claims.iat) > this.#windowSec) {
      throw new InvalidProof(`the DPoP proof was not made within ${this.#windowSec} s of now (iat)`);
    }
    if (claims.ath !== (await tokenHash(target.token))) {
      throw new InvalidProof('the DPoP proof is for another access token (ath)');
    }
    if (typeof claims.jti !== 'string' || claims.jti === '' || claims.jti.length > 256) {
      throw new InvalidProof('the DPoP proof has no usable jti');
    }
    const jkt = await jose.calculateJwkThumbprint(jwk, 'sha256');
    this.#remember(`${jkt} ${claims.jti}`, now);
    return jkt;
  }

  /** Records a proof id, refusing one seen inside the window (replay). */
  #remember(id: string, now: number): void {
    for (const [seen, until] of this.#seen) {
      if (until > now && this.#seen.size < this.#max) break;
      this.#seen.delete(seen);
    }
    if (this.#seen.has(id)) throw new InvalidProof('the DPoP proof was used before (replay)');
    // Forgotten once its iat can no longer pass, whatever iat it claimed.
    this.#seen.set(id, now + 2 * this.#windowSec);
  }
}

/** `ath`: base64url(SHA-256(token)) (RFC 9449 §4.2). */
async function tokenHash(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return jose.base64url.encode(new Uint8Array(digest));
}

/** RFC 9449 §4.3: `htu` matches the request URL, ignoring query and fragment, after URL normalization. */
function sameResource(htu: string, expected: string): boolean {
  let given: URL;
  try {
    given = new URL(htu);
  } catch {
    return false;
  }
  const want = new URL(expected);
  return given.origin === want.origin && given.pathname === want.pathname;
}

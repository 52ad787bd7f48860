/**
 * `gateway.auth.apiKeys`: callers present `Authorization: Bearer <key>`; the principal is the key's
 * name. Only SHA-256 digests of the keys are kept (nothing to log by accident), every digest is
 * compared in constant time, and every key is compared on every request, so neither the time taken
 * nor an early exit tells which key came close.
 */
import { hash, timingSafeEqual } from 'node:crypto';

/** The least entropy a key may have. */
export const MIN_KEY_BITS = 128;

/** How to make a good key, for the error that refuses a weak one. */
export const MAKE_A_KEY =
  'Make one with: openssl rand -base64 32 (or node -e "console.log(crypto.randomBytes(32).toString(\'base64url\'))"), put it in an environment variable and write "${THAT_VARIABLE}".';

/**
 * An estimate of the key's entropy in bits, as if each character were drawn at random from the
 * smallest usual alphabet holding all of them (digits, hex, letters and digits, base64, printable
 * ASCII). Patterns count for less: a key that repeats itself ("abcabc...") counts one period, and one
 * with few distinct characters ("aaaa...", "abab...") counts those as its alphabet.
 */
export function keyEntropyBits(key: string): number {
  const text = key.replace(/=+$/, '');
  const alphabet = /^[0-9]*$/.test(text)
    ? 10
    : /^[0-9a-f]*$/.test(text) || /^[0-9A-F]*$/.test(text)
      ? 16
      : /^[0-9A-Za-z]*$/.test(text)
        ? 62
        : /^[0-9A-Za-z+/_-]*$/.test(text)
          ? 64
          : 95;
  const period = smallestPeriod(text);
  const distinct = new Set(text).size;
  // A random key shows about as many distinct characters as it has (up to its alphabet's size).
  const symbols = distinct * 4 < Math.min(text.length, alphabet) ? distinct : alphabet;
  return symbols <= 1 ? 0 : Math.floor(period * Math.log2(symbols));
}

/** The length of the shortest string the text repeats (its own length when it repeats nothing). */
function smallestPeriod(text: string): number {
  for (let p = 1; p <= text.length / 2; p++) {
    let repeats = true;
    for (let i = p; i < text.length && repeats; i++) repeats = text[i] === text[i - p];
    if (repeats) return p;
  }
  return text.length;
}

/**
 * The key's SHA-256 in a Buffer. Taken as a 'binary' (latin1: one byte per character) string and copied into
 * Buffer's pool: the one-shot hash's own 'buffer' output allocates a fresh ArrayBuffer from C++ on
 * every call, which cost two to three times as much as this (the key is checked on every request).
 */
function digest(text: string): Buffer {
  return Buffer.from(hash('sha256', text, 'binary'), 'latin1');
}

export class ApiKeys {
  readonly #entries: ReadonlyArray<{ readonly principal: string; readonly digest: Buffer }>;

  /** `keys`: principal → key (checked beforehand: see {@link keyEntropyBits}). */
  constructor(keys: Readonly<Record<string, string>>) {
    this.#entries = Object.entries(keys).map(([principal, key]) => ({ principal, digest: digest(key) }));
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The principal whose key `presented` is, or undefined. */
  principal(presented: string): string | undefined {
    const candidate = digest(presented);
    let found: string | undefined;
    for (const entry of this.#entries) {
      // No early exit: every key costs the same whatever matched.
      if (timingSafeEqual(candidate, entry.digest) && found === undefined) found = entry.principal;
    }
    return found;
  }
}

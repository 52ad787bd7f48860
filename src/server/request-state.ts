/**
 * Sealed `requestState` for 2026-07-28 multi-round-trip requests (MRTR).
 *
 * The spec makes `requestState` attacker-controlled input: it travels through the client and comes
 * back on the retry. Ours carries the answers a handler already received, so it is sealed with
 * AES-256-GCM (web-standard `crypto.subtle`): the client can neither read nor alter it, and a state
 * sealed under another key fails to open. Inside: a version, the originating request (method plus a
 * digest of its name/uri and arguments), the caller it was issued to, an expiry, a one-time nonce,
 * and the answers so far (or, for a proxy's pass-through item, the state of the server behind it).
 * Each check failing is a -32602 with its own message (see `mrtr.ts`).
 *
 * Multi-node deployments must give every node the same keys (one `requestStateKey`, or a shared
 * {@link RequestStateKeyring} such as `switchboard/redis`'s); the default key is random per process,
 * so a retry that lands on another process (or after a restart) is refused.
 */
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import { base64UrlToBytes, bytesToBase64Url } from '../util/base64.js';
import { isPlainObject } from '../util/guards.js';

/** One-time use of a state's nonce. Plug a shared store (Redis...) in for multi-node deployments. */
export interface RequestStateStore {
  /**
   * Records `nonce` as used until `expiresAt` (ms since epoch). Resolves true the first time a
   * nonce is seen, false if it was already consumed (a replay). A store that cannot remember one
   * more nonce must reject (the retry then fails) rather than forget one whose state is still valid.
   */
  consume(nonce: string, expiresAt: number): Promise<boolean>;
}

/**
 * The default store: in memory, bounded. A nonce is forgotten only once its state has expired (a
 * min-heap by expiry finds those in O(log n)), so a replay window never reopens. When the store holds
 * `maxEntries` nonces that are all still valid, one more is refused with -32603 until some expire:
 * under a flood of retries the server stops completing input rounds rather than accept a replay.
 */
export class MemoryRequestStateStore implements RequestStateStore {
  private readonly used = new Map<string, number>();
  /** A binary min-heap of the used nonces by expiry: parallel arrays, one slot per nonce. */
  private readonly expiries: number[] = [];
  private readonly nonces: string[] = [];

  constructor(private readonly maxEntries = 100_000) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new SwitchboardError(
        'CONFIG',
        `MemoryRequestStateStore: maxEntries must be a positive integer, got ${maxEntries}.`,
      );
    }
  }

  /** Nonces remembered now. */
  get size(): number {
    return this.used.size;
  }

  consume(nonce: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    while (this.expiries.length > 0 && this.expiries[0]! <= now) this.used.delete(this.pop());
    if (this.used.has(nonce)) return Promise.resolve(false);
    if (this.used.size >= this.maxEntries) {
      return Promise.reject(
        new ProtocolError(
          ErrorCode.InternalError,
          `This server holds ${this.maxEntries} requestStates that have not expired yet and cannot remember one more; try again later. (Its operator can raise MemoryRequestStateStore's maxEntries or use a shared store.)`,
        ),
      );
    }
    this.used.set(nonce, expiresAt);
    this.push(expiresAt, nonce);
    return Promise.resolve(true);
  }

  private push(expiry: number, nonce: string): void {
    const { expiries, nonces } = this;
    let i = expiries.length;
    expiries.push(expiry);
    nonces.push(nonce);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (expiries[parent]! <= expiry) break;
      expiries[i] = expiries[parent]!;
      nonces[i] = nonces[parent]!;
      i = parent;
    }
    expiries[i] = expiry;
    nonces[i] = nonce;
  }

  /** Removes the soonest-expiring entry and returns its nonce. */
  private pop(): string {
    const { expiries, nonces } = this;
    const top = nonces[0]!;
    const lastExpiry = expiries.pop()!;
    const lastNonce = nonces.pop()!;
    const n = expiries.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && expiries[child + 1]! < expiries[child]!) child++;
      if (expiries[child]! >= lastExpiry) break;
      expiries[i] = expiries[child]!;
      nonces[i] = nonces[child]!;
      i = child;
    }
    expiries[i] = lastExpiry;
    nonces[i] = lastNonce;
    return top;
  }
}

/** An answer the handler received (or will receive) for the input request at one key. */
export interface SealedAnswer {
  /** The input request's method. */
  readonly m: string;
  /** Digest of the input request's params: an answer only replays to the same question. */
  readonly h: string;
  /** The client's result. */
  readonly r: unknown;
}

/** A question asked in the previous round, awaiting its answer in `inputResponses`. */
export interface SealedQuestion {
  readonly m: string;
  readonly h: string;
}

export interface RequestStatePayload {
  readonly v: 1;
  /** The method of the originating request. */
  readonly m: string;
  /** Digest of the originating request's target (tool/prompt name or uri) and arguments. */
  readonly r: string;
  /** Digest of the caller's identity, or null for an unauthenticated caller. */
  readonly c: string | null;
  /** Expiry, ms since epoch. */
  readonly e: number;
  /** One-time nonce. */
  readonly n: string;
  /** Answers so far, by input key. */
  readonly a: Readonly<Record<string, SealedAnswer>>;
  /** Questions of the last round, by input key. */
  readonly p: Readonly<Record<string, SealedQuestion>>;
  /**
   * What a pass-through item carries for the server behind it (its own `requestState` and where it
   * goes; see `ctx.passInputRequired`): that server asked the questions and checks the answers.
   */
  readonly u?: unknown;
}

const PREFIX = 'sb1.';
const IV_BYTES = 12;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Binds the ciphertext to its purpose: a key shared with another use cannot open or forge it.
const AAD = encoder.encode('switchboard/requestState/v1');

type AeadKey = Awaited<ReturnType<typeof crypto.subtle.deriveKey>>;

/** One `requestState` key: an id (stable across nodes) and its secret. */
export interface RequestStateKey {
  readonly id: string;
  /** Any string or bytes (at least 16 bytes recommended). */
  readonly secret: string | Uint8Array;
}

/**
 * The keys that seal and open `requestState`, for rotation without a restart: the first key seals,
 * every key opens (so states sealed before a rotation stay good until they expire). Called on each
 * seal and open: return a cached array (the sealer derives each key once, by id).
 */
export interface RequestStateKeyring {
  keys(): readonly RequestStateKey[] | Promise<readonly RequestStateKey[]>;
}

/**
 * A keyring held in this process. `rotate()` makes a new key the sealing one; the previous keys keep
 * opening for `retainMs` (set it to at least the `requestState` lifetime), then are dropped.
 * `switchboard/redis` has one every node of a cluster shares.
 */
export class MemoryKeyring implements RequestStateKeyring {
  #keys: { key: RequestStateKey; retiredAt: number | undefined }[] = [];
  readonly #retainMs: number;

  /** `secret`: the first key's secret; default random. `retainMs`: default 1 hour. */
  constructor(secret?: string | Uint8Array, options: { retainMs?: number } = {}) {
    this.#retainMs = options.retainMs ?? 3_600_000;
    this.rotate(secret);
  }

  keys(): readonly RequestStateKey[] {
    const now = Date.now();
    if (this.#keys.some((k) => k.retiredAt !== undefined && now - k.retiredAt > this.#retainMs)) {
      this.#keys = this.#keys.filter((k) => k.retiredAt === undefined || now - k.retiredAt <= this.#retainMs);
      this.#cached = undefined;
    }
    this.#cached ??= this.#keys.map((k) => k.key);
    return this.#cached;
  }

  #cached: readonly RequestStateKey[] | undefined;

  /** Makes a new key (random unless given) the one that seals; returns its id. */
  rotate(secret: string | Uint8Array = crypto.getRandomValues(new Uint8Array(32))): string {
    const now = Date.now();
    for (const k of this.#keys) k.retiredAt ??= now;
    const id = newNonce();
    this.#keys.unshift({ key: { id, secret }, retiredAt: undefined });
    this.#cached = undefined;
    return id;
  }
}

export class RequestStateSealer {
  readonly #keyring: RequestStateKeyring;
  /**
   * Derived on first use, by key id: every Server has a sealer, few ever seal, and deriving at
   * construction loaded Web Crypto and ran HKDF before a stdio server's first answer (3-5 ms of its
   * cold start).
   */
  readonly #derived = new Map<string, { secret: string | Uint8Array; key: Promise<AeadKey> }>();

  /**
   * `secret`: one key (any string or bytes, at least 16 bytes recommended), or a keyring for
   * rotation; default a random per-process key.
   */
  constructor(secret?: string | Uint8Array | RequestStateKeyring) {
    if (typeof secret === 'object' && !(secret instanceof Uint8Array)) {
      this.#keyring = secret;
    } else {
      const key: readonly RequestStateKey[] = [
        { id: 'default', secret: typeof secret === 'string' ? secret : (secret?.slice() ?? randomSecret) },
      ];
      this.#keyring = { keys: () => key };
    }
  }

  #key(key: RequestStateKey): Promise<AeadKey> {
    let derived = this.#derived.get(key.id);
    if (derived?.secret !== key.secret) {
      // Keys that left the ring go with it: the map never holds more than a few.
      if (this.#derived.size > 16) this.#derived.clear();
      const material =
        key.secret === randomSecret
          ? crypto.getRandomValues(new Uint8Array(32))
          : typeof key.secret === 'string'
            ? encoder.encode(key.secret)
            : key.secret;
      derived = { secret: key.secret, key: deriveKey(material) };
      this.#derived.set(key.id, derived);
    }
    return derived.key;
  }

  async #keys(): Promise<readonly RequestStateKey[]> {
    const keys = await this.#keyring.keys();
    if (keys.length === 0) {
      throw new SwitchboardError(
        'CONFIG',
        'The requestState keyring holds no key; it must hold at least one.',
      );
    }
    return keys;
  }

  async seal(payload: RequestStatePayload): Promise<string> {
    const [current] = await this.#keys();
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const plain = encoder.encode(JSON.stringify(payload));
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: AAD },
        await this.#key(current!),
        plain,
      ),
    );
    const out = new Uint8Array(IV_BYTES + sealed.length);
    out.set(iv);
    out.set(sealed, IV_BYTES);
    return PREFIX + bytesToBase64Url(out);
  }

  /**
   * The payload, or undefined when `token` is malformed, altered, or sealed under a key not in the
   * ring. Keys are tried newest first: a state sealed before a rotation costs one more decryption.
   */
  async open(token: string): Promise<Record<string, unknown> | undefined> {
    if (!token.startsWith(PREFIX)) return undefined;
    let bytes: Uint8Array;
    try {
      bytes = base64UrlToBytes(token.slice(PREFIX.length));
    } catch {
      return undefined;
    }
    if (bytes.length <= IV_BYTES) return undefined;
    for (const key of await this.#keys()) {
      let plain: ArrayBuffer;
      try {
        plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: bytes.subarray(0, IV_BYTES), additionalData: AAD },
          await this.#key(key),
          bytes.subarray(IV_BYTES),
        );
      } catch {
        continue;
      }
      try {
        const value = JSON.parse(decoder.decode(plain));
        return isPlainObject(value) ? value : undefined;
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}

/** Stands for "a random key, made when first used" (a per-process default). */
const randomSecret = new Uint8Array(0);

async function deriveKey(material: Uint8Array): Promise<AeadKey> {
  const base = await crypto.subtle.importKey('raw', material, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    {
      name: 'HKDF',
      hash: 'SHA-256',
      salt: encoder.encode('switchboard requestState'),
      info: new Uint8Array(),
    },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** A base64url SHA-256 digest of `text`. */
export async function digest(text: string): Promise<string> {
  return bytesToBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text))));
}

/** JSON with object keys sorted, so equal values digest equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A random nonce (128 bits, base64url). */
export const newNonce = (): string => bytesToBase64Url(crypto.getRandomValues(new Uint8Array(16)));

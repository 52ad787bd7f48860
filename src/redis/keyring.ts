/**
 * The `requestState` keys every node shares, kept in one Redis hash (id → secret and creation time).
 * The first node to start with an empty hash creates the first key (atomically: two nodes starting
 * together agree on one). `rotate()` on any node adds a key that becomes the sealing key everywhere:
 * the node tells the others on the shared channel, and each node also re-reads the hash every
 * `refreshMs`, so a node that missed the message catches up. A key is dropped `retainMs` after a
 * newer one replaced it.
 *
 * Each node holds the keys in memory: while Redis is down, sealing and opening go on with the keys
 * it has. Anyone who can read this Redis can read the keys and so forge `requestState`: keep Redis
 * private to the cluster (as the session and task data it holds already require).
 */
import { SwitchboardError } from '../protocol/errors.js';
import type { RequestStateKey, RequestStateKeyring } from '../server/request-state.js';
import { bytesToBase64Url } from '../util/base64.js';
import type { RedisConnection } from './connection.js';

export interface RedisKeyringOptions {
  /** How long a replaced key still opens states. At least the `requestState` lifetime. Default 1 hour. */
  readonly retainMs?: number;
  /** How often each node re-reads the keys. Default 60 s. */
  readonly refreshMs?: number;
}

/** The hash lives as long as the cluster uses it: every read extends it by this. */
const KEYS_TTL_MS = 30 * 24 * 3_600_000;

// Seeds the hash only if it is empty (the first node to start, or Redis restarted without its data:
// then the keys this node holds go back, so states sealed before stay good), and answers the hash.
// One round trip, no race between nodes.
const LOAD_SCRIPT = `
if redis.call('HLEN', KEYS[1]) == 0 then
  for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

interface Stored {
  readonly id: string;
  readonly secret: string;
  readonly createdAt: number;
}

export class RedisKeyring implements RequestStateKeyring {
  #keys: readonly RequestStateKey[] = [];
  /** What {@link #keys} was read from: the seed if Redis comes back empty. */
  #stored: readonly Stored[] = [];
  readonly #retainMs: number;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #hash: string;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisKeyringOptions = {},
  ) {
    this.#retainMs = options.retainMs ?? 3_600_000;
    this.#hash = connection.key('rsk');
    connection.on('keys', () => {
      this.load().catch(() => {
        // The periodic refresh catches up.
      });
    });
    this.#timer = setInterval(() => {
      this.load().catch(() => {
        // Redis is down: keep the keys we have.
      });
    }, options.refreshMs ?? 60_000);
    this.#timer.unref?.();
  }

  keys(): readonly RequestStateKey[] {
    return this.#keys;
  }

  /** Reads the keys (creating the first one if there is none). */
  async load(): Promise<void> {
    const seed = this.#stored.length > 0 ? this.#stored : [fresh()];
    const flat = (await this.connection.guard(() =>
      this.connection.command.eval(
        LOAD_SCRIPT,
        1,
        this.#hash,
        KEYS_TTL_MS,
        ...seed.flatMap((key) => [key.id, JSON.stringify(key)]),
      ),
    )) as string[];
    const stored: Stored[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      try {
        const value = JSON.parse(flat[i + 1]!) as Stored;
        if (typeof value.secret === 'string' && typeof value.createdAt === 'number') {
          stored.push({ ...value, id: flat[i]! });
        }
      } catch {
        // Not ours: skip it.
      }
    }
    stored.sort((a, b) => b.createdAt - a.createdAt);
    const now = Date.now();
    // A key stays while the key that replaced it is younger than retainMs.
    const kept = stored.filter((_key, i) => i === 0 || now - stored[i - 1]!.createdAt <= this.#retainMs);
    const dropped = stored.filter((key) => !kept.includes(key));
    if (dropped.length > 0) {
      await this.connection.command.hdel(this.#hash, ...dropped.map((key) => key.id)).catch(() => {});
    }
    if (kept.length === 0) {
      throw new SwitchboardError('CONFIG', `The Redis hash ${this.#hash} holds no usable requestState key.`);
    }
    // The base64 text is the secret (256 random bits either way); a string compares by value, so the
    // sealer keeps its derived key across reloads.
    this.#stored = kept;
    this.#keys = kept.map((key) => ({ id: key.id, secret: key.secret }));
  }

  /** Makes a new random key the sealing key on every node; returns its id. */
  async rotate(): Promise<string> {
    const key = fresh();
    await this.connection.guard(() => this.connection.command.hset(this.#hash, key.id, JSON.stringify(key)));
    await this.load();
    this.connection.publish('keys', key.id);
    return key.id;
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

function fresh(): Stored {
  const createdAt = Date.now();
  const secret = bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  return { id: `${createdAt.toString(36)}-${secret.slice(0, 6)}`, secret, createdAt };
}

/**
 * The keys that bind a gateway's task ids to the callers they were shown to (`gateway.redis`): a
 * list of random 256-bit secrets in one Redis hash, `<prefix>task-keys` (the gateway's prefix is
 * `switchboard:gateway:`; key id → secret and creation time), without expiry: a task id must stay
 * good for as long as its task lives, across restarts of every node. Ids are made under the newest
 * key and read back under any (see task-ids.ts).
 *
 * The first node to start with an empty hash creates the first key (atomically: two nodes starting
 * together agree on one). Each node holds the keys in memory and, every `refreshMs` and after an id
 * that no key it holds reads (at most once a `missRefreshMs`), writes back the keys it holds that
 * the hash lacks (HSETNX) and takes in the ones it lacks. So when Redis loses the hash (restarted
 * without persistence) the running nodes put their keys back, and a node that started in between
 * and made a key of its own has it taken in by the others as they read it: every node ends up
 * holding every key (the union; none is ever dropped, since some node's tasks may still use it) and
 * making ids under the same newest one. A node that adds keys to the hash tells the others on the
 * shared channel, so they need not wait for their next refresh.
 *
 * The key of earlier versions, one string at `<prefix>task-key`, is taken into the hash when found
 * (and left in place for nodes not yet upgraded), so a rolling upgrade keeps every task id good.
 *
 * Anyone who can read this Redis can read the keys and so make task ids for any caller: keep Redis
 * private to the cluster.
 */
import { base64UrlToBytes, bytesToBase64Url } from '../util/base64.js';
import type { RedisConnection } from './connection.js';

export interface RedisTaskIdKeysOptions {
  /** How often each node re-reads (and if need be re-seeds) the keys. Default 60 s. */
  readonly refreshMs?: number;
  /** The least time between two reads caused by ids no key reads. Default 1 s (at most `refreshMs`). */
  readonly missRefreshMs?: number;
}

/** The id of the key earlier versions kept alone at `<prefix>task-key`. */
const LEGACY_ID = 'task-key';

// Writes back the keys this node holds that the hash lacks, takes in the earlier versions' single
// key, creates the first key if there is still none, and answers how many fields it added and the
// hash. One round trip, atomic: no race between nodes.
// KEYS: the hash, the earlier key. ARGV: a fresh key's id and value, then this node's, id and value.
const LOAD_SCRIPT = `
local added = 0
for i = 3, #ARGV, 2 do added = added + redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
local legacy = redis.call('GET', KEYS[2])
if legacy then
  added = added + redis.call('HSETNX', KEYS[1], '${LEGACY_ID}', cjson.encode({ secret = legacy, createdAt = 0 }))
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  added = 1
end
return { added, redis.call('HGETALL', KEYS[1]) }`;

interface Held {
  readonly id: string;
  /** As stored: base64url of the 32 bytes. */
  readonly text: string;
  readonly createdAt: number;
  /** The bytes, one object per key for as long as it is held (TaskIds imports each once). */
  readonly secret: Uint8Array;
}

/**
 * The gateway's `TaskIdKeyring` (gateway/task-ids.ts) kept in Redis: it has that shape, and is
 * not declared to implement it, as redis/ sits below gateway/ in the layers.
 */
export class RedisTaskIdKeys {
  /** Newest first. */
  #held: readonly Held[] = [];
  #secrets: readonly Uint8Array[] = [];
  readonly #hash: string;
  readonly #legacy: string;
  readonly #missRefreshMs: number;
  readonly #timer: ReturnType<typeof setInterval>;
  /** When a miss last caused a read, and the read it caused while it runs. */
  #missedAt = Number.NEGATIVE_INFINITY;
  #missing: Promise<boolean> | undefined;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisTaskIdKeysOptions = {},
  ) {
    const refreshMs = options.refreshMs ?? 60_000;
    this.#missRefreshMs = Math.min(options.missRefreshMs ?? 1_000, refreshMs);
    this.#hash = connection.key('task-keys');
    this.#legacy = connection.key('task-key');
    connection.on('task-keys', () => {
      this.load().catch(() => {
        // The periodic refresh catches up.
      });
    });
    this.#timer = setInterval(() => {
      this.load().catch(() => {
        // Redis is down: go on with the keys held; the next refresh puts them back if it lost them.
      });
    }, refreshMs);
    this.#timer.unref?.();
  }

  /** Newest first; empty until the first {@link load}. */
  keys(): readonly Uint8Array[] {
    return this.#secrets;
  }

  /**
   * Reads the keys, merged with those held (creating the first one if there is none anywhere);
   * resolves true when this node's keys changed.
   */
  async load(): Promise<boolean> {
    const fresh = freshKey();
    const [added, flat] = (await this.connection.guard(() =>
      this.connection.command.eval(
        LOAD_SCRIPT,
        2,
        this.#hash,
        this.#legacy,
        fresh.id,
        stored(fresh),
        ...this.#held.flatMap((key) => [key.id, stored(key)]),
      ),
    )) as [number, string[]];
    const byId = new Map(this.#held.map((key) => [key.id, key]));
    let changed = false;
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const id = flat[i]!;
      if (byId.has(id)) continue;
      const key = parseStored(id, flat[i + 1]!);
      // Not ours, or a secret held under another id already: skip it.
      if (key === undefined || [...byId.values()].some((held) => held.text === key.text)) continue;
      byId.set(id, key);
      changed = true;
    }
    if (changed) {
      // Newest first, ties by id: every node that holds the same keys makes ids under the same one.
      this.#held = [...byId.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
      this.#secrets = this.#held.map((key) => key.secret);
    }
    if (added > 0) this.connection.publish('task-keys', added);
    return changed;
  }

  /**
   * An id no key read: reads the keys again, unless a read caused by a miss ran less than
   * `missRefreshMs` ago (then false at once); misses while one runs share it.
   */
  missed(): Promise<boolean> {
    if (this.#missing) return this.#missing;
    const now = Date.now();
    if (now - this.#missedAt < this.#missRefreshMs) return Promise.resolve(false);
    this.#missedAt = now;
    this.#missing = this.load()
      .catch(() => false)
      .finally(() => {
        this.#missing = undefined;
      });
    return this.#missing;
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

function stored(key: Held): string {
  return JSON.stringify({ secret: key.text, createdAt: key.createdAt });
}

function parseStored(id: string, value: string): Held | undefined {
  try {
    const { secret, createdAt } = JSON.parse(value) as { secret?: unknown; createdAt?: unknown };
    if (typeof secret !== 'string' || typeof createdAt !== 'number') return undefined;
    const bytes = base64UrlToBytes(secret);
    if (bytes.length < 32) return undefined;
    return { id, text: secret, createdAt, secret: bytes };
  } catch {
    return undefined;
  }
}

function freshKey(): Held {
  const createdAt = Date.now();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const text = bytesToBase64Url(secret);
  return { id: `${createdAt.toString(36)}-${text.slice(0, 6)}`, text, createdAt, secret };
}

/**
 * The task store in Redis: a task created on one node is seen, answered, cancelled and its result
 * read on any other.
 *
 * - A task is one JSON string key (`t:<id>`) that expires with the task (`ttlMs`, or
 *   `unlimitedTtlMs` for a task without a lifetime); a sorted set per owner (`to:<owner>`, by
 *   creation time) lists them.
 * - A change is a compare-and-set: read the record, apply {@link applyTaskPatch} here, write it back
 *   with a script that writes only if the record is still what was read (and publishes the new record
 *   to the other nodes in the same step); a lost race reads again.
 * - The node that created a task runs its handler, and holds a lease on it (`tl:<id>`, renewed every
 *   third of `leaseMs`) until the task ends. A node that finds a running task without a lease knows
 *   its node died: it fails the task with a reason instead of leaving it "working" for ever.
 * - Changes reach the other nodes on the shared channel; pub/sub keeps nothing, so a node also
 *   re-reads, every third of `leaseMs`, the running tasks it was asked about and runs no handler for
 *   (one `MGET`): a change it missed while Redis was down, or the death of the task's node, reaches
 *   whoever waits there (a `tasks/result`, a listen stream) without anyone polling.
 */

import {
  applyTaskPatch,
  type NewTask,
  newTaskRecord,
  type TaskListQuery,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
  type TaskUpdate,
} from '../extensions/tasks/store.js';
import { isTerminalStatus } from '../extensions/tasks/types.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { paginate } from '../server/pagination.js';
import { isPlainObject } from '../util/guards.js';
import type { RedisConnection } from './connection.js';

export interface RedisTaskStoreOptions {
  /** Lifetime in Redis of a task created with `ttlMs: null`. Default 24 hours. */
  readonly unlimitedTtlMs?: number;
  /** How long a running task outlives the last sign of life of its node. Default 15 s. */
  readonly leaseMs?: number;
}

type Listener = (taskId: string, record: TaskRecord | undefined) => void;

// Writes the record only if it is still what the caller read, keeping its expiry, and tells the
// other nodes in the same step.
const CAS_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
redis.call('PUBLISH', KEYS[2], ARGV[3])
return 1`;

const MAX_CAS_ATTEMPTS = 16;
/** Running tasks of other nodes followed at once (see {@link RedisTaskStore}). */
const MAX_FOLLOWED = 10_000;
const LOST_NODE =
  'The node running this task stopped before the task finished (its lease in the shared store expired); run the request again.';

export class RedisTaskStore implements TaskStore {
  readonly #listeners = new Set<Listener>();
  /** Tasks this node runs: it renews their leases until they end. */
  readonly #running = new Set<string>();
  /** Running tasks of other nodes that this node was asked about, by id: their last `lastUpdatedAt`. */
  readonly #followed = new Map<string, number>();
  readonly #unlimitedTtlMs: number;
  readonly #leaseMs: number;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisTaskStoreOptions = {},
  ) {
    this.#unlimitedTtlMs = options.unlimitedTtlMs ?? 24 * 3_600_000;
    this.#leaseMs = options.leaseMs ?? 15_000;
    connection.on('task', (body) => {
      if (!isPlainObject(body) || typeof body.id !== 'string') return;
      const record = isPlainObject(body.r) ? (body.r as unknown as TaskRecord) : undefined;
      if (record === undefined || isTerminalStatus(record.status)) this.#running.delete(body.id);
      this.#follow(body.id, record);
      this.#emit(body.id, record);
    });
    this.#timer = setInterval(
      () => {
        this.#renew();
        this.#sweep();
      },
      Math.max(100, Math.floor(this.#leaseMs / 3)),
    );
    this.#timer.unref?.();
  }

  #record(taskId: string): string {
    return this.connection.key(`t:${taskId}`);
  }

  #lease(taskId: string): string {
    return this.connection.key(`tl:${taskId}`);
  }

  #owned(owner: string | null): string {
    return this.connection.key(`to:${owner ?? '-'}`);
  }

  async create(task: NewTask): Promise<TaskRecord> {
    const record = newTaskRecord(task, Date.now());
    const ttl = task.ttlMs ?? this.#unlimitedTtlMs;
    const owned = this.#owned(task.owner);
    const results = await this.connection.guard(() =>
      this.connection.command
        .multi()
        .set(this.#record(task.taskId), JSON.stringify(record), 'PX', ttl, 'NX')
        .set(this.#lease(task.taskId), this.connection.nodeId, 'PX', this.#leaseMs)
        .zadd(owned, record.createdAt, task.taskId)
        .pexpire(owned, Math.max(ttl, this.#unlimitedTtlMs))
        .exec(),
    );
    if (results?.[0]?.[1] !== 'OK') {
      throw new ProtocolError(ErrorCode.InternalError, `Task id ${task.taskId} is already in use.`);
    }
    this.#running.add(task.taskId);
    this.#changed(task.taskId, record);
    return record;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const [text, lease] = await this.connection.guard(() =>
      this.connection.command.mget(this.#record(taskId), this.#lease(taskId)),
    );
    const record = parse(text);
    this.#follow(taskId, record);
    if (record && !isTerminalStatus(record.status) && lease === null) {
      // Its node is gone: the task ends here, failed, for every node.
      return (
        (
          await this.update(taskId, {
            op: 'finish',
            status: 'failed',
            error: { code: ErrorCode.InternalError, message: LOST_NODE },
            statusMessage: LOST_NODE,
          })
        ).record ?? record
      );
    }
    return record;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskUpdate> {
    const key = this.#record(taskId);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const text = await this.connection.guard(() => this.connection.command.get(key));
      const record = parse(text);
      if (!record) return { record: undefined, applied: false };
      const next = applyTaskPatch(record, patch, Date.now());
      if (!next) return { record, applied: false };
      const written = await this.connection.guard(() =>
        this.connection.command.eval(
          CAS_SCRIPT,
          2,
          key,
          this.connection.channel,
          text!,
          JSON.stringify(next),
          this.connection.message('task', { id: taskId, r: next }),
        ),
      );
      if (written === 1) {
        if (isTerminalStatus(next.status)) this.#ended(taskId);
        this.#follow(taskId, next);
        this.#emit(taskId, next);
        return { record: next, applied: true };
      }
    }
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Task ${taskId} changed ${MAX_CAS_ATTEMPTS} times while this change was being applied; try again.`,
    );
  }

  async list(query: TaskListQuery): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const owned = this.#owned(query.owner);
    const flat = await this.connection.guard(() =>
      this.connection.command.zrange(owned, 0, -1, 'WITHSCORES'),
    );
    const ids: string[] = [];
    const keys: string[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      ids.push(flat[i]!);
      keys.push(
        `${Number(flat[i + 1])
          .toString(36)
          .padStart(10, '0')}:${flat[i]}`,
      );
    }
    if (ids.length === 0) return { tasks: [] };
    const texts = await this.connection.guard(() =>
      this.connection.command.mget(...ids.map((id) => this.#record(id))),
    );
    const records: TaskRecord[] = [];
    const liveKeys: string[] = [];
    const gone: string[] = [];
    texts.forEach((text, i) => {
      const record = parse(text);
      if (record) {
        records.push(record);
        liveKeys.push(keys[i]!);
      } else gone.push(ids[i]!);
    });
    // Expired tasks leave the owner's index lazily, here.
    if (gone.length > 0) this.connection.command.zrem(owned, ...gone).catch(() => {});
    const page = paginate(records, liveKeys, query.cursor, query.limit);
    return page.nextCursor === undefined
      ? { tasks: page.items }
      : { tasks: page.items, nextCursor: page.nextCursor };
  }

  async delete(taskId: string): Promise<boolean> {
    const text = await this.connection.guard(() => this.connection.command.get(this.#record(taskId)));
    const record = parse(text);
    if (!record) return false;
    await this.connection.guard(() =>
      this.connection.command
        .multi()
        .del(this.#record(taskId), this.#lease(taskId))
        .zrem(this.#owned(record.owner), taskId)
        .exec(),
    );
    this.#ended(taskId);
    this.#followed.delete(taskId);
    this.#changed(taskId, undefined);
    return true;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Stops renewing leases (the node is shutting down; its running tasks were failed by the server). */
  close(): void {
    clearInterval(this.#timer);
  }

  /** Tells local listeners and the other nodes. */
  #changed(taskId: string, record: TaskRecord | undefined): void {
    this.#emit(taskId, record);
    this.connection.publish('task', { id: taskId, r: record ?? null });
  }

  #ended(taskId: string): void {
    if (!this.#running.delete(taskId)) return;
    this.connection.command.del(this.#lease(taskId)).catch(() => {});
  }

  #renew(): void {
    if (this.#running.size === 0) return;
    const pipeline = this.connection.command.pipeline();
    for (const taskId of this.#running)
      pipeline.set(this.#lease(taskId), this.connection.nodeId, 'PX', this.#leaseMs);
    pipeline.exec().catch(() => {
      // Redis is down: the next renewal tries again (the leases outlive a few missed renewals).
    });
  }

  /** Follows a running task of another node (bounded: the oldest followed goes first). */
  #follow(taskId: string, record: TaskRecord | undefined): void {
    if (!record || isTerminalStatus(record.status) || this.#running.has(taskId)) {
      this.#followed.delete(taskId);
      return;
    }
    this.#followed.delete(taskId);
    this.#followed.set(taskId, record.lastUpdatedAt);
    if (this.#followed.size > MAX_FOLLOWED) this.#followed.delete(this.#followed.keys().next().value!);
  }

  /** Re-reads the followed tasks: what changed unheard is told, a task whose node died is failed. */
  #sweep(): void {
    if (this.#followed.size === 0 || this.#sweeping) return;
    this.#sweeping = true;
    const ids = [...this.#followed.keys()];
    const keys = ids.flatMap((id) => [this.#record(id), this.#lease(id)]);
    this.connection.command
      .mget(...keys)
      .then(async (values) => {
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i]!;
          const record = parse(values[2 * i]);
          const seen = this.#followed.get(id);
          if (seen === undefined) continue;
          if (record && !isTerminalStatus(record.status) && values[2 * i + 1] === null) {
            await this.get(id); // fails it, and tells everyone
          } else if (!record || record.lastUpdatedAt !== seen) {
            this.#follow(id, record);
            this.#emit(id, record);
          }
        }
      })
      .catch(() => {
        // Redis is down: the next sweep tries again.
      })
      .finally(() => {
        this.#sweeping = false;
      });
  }

  #sweeping = false;

  #emit(taskId: string, record: TaskRecord | undefined): void {
    for (const listener of this.#listeners) {
      try {
        listener(taskId, record);
      } catch {
        // A listener's failure is its own (see MemoryTaskStore).
      }
    }
  }
}

function parse(text: string | null | undefined): TaskRecord | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text);
    return isPlainObject(value) ? (value as unknown as TaskRecord) : undefined;
  } catch {
    return undefined;
  }
}

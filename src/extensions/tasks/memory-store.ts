/**
 * The default task store: one process, in memory, bounded. A task is forgotten once its `ttlMs` has
 * passed (checked whenever it is looked at, and across the whole store when it is full). A task with
 * an unlimited lifetime (`ttlMs: null`) stays until the store is full: then the oldest finished task
 * makes room, and when every task is still running, creating one fails.
 */
import { ErrorCode, ProtocolError, SwitchboardError } from '../../protocol/errors.js';
import { paginate } from '../../server/pagination.js';
import {
  applyTaskPatch,
  isExpired,
  type NewTask,
  newTaskRecord,
  type TaskListQuery,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
  type TaskUpdate,
} from './store.js';
import { isTerminalStatus } from './types.js';

export interface MemoryTaskStoreOptions {
  /** Tasks kept at once, running and finished. Default 10 000. */
  maxTasks?: number;
  /** The clock, in epoch milliseconds. Default `Date.now` (tests pass their own to expire tasks at will). */
  now?: () => number;
}

const DEFAULT_MAX_TASKS = 10_000;

type Listener = (taskId: string, record: TaskRecord | undefined) => void;

interface Entry {
  record: TaskRecord;
  /** Creation order, as a sortable key for list cursors. */
  readonly seq: string;
}

export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly listeners = new Set<Listener>();
  private readonly maxTasks: number;
  private readonly now: () => number;
  private created = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    if (!Number.isInteger(this.maxTasks) || this.maxTasks < 1) {
      throw new SwitchboardError('CONFIG', `maxTasks must be a positive integer, got ${options.maxTasks}.`);
    }
    this.now = options.now ?? Date.now;
  }

  /** Tasks held now, expired ones not yet swept included. */
  get size(): number {
    return this.tasks.size;
  }

  async create(task: NewTask): Promise<TaskRecord> {
    if (this.tasks.has(task.taskId)) {
      throw new ProtocolError(ErrorCode.InternalError, `Task id ${task.taskId} is already in use.`);
    }
    if (this.tasks.size >= this.maxTasks) this.makeRoom();
    const record = newTaskRecord(task, this.now());
    this.tasks.set(task.taskId, { record, seq: String(this.created++).padStart(16, '0') });
    this.emit(task.taskId, record);
    return record;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.live(taskId)?.record;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskUpdate> {
    const entry = this.live(taskId);
    if (!entry) return { record: undefined, applied: false };
    const next = applyTaskPatch(entry.record, patch, this.now());
    if (!next) return { record: entry.record, applied: false };
    entry.record = next;
    this.emit(taskId, next);
    return { record: next, applied: true };
  }

  async list(query: TaskListQuery): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const now = this.now();
    const records: TaskRecord[] = [];
    const keys: string[] = [];
    for (const [taskId, entry] of this.tasks) {
      if (isExpired(entry.record, now)) {
        this.drop(taskId);
      } else if (entry.record.owner === query.owner) {
        records.push(entry.record);
        keys.push(entry.seq);
      }
    }
    const page = paginate(records, keys, query.cursor, query.limit);
    return page.nextCursor === undefined
      ? { tasks: page.items }
      : { tasks: page.items, nextCursor: page.nextCursor };
  }

  async delete(taskId: string): Promise<boolean> {
    if (!this.tasks.has(taskId)) return false;
    this.drop(taskId);
    return true;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The entry if the task exists and has not expired (an expired one is dropped here). */
  private live(taskId: string): Entry | undefined {
    const entry = this.tasks.get(taskId);
    if (entry && isExpired(entry.record, this.now())) {
      this.drop(taskId);
      return undefined;
    }
    return entry;
  }

  /** Full store: sweep expired tasks, else drop the oldest finished one, else refuse. */
  private makeRoom(): void {
    const now = this.now();
    for (const [taskId, entry] of this.tasks) if (isExpired(entry.record, now)) this.drop(taskId);
    if (this.tasks.size < this.maxTasks) return;
    for (const [taskId, entry] of this.tasks) {
      if (isTerminalStatus(entry.record.status)) {
        this.drop(taskId);
        return;
      }
    }
    throw new ProtocolError(
      ErrorCode.InternalError,
      `This server already holds ${this.maxTasks} tasks, its limit, and all of them are still running; try again once some finish.`,
    );
  }

  private drop(taskId: string): void {
    this.tasks.delete(taskId);
    this.emit(taskId, undefined);
  }

  private emit(taskId: string, record: TaskRecord | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(taskId, record);
      } catch {
        // A listener's failure is its own (the server's listener reports through onerror); the
        // change is made and the other listeners still hear it.
      }
    }
  }
}

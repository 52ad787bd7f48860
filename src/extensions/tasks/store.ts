/**
 * Where tasks live: the `TaskStore` contract and the rules every store applies.
 *
 * A store keeps plain JSON records (no functions, no class instances), so a store backed by Redis or
 * a database can implement the same interface: every method is async, a record is replaced whole by
 * each change, and the state machine is one pure function ({@link applyTaskPatch}) that a store
 * runs inside its own atomic step (a compare-and-set, a transaction, a Lua script...). The server
 * hears changes through {@link TaskStore.subscribe}: that is how a `tasks/update` or `tasks/cancel`
 * served by one node reaches the handler running on another.
 */
import type { JsonRpcErrorObject } from '../../protocol/jsonrpc.js';
import type { Revision } from '../../protocol/revisions.js';
import type { JsonObject } from '../../protocol/types.js';
import { isTerminalStatus, type TaskDetails, type TaskInputRequest, type TaskStatus } from './types.js';

/** Everything the server keeps about one task. JSON-serializable. */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Lifetime from `createdAt`; null for unlimited. The store forgets the task once it has passed. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /**
   * Who may see the task: a digest of the caller's credentials (and, for a 2025-11-25 task, of its
   * session); null when anyone holding the (unguessable) id may.
   */
  readonly owner: string | null;
  /** The revision of the request that created the task: it fixes the task's wire form. */
  readonly revision: Revision;
  /** The request the task carries out (`tools/call`) and its target (the tool's name). */
  readonly method: string;
  readonly name?: string;
  /** Questions the handler waits on, by key (a key is never reused within a task). */
  readonly inputRequests: Readonly<Record<string, TaskInputRequest>>;
  /** Answers received for those questions and not yet taken by the handler. */
  readonly inputResponses: Readonly<Record<string, unknown>>;
  /** The request's result (`completed`; on 2025-11-25 also `failed` for a tool result with `isError`). */
  readonly result?: JsonObject;
  /** The JSON-RPC error the request ended with (`failed`). */
  readonly error?: JsonRpcErrorObject;
}

/** What the server decides when it creates a task; the store adds the status and the timestamps. */
export interface NewTask {
  readonly taskId: string;
  readonly owner: string | null;
  readonly revision: Revision;
  readonly method: string;
  readonly name?: string;
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
}

/** One change to a task. A store applies it with {@link applyTaskPatch}, atomically. */
export type TaskPatch =
  /** The handler asks a question: the task waits for input. */
  | { readonly op: 'ask'; readonly key: string; readonly request: TaskInputRequest }
  /** The client answers (`tasks/update`); answers to keys not outstanding are ignored. */
  | { readonly op: 'answer'; readonly responses: Readonly<Record<string, unknown>> }
  /** The question `key` is settled (its answer taken, or it failed): forget it. */
  | { readonly op: 'settle'; readonly key: string }
  /** A new status message while the task works. */
  | { readonly op: 'message'; readonly statusMessage: string }
  /** The request ended. */
  | {
      readonly op: 'finish';
      readonly status: 'completed' | 'failed';
      readonly result?: JsonObject;
      readonly error?: JsonRpcErrorObject;
      readonly statusMessage?: string;
    }
  /** The client (or the server) cancels the task. */
  | { readonly op: 'cancel'; readonly statusMessage?: string };

/** The outcome of {@link TaskStore.update}. */
export interface TaskUpdate {
  /** The task after the call (unchanged when the patch did not apply); undefined if it does not exist. */
  readonly record: TaskRecord | undefined;
  /** Whether the patch changed the task (it does not once the task is terminal). */
  readonly applied: boolean;
}

export interface TaskListQuery {
  /** Only tasks with this owner. */
  readonly owner: string | null;
  /** Opaque position returned as `nextCursor` by the previous page. */
  readonly cursor?: string;
  readonly limit: number;
}

export interface TaskStore {
  /**
   * Stores a new task in status `working` and resolves once a `get` (from any node) finds it: the
   * server answers with the task's id only after this resolves.
   */
  create(task: NewTask): Promise<TaskRecord>;
  /** The task, or undefined if it never existed, expired, or was deleted. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Applies `patch` atomically with {@link applyTaskPatch}; notifies subscribers when it applied. */
  update(taskId: string, patch: TaskPatch): Promise<TaskUpdate>;
  /** One page of `owner`'s live tasks, oldest first. Throws -32602 on a cursor it did not issue. */
  list(query: TaskListQuery): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
  /** Forgets a task; notifies subscribers (with undefined). Resolves false if there was none. */
  delete(taskId: string): Promise<boolean>;
  /**
   * Hears every change to every task (the new record, or undefined when it was deleted or expired),
   * from whichever node made it. Returns the function that stops listening.
   */
  subscribe(listener: (taskId: string, record: TaskRecord | undefined) => void): () => void;
}

/** A new task's first record. */
export function newTaskRecord(task: NewTask, now: number): TaskRecord {
  const record: TaskRecord = {
    ...task,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    inputRequests: {},
    inputResponses: {},
  };
  return record;
}

/** Whether the task's lifetime has passed at `now`. */
export const isExpired = (record: TaskRecord, now: number): boolean =>
  record.ttlMs !== null && now >= record.createdAt + record.ttlMs;

/**
 * The task after `patch`, or undefined when the patch does not apply: a terminal task never changes
 * (the status machine is working ⇄ input_required → completed | failed | cancelled), an answer must
 * name an outstanding question, and a settle a known one. The status follows the questions: a task
 * with outstanding questions is `input_required`, one without is `working`.
 */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

export function applyTaskPatch(record: TaskRecord, patch: TaskPatch, now: number): TaskRecord | undefined {
  if (isTerminalStatus(record.status)) return undefined;
  const next = (changes: Partial<TaskRecord>): TaskRecord => {
    const out: Writable<TaskRecord> = {
      ...record,
      ...changes,
      lastUpdatedAt: now,
    };
    if (!isTerminalStatus(out.status)) {
      out.status = Object.keys(out.inputRequests).length > 0 ? 'input_required' : 'working';
    }
    return out;
  };
  switch (patch.op) {
    case 'ask': {
      if (Object.hasOwn(record.inputRequests, patch.key)) return undefined;
      return next({ inputRequests: { ...record.inputRequests, [patch.key]: patch.request } });
    }
    case 'answer': {
      const inputRequests = { ...record.inputRequests };
      const inputResponses = { ...record.inputResponses };
      let answered = false;
      for (const [key, value] of Object.entries(patch.responses)) {
        if (!Object.hasOwn(inputRequests, key)) continue;
        delete inputRequests[key];
        inputResponses[key] = value;
        answered = true;
      }
      return answered ? next({ inputRequests, inputResponses }) : undefined;
    }
    case 'settle': {
      const known = Object.hasOwn(record.inputRequests, patch.key);
      if (!known && !Object.hasOwn(record.inputResponses, patch.key)) return undefined;
      const { [patch.key]: _asked, ...inputRequests } = record.inputRequests;
      const { [patch.key]: _answer, ...inputResponses } = record.inputResponses;
      return next({ inputRequests, inputResponses });
    }
    case 'message':
      return next({ statusMessage: patch.statusMessage });
    case 'finish': {
      const out: Partial<Writable<TaskRecord>> & { status: TaskStatus } = {
        status: patch.status,
        inputRequests: {},
        inputResponses: {},
      };
      if (patch.result !== undefined) out.result = patch.result;
      if (patch.error !== undefined) out.error = patch.error;
      if (patch.statusMessage !== undefined) out.statusMessage = patch.statusMessage;
      return next(out);
    }
    case 'cancel': {
      const out: Partial<Writable<TaskRecord>> & { status: TaskStatus } = {
        status: 'cancelled',
        inputRequests: {},
        inputResponses: {},
      };
      if (patch.statusMessage !== undefined) out.statusMessage = patch.statusMessage;
      return next(out);
    }
  }
}

/** The record as both wire forms start from it (ISO timestamps; payloads per status). */
export function taskDetails(record: TaskRecord): TaskDetails {
  const task: TaskDetails = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  if (record.status === 'input_required') task.inputRequests = { ...record.inputRequests };
  if (record.result !== undefined) task.result = record.result;
  if (record.error !== undefined) task.error = record.error;
  return task;
}

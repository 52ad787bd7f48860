/**
 * Tasks, one model for both of their wire forms:
 * - the `io.modelcontextprotocol/tasks` extension (2026-07-28): flat tasks with `ttlMs` and
 *   `pollIntervalMs`, a `resultType: "task"` creation result, and the outcome (`result`, `error`) or
 *   the pending `inputRequests` inlined into the task;
 * - the experimental tasks of 2025-11-25: `ttl` and `pollInterval`, a `{ task }` creation result,
 *   and the outcome fetched separately with `tasks/result`.
 * The server and the client both speak through the encoders and the decoder here.
 */
import { ErrorCode, invalidParams, ProtocolError, SwitchboardError } from '../../protocol/errors.js';
import type { JsonRpcErrorObject, Params } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { ClientCapabilities, JsonObject } from '../../protocol/types.js';
import { isPlainObject } from '../../util/guards.js';

/** The extension's identifier, in `capabilities.extensions` of both sides. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** 2026-07-28: a task's status, pushed to `subscriptions/listen` streams that named the task. */
export const TASK_NOTIFICATION = 'notifications/tasks';
/** 2025-11-25: a task's status, sent on the connection that created the task. */
export const LEGACY_TASK_STATUS_NOTIFICATION = 'notifications/tasks/status';

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Completed, failed and cancelled tasks never change again. */
export const isTerminalStatus = (status: TaskStatus): boolean =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

/** A task's state, in milliseconds whichever era described it. */
export interface TaskInfo {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** Lifetime from creation; null for unlimited. The server may forget the task after it. */
  ttlMs: number | null;
  /** How long to wait between polls, as the server suggests. */
  pollIntervalMs?: number;
}

/** One question a task waits on (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
export interface TaskInputRequest {
  method: string;
  params?: Params;
}

/** A task with what its status carries (2026-07-28 `DetailedTask`; 2025-11-25 tasks carry none of it). */
export interface TaskDetails extends TaskInfo {
  /** `input_required`: the questions still unanswered, by key. */
  inputRequests?: Record<string, TaskInputRequest>;
  /** `completed`: the result of the request (a `CallToolResult` for a tool call). */
  result?: JsonObject;
  /** `failed`: the JSON-RPC error the request ended with. */
  error?: JsonRpcErrorObject;
}

/** Whether the client declared the tasks extension on this (2026-07-28) request. */
export const declaresTasks = (capabilities: ClientCapabilities): boolean =>
  typeof capabilities.extensions?.[TASKS_EXTENSION] === 'object';

/** -32021: the client must declare the extension for `what`. */
export function missingTasksExtension(what: string): ProtocolError {
  return new ProtocolError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the tasks extension: declare _meta["${META.clientCapabilities}"].extensions["${TASKS_EXTENSION}"] on the request (a Switchboard client: new Client(info, { tasks: true })).`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/**
 * -32602 for a task the caller cannot reach: it does not exist, expired or is another caller's
 * (never said which: the answer tells nothing of other callers' tasks).
 */
export function taskNotFound(taskId: string): ProtocolError {
  return invalidParams(
    `Task not found: ${JSON.stringify(taskId)}. It may have expired (a task lives ttlMs after its creation), or belong to another caller.`,
  );
}

// --- encoding ----------------------------------------------------------------------------------------

/** 2026-07-28: the task as `tasks/get`, the creation result and `notifications/tasks` carry it. */
export function encodeModernTask(task: TaskDetails): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) wire.pollIntervalMs = task.pollIntervalMs;
  // Each status inlines exactly its own payload.
  if (task.status === 'input_required') wire.inputRequests = task.inputRequests ?? {};
  if (task.status === 'completed') wire.result = task.result ?? {};
  if (task.status === 'failed' && task.error) wire.error = task.error;
  return wire;
}

/** 2025-11-25: the task (`Task`), without its outcome: that is `tasks/result`'s. */
export function encodeLegacyTask(task: TaskInfo): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) wire.pollInterval = task.pollIntervalMs;
  return wire;
}

/** `_meta` of a message about a 2025-11-25 task (`io.modelcontextprotocol/related-task`). */
export function withRelatedTask(params: Params | undefined, taskId: string): Params {
  return { ...params, _meta: { ...(params?._meta as Params | undefined), [META.relatedTask]: { taskId } } };
}

/** The task a 2025-11-25 message says it belongs to, if any. */
export function relatedTaskOf(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const related = meta?.[META.relatedTask] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === 'string' ? related.taskId : undefined;
}

// --- decoding ----------------------------------------------------------------------------------------

const isMs = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * A task a server sent, in either wire form (`legacy`: 2025-11-25 names). Throws `INVALID_RESULT`
 * naming what is wrong, so a broken server never yields a half-read task.
 */
export function decodeTask(value: unknown, legacy: boolean, where: string): TaskDetails {
  const bad = (problem: string) =>
    new SwitchboardError('INVALID_RESULT', `The server sent a task in ${where} that ${problem}.`);
  if (!isPlainObject(value)) throw bad('is not an object');
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = value;
  if (typeof taskId !== 'string' || taskId === '') throw bad('has no string "taskId"');
  if (!(TASK_STATUSES as readonly unknown[]).includes(status)) {
    throw bad(`has status ${JSON.stringify(status)} (expected one of ${TASK_STATUSES.join(', ')})`);
  }
  if (typeof createdAt !== 'string' || typeof lastUpdatedAt !== 'string') {
    throw bad('lacks the string timestamps "createdAt" and "lastUpdatedAt"');
  }
  const ttl = legacy ? value.ttl : value.ttlMs;
  if (ttl !== null && !isMs(ttl)) throw bad(`has no "${legacy ? 'ttl' : 'ttlMs'}" (milliseconds or null)`);
  const poll = legacy ? value.pollInterval : value.pollIntervalMs;
  if (poll !== undefined && !isMs(poll))
    throw bad('has a poll interval that is not a number of milliseconds');
  const task: TaskDetails = { taskId, status: status as TaskStatus, createdAt, lastUpdatedAt, ttlMs: ttl };
  if (typeof statusMessage === 'string') task.statusMessage = statusMessage;
  if (poll !== undefined) task.pollIntervalMs = poll;
  if (legacy) return task;
  if (task.status === 'input_required') {
    if (!isPlainObject(value.inputRequests)) throw bad('is input_required without "inputRequests"');
    task.inputRequests = value.inputRequests as Record<string, TaskInputRequest>;
  }
  if (task.status === 'completed') {
    if (!isPlainObject(value.result)) throw bad('is completed without a "result" object');
    task.result = value.result;
  }
  if (task.status === 'failed') {
    const error = value.error;
    if (!isPlainObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      throw bad('is failed without a JSON-RPC "error" ({ code, message })');
    }
    task.error = error as unknown as JsonRpcErrorObject;
  }
  return task;
}

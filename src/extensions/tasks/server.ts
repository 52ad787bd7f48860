/**
 * Tasks on the server, both of their forms:
 * - 2026-07-28, the `io.modelcontextprotocol/tasks` extension: the server decides per `tools/call`
 *   (from the tool's `execution.taskSupport`) to answer `resultType: "task"`, only to a client that
 *   declared the extension on that request; `tasks/get`, `tasks/update` (answers to the task's
 *   input requests), `tasks/cancel`; `notifications/tasks` to `subscriptions/listen` streams that
 *   named the task (`notifications.taskIds`).
 * - 2025-11-25, experimental: the client asks with `params.task`; `tasks/get`, `tasks/result`
 *   (waits for the end, then answers what the call would have), `tasks/list`, `tasks/cancel`, and
 *   `notifications/tasks/status` on the connection that created the task.
 *
 * The handler runs once, in the background, with its own context: `ctx.signal` aborts on
 * cancellation or expiry, and `ctx.elicit` (and its siblings) wait for the client's answer. A task is
 * stored before its id goes out, and everything about it goes through the {@link TaskStore}.
 */
import { encodeCallToolResult } from '../../protocol/codec.js';
import {
  ErrorCode,
  invalidParams,
  methodNotFound,
  ProtocolError,
  SwitchboardError,
  toErrorObject,
} from '../../protocol/errors.js';
import { type InputMethod, inputResultProblem } from '../../protocol/input-requests.js';
import type { Params } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import { featuresOf } from '../../protocol/revisions.js';
import type { CallToolResult, JsonObject, ServerCapabilities } from '../../protocol/types.js';
import type { TaskHandoff } from '../../server/context.js';
import { type ContextServices, RequestContext } from '../../server/context.js';
import { DEFAULT_INPUT_TIMEOUT_MS, LinkInput } from '../../server/input.js';
import { callerDigest } from '../../server/mrtr.js';
import type { ListenTopic, NotificationHub } from '../../server/notifications.js';
import { digest } from '../../server/request-state.js';
import { callTool, completeInline, type ToolEntry } from '../../server/tools.js';
import { asError, isPlainObject } from '../../util/guards.js';
import { MemoryTaskStore } from './memory-store.js';
import { LegacyTaskInput, ModernTaskInput, RunningTask, TaskLink, type TaskRuntime } from './running.js';
import { type TaskPatch, type TaskRecord, type TaskStore, taskDetails } from './store.js';
import {
  declaresTasks,
  encodeLegacyTask,
  encodeModernTask,
  isTerminalStatus,
  LEGACY_TASK_STATUS_NOTIFICATION,
  missingTasksExtension,
  TASK_NOTIFICATION,
  TASKS_EXTENSION,
  taskNotFound,
} from './types.js';

export interface TaskServerOptions {
  /** Where tasks live. Default: a {@link MemoryTaskStore} (this process, at most 10 000 tasks). */
  store?: TaskStore;
  /** How long a task lives after its creation, in ms; null for unlimited (the store still bounds it). Default 1 hour. */
  ttlMs?: number | null;
  /** The longest lifetime a 2025-11-25 client may ask for with `params.task.ttl`; null for no cap. Default 24 hours. */
  maxTtlMs?: number | null;
  /** The poll interval suggested to clients, in ms. Default 1000. */
  pollIntervalMs?: number;
}

/** What the tasks service needs from its Server. */
export interface TaskHost {
  readonly notifications: NotificationHub;
  readonly services: ContextServices;
  /** Tasks per `tasks/list` page. */
  readonly pageSize: number;
  reportError(error: Error): void;
}

const DEFAULT_TTL_MS = 60 * 60_000;
const DEFAULT_MAX_TTL_MS = 24 * 60 * 60_000;
const DEFAULT_POLL_INTERVAL_MS = 1000;
/** Task ids one listen stream may follow. */
const MAX_LISTEN_TASKS = 1000;
/** setTimeout's ceiling: a longer lifetime is enforced by the store alone. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const cancelled = (taskId: string) => new SwitchboardError('TASK_CANCELLED', `Task ${taskId} was cancelled.`);

export class ServerTasks implements TaskRuntime {
  readonly store: TaskStore;
  private readonly ttlMs: number | null;
  private readonly maxTtlMs: number | null;
  private readonly pollIntervalMs: number;
  /** Tasks whose handler runs in this process. */
  private readonly running = new Map<string, RunningTask>();
  /** Waits on a task's changes (see `until`), by task id. */
  private readonly watchers = new Map<string, Set<(record: TaskRecord | undefined) => void>>();

  constructor(
    private readonly host: TaskHost,
    options: TaskServerOptions = {},
  ) {
    this.ttlMs = checkMs(options.ttlMs, DEFAULT_TTL_MS, 'ttlMs', true);
    this.maxTtlMs = checkMs(options.maxTtlMs, DEFAULT_MAX_TTL_MS, 'maxTtlMs', true);
    this.pollIntervalMs = checkMs(options.pollIntervalMs, DEFAULT_POLL_INTERVAL_MS, 'pollIntervalMs', false)!;
    this.store = options.store ?? new MemoryTaskStore();
    this.store.subscribe((taskId, record) => {
      try {
        this.changed(taskId, record);
      } catch (error) {
        this.report(asError(error));
      }
    });
    host.notifications.addTopic(this.listenTopic());
  }

  /** Adds what this server offers: the 2026-07-28 extension and the 2025-11-25 `tasks` capability. */
  advertise(capabilities: ServerCapabilities): void {
    capabilities.extensions = { [TASKS_EXTENSION]: {}, ...capabilities.extensions };
    capabilities.tasks ??= { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }

  report(error: Error): void {
    this.host.reportError(error);
  }

  // --- tools/call ----------------------------------------------------------------------------------

  /**
   * Decides whether this `tools/call` runs as a task. If so, stores the task, starts the handler in
   * the background and returns the creation result; returns undefined to run the call inline.
   *
   * - 2026-07-28: `optional` and `required` tools run as tasks for a client that declared the
   *   extension on the request; without it, `optional` runs inline and `required` fails with -32021.
   * - 2025-11-25: the client asks with `params.task`; a `forbidden` tool refuses it and a
   *   `required` one refuses to run without it (-32601, as the specification says).
   * - Older revisions know no tasks: every tool runs inline.
   */
  async start(entry: ToolEntry, params: Params, ctx: RequestContext): Promise<JsonObject | undefined> {
    const { name } = entry.descriptor;
    const support = entry.descriptor.execution?.taskSupport ?? 'forbidden';
    const f = featuresOf(ctx.revision);
    let requestedTtl: number | undefined;
    if (f.modern) {
      if (support === 'forbidden') return undefined;
      if (!declaresTasks(ctx.client.capabilities)) {
        if (support === 'optional') return undefined;
        throw missingTasksExtension(`Tool "${name}" runs only as a task, so calling it`);
      }
      // It starts inline, and becomes a task when its handler hands off (see handOff).
      if (entry.deferTask) return undefined;
    } else if (ctx.revision === '2025-11-25') {
      const task = params.task;
      if (task === undefined) {
        if (support !== 'required') return undefined;
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          `Tool "${name}" must be called as a task (its execution.taskSupport is "required"): add "task": {} to the tools/call params.`,
        );
      }
      if (support === 'forbidden') {
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          `Tool "${name}" cannot run as a task (its execution.taskSupport is "forbidden"): call it without "task".`,
        );
      }
      requestedTtl = taskTtl(task);
    } else {
      return undefined;
    }
    const args = params.arguments as Record<string, unknown> | undefined;
    return this.create(entry, ctx, requestedTtl, async (taskCtx) =>
      completeInline(entry, await callTool(entry, args, taskCtx), taskCtx),
    );
  }

  /**
   * A tool registered with `deferTask` returned `ctx.continueAsTask(work)` from an inline run: on
   * 2026-07-28, for a client that declared the extension, the call becomes a task now (`work` runs
   * as it) and this is its creation result; undefined where the call cannot become a task (the
   * caller then runs `work` inline).
   */
  async handOff(
    entry: ToolEntry,
    handoff: TaskHandoff,
    ctx: RequestContext,
  ): Promise<JsonObject | undefined> {
    const support = entry.descriptor.execution?.taskSupport ?? 'forbidden';
    if (
      !featuresOf(ctx.revision).modern ||
      support === 'forbidden' ||
      !declaresTasks(ctx.client.capabilities)
    ) {
      return undefined;
    }
    return this.create(entry, ctx, undefined, (taskCtx) => completeInline(entry, handoff, taskCtx));
  }

  /** Stores a new task, starts `body` as its handler, and returns the creation result. */
  private async create(
    entry: ToolEntry,
    ctx: RequestContext,
    requestedTtl: number | undefined,
    body: (taskCtx: RequestContext) => Promise<CallToolResult>,
  ): Promise<JsonObject> {
    const record = await this.store.create({
      taskId: crypto.randomUUID(),
      owner: await this.ownerOf(ctx),
      revision: ctx.revision,
      method: 'tools/call',
      name: entry.descriptor.name,
      ttlMs: this.lifetime(requestedTtl),
      pollIntervalMs: this.pollIntervalMs,
    });
    // Stored (create resolved): only now may its id go out.
    this.run(record, body, ctx);
    const details = taskDetails(record);
    return featuresOf(ctx.revision).modern
      ? { resultType: 'task', ...encodeModernTask(details) }
      : { task: encodeLegacyTask(details) };
  }

  /** The server's `ttlMs`, or what a 2025-11-25 client asked for, capped by `maxTtlMs`. */
  private lifetime(requested: number | undefined): number | null {
    if (requested === undefined) return this.ttlMs;
    return this.maxTtlMs === null ? requested : Math.min(requested, this.maxTtlMs);
  }

  /** Runs the handler of a stored task to its end; never rejects. */
  private run(
    record: TaskRecord,
    body: (taskCtx: RequestContext) => Promise<CallToolResult>,
    ctx: RequestContext,
  ): void {
    const f = featuresOf(ctx.revision);
    const { taskId } = record;
    const task = new RunningTask(taskId, !f.modern, ctx.link);
    this.running.set(taskId, task);
    const link = new TaskLink(task, this);
    const { services } = this.host;
    const input = task.legacy
      ? new LegacyTaskInput(
          task,
          this,
          new LinkInput(link, {
            features: f,
            capabilities: ctx.client.capabilities,
            signal: link.signal,
            timeoutMs: services.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS,
            urlElicitations: services.urlElicitations,
          }),
        )
      : new ModernTaskInput(task, this, f, ctx.client.capabilities);
    const taskCtx = new RequestContext(
      'tools/call',
      ctx.requestId,
      ctx.revision,
      ctx.client,
      ctx.meta,
      link,
      {
        input,
        services,
      },
    );
    const timer =
      record.ttlMs !== null && record.ttlMs <= MAX_TIMER_MS
        ? setTimeout(() => this.expire(task), record.ttlMs)
        : undefined;
    void (async () => {
      // The handler starts once the creation result is on its way, so whatever the task sends
      // (2025-11-25 input requests, progress) reaches the client after the task's id.
      await ctx.link.settled;
      let patch: TaskPatch;
      try {
        // Cancelled (or expired) before it even started: the handler never runs.
        if (task.abort.signal.aborted) throw task.abort.signal.reason;
        const result = await body(taskCtx);
        // 2025-11-25 counts a tool error as a failed task; the extension keeps it a completed one.
        const status = task.legacy && result.isError ? 'failed' : 'completed';
        patch = { op: 'finish', status, result: encodeCallToolResult(result, f) as unknown as JsonObject };
      } catch (error) {
        const failure = toErrorObject(error);
        patch = { op: 'finish', status: 'failed', error: failure, statusMessage: failure.message };
      }
      task.done = true;
      clearTimeout(timer);
      try {
        // Not applied when the task was cancelled meanwhile: it stays cancelled.
        await this.store.update(taskId, patch);
      } catch (error) {
        this.report(asError(error));
      } finally {
        if (this.running.get(taskId) === task) this.running.delete(taskId);
      }
    })();
  }

  /** The task outlived its ttlMs: stop its handler and forget it. */
  private expire(task: RunningTask): void {
    task.abort.abort(
      new SwitchboardError('TIMEOUT', `Task ${task.taskId} expired (its ttlMs passed) before it finished.`),
    );
    this.running.delete(task.taskId);
    this.store.delete(task.taskId).catch((error: unknown) => this.report(asError(error)));
  }

  /**
   * A legacy connection closed: its 2025-11-25 tasks are bound to its session, so no client can
   * ever reach them again. Their handlers are aborted and their records dropped, rather than left
   * working until their TTL.
   */
  sessionClosed(sessionId: string): void {
    for (const task of [...this.running.values()]) {
      if (!task.legacy || task.origin.legacy?.session.id !== sessionId) continue;
      task.abort.abort(
        new SwitchboardError('CONNECTION_CLOSED', `Task ${task.taskId}: the session that created it closed.`),
      );
      this.running.delete(task.taskId);
      this.store.delete(task.taskId).catch((error: unknown) => this.report(asError(error)));
    }
  }

  /**
   * The server shuts down: the tasks running here cannot finish, so they fail (-32603, which their
   * clients see on their next poll or notification) and their handlers are aborted.
   */
  async close(): Promise<void> {
    const error = {
      code: ErrorCode.InternalError,
      message: 'The server shut down before the task finished; call the tool again.',
    };
    await Promise.all(
      [...this.running.values()].map(async (task) => {
        try {
          await this.store.update(task.taskId, {
            op: 'finish',
            status: 'failed',
            error,
            statusMessage: error.message,
          });
        } catch (failure) {
          this.report(asError(failure));
        }
        task.abort.abort(new SwitchboardError('CONNECTION_CLOSED', error.message));
      }),
    );
  }

  // --- tasks/* ---------------------------------------------------------------------------------------

  /** Serves `tasks/get`, `tasks/update`, `tasks/cancel` (both eras), `tasks/result` and `tasks/list` (2025-11-25). */
  async handle(method: string, params: Params, ctx: RequestContext): Promise<unknown> {
    const modern = featuresOf(ctx.revision).modern;
    if (modern && !declaresTasks(ctx.client.capabilities)) throw missingTasksExtension(`'${method}'`);
    if (method === 'tasks/list') return this.list(params, ctx);
    const record = await this.visible(params.taskId as string, ctx);
    switch (method) {
      case 'tasks/get':
        return modern ? encodeModernTask(taskDetails(record)) : encodeLegacyTask(taskDetails(record));
      case 'tasks/update':
        return this.update(record, params.inputResponses as Record<string, unknown>);
      case 'tasks/cancel':
        return this.cancel(record, modern);
      case 'tasks/result':
        return this.result(record, ctx);
      default:
        throw methodNotFound(method);
    }
  }

  /** The task if it exists and the caller may see it; otherwise -32602 (never "it is someone else's"). */
  private async visible(taskId: string, ctx: RequestContext): Promise<TaskRecord> {
    const record = await this.store.get(taskId);
    if (!record || record.owner !== (await this.ownerOf(ctx))) throw taskNotFound(taskId);
    return record;
  }

  /**
   * Who a task belongs to: on 2026-07-28 the caller's verified credentials (none: whoever knows the
   * id); on 2025-11-25 also the session, so `tasks/list` shows a client only its own tasks.
   */
  private async ownerOf(ctx: RequestContext): Promise<string | null> {
    const caller = await callerDigest(ctx.auth);
    if (featuresOf(ctx.revision).modern) return caller;
    return digest(`session\n${ctx.link.legacy?.session.id ?? ''}\n${caller ?? ''}`);
  }

  /** 2026-07-28 `tasks/update`: answers for the task's outstanding questions (others are ignored). */
  private async update(record: TaskRecord, responses: Record<string, unknown>): Promise<Params> {
    const accepted: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(responses)) {
      const asked = record.inputRequests[key];
      if (!asked) continue;
      const problem = inputResultProblem(asked.method as InputMethod, value);
      if (problem) {
        throw invalidParams(
          `inputResponses[${JSON.stringify(key)}] is not a valid ${asked.method} result: ${problem}.`,
        );
      }
      accepted[key] = value;
    }
    if (Object.keys(accepted).length > 0) {
      await this.store.update(record.taskId, { op: 'answer', responses: accepted });
    }
    return {};
  }

  /**
   * 2026-07-28: an acknowledgement, whatever the task's state. 2025-11-25: the cancelled task, and
   * -32602 for a task that already ended (both as their specifications say).
   */
  private async cancel(record: TaskRecord, modern: boolean): Promise<Params> {
    const { record: after, applied } = await this.store.update(record.taskId, {
      op: 'cancel',
      statusMessage: "Cancelled at the client's request.",
    });
    if (modern) return {};
    if (!after) throw taskNotFound(record.taskId);
    if (!applied) {
      throw invalidParams(
        `Cannot cancel task ${record.taskId}: it already ended with status "${after.status}".`,
      );
    }
    return encodeLegacyTask(taskDetails(after));
  }

  /** 2025-11-25 `tasks/result`: waits for the end, then answers exactly what the call would have. */
  private async result(record: TaskRecord, ctx: RequestContext): Promise<unknown> {
    const { taskId } = record;
    let final = record;
    if (!isTerminalStatus(record.status)) {
      // While this request is open, the task's input requests go out on it.
      const task = this.running.get(taskId);
      task?.openResult(ctx.link);
      try {
        final = await this.until(taskId, ctx.signal, (current) => {
          if (!current) throw taskNotFound(taskId);
          return isTerminalStatus(current.status) ? current : undefined;
        });
      } finally {
        task?.closeResult(ctx.link);
      }
    }
    if (final.status === 'cancelled') throw invalidParams(`Task ${taskId} was cancelled; it has no result.`);
    if (final.error) throw ProtocolError.fromObject(final.error);
    const result = final.result ?? {};
    return { ...result, _meta: { ...(result._meta as Params | undefined), [META.relatedTask]: { taskId } } };
  }

  /** 2025-11-25 `tasks/list`: the caller's own tasks, a page at a time. */
  private async list(params: Params, ctx: RequestContext): Promise<Params> {
    const page = await this.store.list({
      owner: await this.ownerOf(ctx),
      cursor: params.cursor as string | undefined,
      limit: this.host.pageSize,
    });
    const result: Params = { tasks: page.tasks.map((r) => encodeLegacyTask(taskDetails(r))) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  }

  // --- changes -------------------------------------------------------------------------------------

  until<T>(
    taskId: string,
    signal: AbortSignal,
    test: (record: TaskRecord | undefined) => T | undefined,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let over = false;
      let watchers = this.watchers.get(taskId);
      if (!watchers) {
        watchers = new Set();
        this.watchers.set(taskId, watchers);
      }
      const set = watchers;
      const finish = (settle: () => void) => {
        if (over) return;
        over = true;
        set.delete(check);
        if (set.size === 0 && this.watchers.get(taskId) === set) this.watchers.delete(taskId);
        signal.removeEventListener('abort', onAbort);
        settle();
      };
      const check = (record: TaskRecord | undefined) => {
        if (over) return;
        let value: T | undefined;
        try {
          value = test(record);
        } catch (error) {
          finish(() => reject(error));
          return;
        }
        if (value !== undefined) finish(() => resolve(value));
      };
      const onAbort = () =>
        finish(() =>
          reject(
            signal.reason instanceof Error
              ? signal.reason
              : new SwitchboardError('ABORTED', `Stopped waiting for task ${taskId}.`),
          ),
        );
      if (signal.aborted) {
        onAbort();
        return;
      }
      set.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
      // After subscribing, so no change can fall between the read and the wait.
      this.store.get(taskId).then(check, (error: unknown) => finish(() => reject(error)));
    });
  }

  /** Every change to a task, from any node: waiters, the running handler, notifications. */
  private changed(taskId: string, record: TaskRecord | undefined): void {
    const watchers = this.watchers.get(taskId);
    if (watchers) for (const check of [...watchers]) check(record);
    const task = this.running.get(taskId);
    if (task) {
      if (!record || record.status === 'cancelled') task.abort.abort(cancelled(taskId));
      if (task.legacy && record && record.status !== task.lastStatus) {
        task.lastStatus = record.status;
        task.origin.legacy?.notifyConnection(
          LEGACY_TASK_STATUS_NOTIFICATION,
          encodeLegacyTask(taskDetails(record)),
        );
      }
      if (!record || isTerminalStatus(record.status)) this.running.delete(taskId);
    }
    if (record && this.host.notifications.listens > 0 && featuresOf(record.revision).modern) {
      this.host.notifications.publish(TASK_NOTIFICATION, encodeModernTask(taskDetails(record)));
    }
  }

  /** `subscriptions/listen` `notifications.taskIds`: the caller's own tasks among those named. */
  private listenTopic(): ListenTopic {
    return {
      field: 'taskIds',
      method: TASK_NOTIFICATION,
      agree: async (requested, _capabilities, ctx) => {
        if (requested === undefined) return undefined;
        if (!Array.isArray(requested) || requested.some((id) => typeof id !== 'string')) {
          throw invalidParams('notifications.taskIds must be an array of task ids (strings).');
        }
        if (requested.length === 0) return undefined;
        if (!declaresTasks(ctx.client.capabilities)) throw missingTasksExtension('notifications.taskIds');
        if (requested.length > MAX_LISTEN_TASKS) {
          throw invalidParams(
            `notifications.taskIds names ${requested.length} tasks; one listen stream may follow at most ${MAX_LISTEN_TASKS}.`,
          );
        }
        const owner = await this.ownerOf(ctx);
        const agreed: string[] = [];
        for (const taskId of new Set(requested as string[])) {
          const record = await this.store.get(taskId);
          if (record && record.owner === owner) agreed.push(taskId);
        }
        return agreed.length > 0 ? agreed : undefined;
      },
      select: (agreed) => {
        const ids = new Set(agreed as string[]);
        return (params) => ids.has(params?.taskId as string);
      },
    };
  }
}

/** 2025-11-25 `params.task`: an object with an optional `ttl` (ms). */
function taskTtl(task: unknown): number | undefined {
  if (!isPlainObject(task)) {
    throw invalidParams(
      'Invalid params for \'tools/call\': "task" must be an object such as { "ttl": 60000 }.',
    );
  }
  const ttl = (task as { ttl?: unknown }).ttl;
  if (ttl === undefined) return undefined;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0) {
    throw invalidParams('Invalid params for \'tools/call\': "task.ttl" must be a non-negative integer (ms).');
  }
  return ttl;
}

function checkMs(value: number | null | undefined, fallback: number, name: string, nullable: boolean) {
  if (value === undefined) return fallback;
  if (value === null && nullable) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new SwitchboardError(
      'CONFIG',
      `tasks.${name} must be a non-negative integer number of milliseconds${nullable ? ' or null (unlimited)' : ''}, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

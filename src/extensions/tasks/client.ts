/**
 * Tasks on the client: a {@link ClientTask} follows one task to its end in either form.
 * - 2026-07-28 (the extension): polls `tasks/get` at the server's `pollIntervalMs` (and, when asked,
 *   follows `notifications/tasks` on a `subscriptions/listen` stream); answers the task's
 *   `inputRequests` with the client's input handlers and sends them with `tasks/update` (each key
 *   once); the outcome is inlined in the task.
 * - 2025-11-25: polls `tasks/get` (a `notifications/tasks/status` wakes it early); the outcome comes
 *   from `tasks/result`, which is also where the task's input requests arrive (as server→client
 *   requests the client's handlers answer), so `input_required` calls it at once.
 */
import type { CallOptions } from '../../client/client.js';
import type { InputContext } from '../../client/input-handlers.js';
import type { ListenHandlers, Subscription } from '../../client/subscriptions.js';
import { ProtocolError, SwitchboardError } from '../../protocol/errors.js';
import type { Params } from '../../protocol/jsonrpc.js';
import type { Revision } from '../../protocol/revisions.js';
import type { CallToolResult, SubscriptionFilter } from '../../protocol/types.js';
import {
  decodeTask,
  isTerminalStatus,
  LEGACY_TASK_STATUS_NOTIFICATION,
  TASK_NOTIFICATION,
  type TaskDetails,
  type TaskInfo,
  type TaskInputRequest,
} from './types.js';

/** Options of `client.callToolAsTask()`. */
export interface TaskCallOptions extends CallOptions {
  /** 2025-11-25: how long the server should keep the task, in ms (it may keep it shorter). 2026-07-28 servers decide alone. */
  ttlMs?: number;
}

/** Options of `task.result()`. */
export interface TaskWaitOptions {
  /** Stops waiting (the task keeps running: `cancel()` stops it). */
  signal?: AbortSignal;
  /** Timeout of each request made while waiting. 2025-11-25 `tasks/result` blocks until the end: default 10 minutes there. */
  timeoutMs?: number;
  /** 2026-07-28: also follow `notifications/tasks` on a `subscriptions/listen` stream, so changes arrive without waiting for the next poll. Default false. */
  notifications?: boolean;
  /** Hears each state the task is seen in. */
  onStatus?: (task: TaskInfo) => void;
  /** Poll interval when the server suggests none, in ms. Default 1000. */
  pollIntervalMs?: number;
}

/** What a task handle needs from its Client. */
export interface TaskClientHost {
  revision(): Revision;
  request(method: string, params: Params, options: CallOptions): Promise<Record<string, unknown>>;
  /** Answers a task's input requests with the registered input handlers. */
  fulfil(
    inputRequests: Record<string, TaskInputRequest>,
    ctx: InputContext,
  ): Promise<Record<string, unknown>>;
  listen(filter: SubscriptionFilter, handlers: ListenHandlers): Subscription;
  on(method: string, listener: (params: Params) => void): () => void;
  /** Checks a tool result (content, structured output) as `callTool` does. */
  checkToolResult(name: string | undefined, result: Record<string, unknown>): Promise<CallToolResult>;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;
const LEGACY_RESULT_TIMEOUT_MS = 10 * 60_000;
const NEVER_ABORTED = new AbortController().signal;

/** A tool call running as a task (or one the server answered at once). */
export class ClientTask {
  /** The task's id; undefined when the server answered the call at once instead of creating a task. */
  readonly taskId: string | undefined;
  private state: TaskDetails | undefined;
  private readonly immediate: Record<string, unknown> | undefined;
  /** 2026-07-28: input request keys already answered (the server may show them again until it catches up). */
  private readonly answered = new Set<string>();

  /** @internal Built by the Client (`callToolAsTask`, `task(id)`). */
  constructor(
    private readonly host: TaskClientHost,
    private readonly init: {
      readonly legacy: boolean;
      readonly taskId?: string;
      readonly task?: TaskDetails;
      /** The call's result, when the server answered at once. */
      readonly result?: Record<string, unknown>;
      /** The call, when known (input handlers see it). */
      readonly call?: { readonly name: string; readonly params: Params };
    },
  ) {
    this.taskId = init.task?.taskId ?? init.taskId;
    this.state = init.task;
    this.immediate = init.result;
  }

  /** The task as last seen (by the creation result, a poll or a notification). */
  get task(): TaskInfo | undefined {
    return this.state;
  }

  /** Asks the server for the task's state (`tasks/get`). */
  async refresh(options: CallOptions = {}): Promise<TaskDetails> {
    const taskId = this.requireId('refresh');
    const task = decodeTask(
      await this.host.request('tasks/get', { taskId }, options),
      this.init.legacy,
      'tasks/get',
    );
    this.state = task;
    return task;
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`; never `notifications/cancelled`). On
   * 2026-07-28 cancellation is cooperative: the task may still end otherwise. A call the server
   * answered at once has nothing to cancel.
   */
  async cancel(options: CallOptions = {}): Promise<void> {
    if (this.taskId === undefined) return;
    const answer = await this.host.request('tasks/cancel', { taskId: this.taskId }, options);
    if (this.init.legacy) this.state = decodeTask(answer, true, 'tasks/cancel');
  }

  /**
   * Follows the task to its end and returns the tool's result, as `callTool` would have: a tool
   * error is a result with `isError`, a JSON-RPC failure rejects with its `ProtocolError`, and a
   * cancelled task rejects with `TASK_CANCELLED`. Input the task needs is answered with the
   * client's input handlers on the way.
   */
  async result(options: TaskWaitOptions = {}): Promise<CallToolResult> {
    if (this.immediate) return this.host.checkToolResult(this.init.call?.name, this.immediate);
    const taskId = this.requireId('result');
    const { signal } = options;
    if (signal?.aborted) throw stopped(taskId);
    const wake = new Wake();
    const unfollow = this.follow(taskId, options, wake);
    const call: CallOptions = { signal, timeoutMs: options.timeoutMs };
    try {
      // What was seen before may be stale (input someone else answered): start from the server's view.
      let task = this.state && isTerminalStatus(this.state.status) ? this.state : await this.refresh(call);
      let seen = '';
      for (;;) {
        const moment = `${task.status}\n${task.lastUpdatedAt}\n${task.statusMessage ?? ''}`;
        if (moment !== seen) {
          seen = moment;
          options.onStatus?.(task);
        }
        if (isTerminalStatus(task.status)) return await this.outcome(task, options);
        if (task.status === 'input_required') {
          // 2025-11-25: the questions arrive on tasks/result, which then waits for the end.
          if (this.init.legacy) return await this.legacyOutcome(taskId, options);
          await this.answer(taskId, task, signal);
        }
        const pushed = await wake.wait(
          task.pollIntervalMs ?? options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
          signal,
          taskId,
        );
        // A notification is the whole task; one older than what we saw is ignored.
        if (pushed && pushed.lastUpdatedAt >= task.lastUpdatedAt) {
          this.state = pushed;
          task = pushed;
        } else {
          task = await this.refresh(call);
        }
      }
    } finally {
      unfollow();
    }
  }

  private requireId(what: string): string {
    if (this.taskId === undefined) {
      throw new SwitchboardError(
        'CONFIG',
        `task.${what}(): the server answered this call at once, without a task; read result() instead.`,
      );
    }
    return this.taskId;
  }

  /** Status notifications that wake the poll loop early. Returns the function that stops them. */
  private follow(taskId: string, options: TaskWaitOptions, wake: Wake): () => void {
    const hear = (params: Params, legacy: boolean) => {
      if (params.taskId !== taskId) return;
      try {
        wake.push(decodeTask(params, legacy, 'a status notification'));
      } catch {
        // A malformed notification is only a missed shortcut: the next poll reads the task.
      }
    };
    if (this.init.legacy)
      return this.host.on(LEGACY_TASK_STATUS_NOTIFICATION, (params) => hear(params, true));
    if (!options.notifications) return () => undefined;
    const subscription = this.host.listen({ taskIds: [taskId] } as SubscriptionFilter, {
      onNotification: (method, params) => {
        if (method === TASK_NOTIFICATION) hear(params, false);
      },
    });
    return () => {
      subscription.close().catch(() => undefined);
    };
  }

  /** 2026-07-28: answers the questions not answered yet, with one `tasks/update`. */
  private async answer(taskId: string, task: TaskDetails, signal: AbortSignal | undefined): Promise<void> {
    const fresh: Record<string, TaskInputRequest> = {};
    for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
      if (!this.answered.has(key)) fresh[key] = request;
    }
    if (Object.keys(fresh).length === 0) return;
    const ctx: InputContext = {
      signal: signal ?? NEVER_ABORTED,
      revision: this.host.revision(),
      era: 'modern',
      taskId,
      ...(this.init.call ? { request: { method: 'tools/call', params: this.init.call.params } } : {}),
    };
    // Marked before answering, so a second result() running alongside never asks the user twice.
    const keys = Object.keys(fresh);
    for (const key of keys) this.answered.add(key);
    try {
      const inputResponses = await this.host.fulfil(fresh, ctx);
      await this.host.request('tasks/update', { taskId, inputResponses }, { signal });
    } catch (error) {
      for (const key of keys) this.answered.delete(key);
      throw error;
    }
  }

  private async outcome(task: TaskDetails, options: TaskWaitOptions): Promise<CallToolResult> {
    if (task.status === 'cancelled') throw cancelled(task);
    if (this.init.legacy) return this.legacyOutcome(task.taskId, options);
    if (task.status === 'failed') throw ProtocolError.fromObject(task.error!);
    return this.host.checkToolResult(this.init.call?.name, task.result!);
  }

  /** 2025-11-25: `tasks/result` answers what the call would have (a result, or its JSON-RPC error). */
  private async legacyOutcome(taskId: string, options: TaskWaitOptions): Promise<CallToolResult> {
    let result: Record<string, unknown>;
    try {
      result = await this.host.request(
        'tasks/result',
        { taskId },
        { signal: options.signal, timeoutMs: options.timeoutMs ?? LEGACY_RESULT_TIMEOUT_MS },
      );
    } catch (error) {
      if (error instanceof ProtocolError) {
        // Cancelled meanwhile: say so, rather than the server's "no result".
        const now = await this.refresh({ signal: options.signal }).catch(() => undefined);
        if (now?.status === 'cancelled') throw cancelled(now);
      }
      throw error;
    }
    return this.host.checkToolResult(this.init.call?.name, result);
  }
}

const cancelled = (task: TaskInfo) =>
  new SwitchboardError(
    'TASK_CANCELLED',
    `Task ${task.taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}; it has no result.`,
  );

const stopped = (taskId: string) =>
  new SwitchboardError(
    'ABORTED',
    `Stopped waiting for task ${taskId}; it keeps running on the server (cancel() stops it).`,
  );

/** The poll loop's pause: the poll interval, cut short by a pushed task state. */
class Wake {
  private pending: TaskDetails | undefined;
  private wakeUp: ((task: TaskDetails) => void) | undefined;

  push(task: TaskDetails): void {
    if (this.wakeUp) this.wakeUp(task);
    else this.pending = task;
  }

  wait(ms: number, signal: AbortSignal | undefined, taskId: string): Promise<TaskDetails | undefined> {
    const pending = this.pending;
    if (pending) {
      this.pending = undefined;
      return Promise.resolve(pending);
    }
    return new Promise((resolve, reject) => {
      const done = (task: TaskDetails | undefined, error?: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wakeUp = undefined;
        if (error) reject(error);
        else resolve(task);
      };
      const onAbort = () => done(undefined, stopped(taskId));
      const timer = setTimeout(() => done(undefined), ms);
      this.wakeUp = (task) => done(task);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

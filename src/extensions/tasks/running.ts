/**
 * A task's handler at work in this process, and what its `RequestContext` talks through:
 * - {@link TaskLink}, the request link of a request that already answered (with the task): its
 *   signal is the task's, and what it sends goes where the task's era says;
 * - {@link ModernTaskInput} (2026-07-28): `ctx.elicit` records the question in the task
 *   (`input_required`, shown by `tasks/get` and `notifications/tasks`) and waits for the client's
 *   `tasks/update` — the handler keeps running, nothing is replayed;
 * - {@link LegacyTaskInput} (2025-11-25): a real server→client request tagged with the task
 *   (`io.modelcontextprotocol/related-task`), while the task shows `input_required`.
 */

import type { InboundExtra } from '../../engine/channel.js';
import { SwitchboardError } from '../../protocol/errors.js';
import { encodeInputParams, type InputMethod } from '../../protocol/input-requests.js';
import type { Params } from '../../protocol/jsonrpc.js';
import type { RevisionFeatures } from '../../protocol/revisions.js';
import type { ClientCapabilities } from '../../protocol/types.js';
import {
  capabilityError,
  DEFAULT_INPUT_TIMEOUT_MS,
  type InputCallOptions,
  type InputSource,
  type LinkInput,
} from '../../server/input.js';
import type { LegacyLink, LegacySession, RequestLink } from '../../server/link.js';
import { asError } from '../../util/guards.js';
import type { TaskRecord, TaskStore } from './store.js';
import { isTerminalStatus, type TaskStatus, withRelatedTask } from './types.js';

/** What a running task needs from the tasks service. */
export interface TaskRuntime {
  readonly store: TaskStore;
  /**
   * Resolves with what `test` returns for the task's record once that is defined (checked now and
   * after every change); rejects when `test` throws or `signal` aborts.
   */
  until<T>(
    taskId: string,
    signal: AbortSignal,
    test: (record: TaskRecord | undefined) => T | undefined,
  ): Promise<T>;
  report(error: Error): void;
}

/** One task whose handler runs here. */
export class RunningTask {
  /** Aborted when the task is cancelled, expires or is deleted: the handler's `ctx.signal`. */
  readonly abort = new AbortController();
  /** 2025-11-25: open `tasks/result` requests for this task; its input requests go out on one. */
  private readonly resultLinks = new Set<RequestLink>();
  /** Input requests waiting for a `tasks/result` to go out on. */
  private readonly resultWaiters = new Set<(link: RequestLink) => void>();
  /** The status last announced with `notifications/tasks/status` (2025-11-25). */
  lastStatus: TaskStatus = 'working';
  /** The handler settled. */
  done = false;

  constructor(
    readonly taskId: string,
    /** A 2025-11-25 task. */
    readonly legacy: boolean,
    /** The link of the `tools/call` that created the task. */
    readonly origin: RequestLink,
  ) {}

  /** A `tasks/result` of this task is open on `link` (until {@link closeResult}). */
  openResult(link: RequestLink): void {
    this.resultLinks.add(link);
    for (const waiter of [...this.resultWaiters]) waiter(link);
  }

  closeResult(link: RequestLink): void {
    this.resultLinks.delete(link);
  }

  /** An open `tasks/result` of this task that can still carry messages, if any. */
  resultLink(): RequestLink | undefined {
    for (const link of this.resultLinks) if (!link.finished) return link;
    return undefined;
  }

  /** The next `tasks/result` of this task to open; rejects when `signal` aborts or `timeoutMs` passes. */
  nextResult(signal: AbortSignal | undefined, timeoutMs: number, what: string): Promise<RequestLink> {
    return new Promise((resolve, reject) => {
      const finish = (settle: () => void) => {
        this.resultWaiters.delete(waiter);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        settle();
      };
      const waiter = (link: RequestLink) => finish(() => resolve(link));
      const onAbort = () =>
        finish(() =>
          reject(
            signal?.reason instanceof Error
              ? signal.reason
              : new SwitchboardError('ABORTED', `Task ${this.taskId} stopped waiting to send ${what}.`),
          ),
        );
      // An infinite timeout waits as long as the task lives (setTimeout cannot count that far).
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () =>
              finish(() =>
                reject(
                  new SwitchboardError(
                    'TIMEOUT',
                    `Task ${this.taskId} waited ${timeoutMs} ms to send ${what}: the client opened no GET stream and called no tasks/result for the task (a 2025-11-25 client calls tasks/result when a task is input_required).`,
                  ),
                ),
              ),
            Math.min(timeoutMs, MAX_TIMER_MS),
          )
        : undefined;
      this.resultWaiters.add(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** setTimeout's ceiling. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const gone = (taskId: string) =>
  new SwitchboardError(
    'ABORTED',
    `Task ${taskId} ended (cancelled, expired or deleted) while its handler waited for input.`,
  );

/** The link a task's handler sends through, long after its `tools/call` was answered. */
export class TaskLink implements RequestLink, LegacyLink {
  constructor(
    private readonly task: RunningTask,
    private readonly runtime: TaskRuntime,
  ) {}

  /**
   * 2025-11-25: progress and log messages go on the connection, tagged with the task (the request's
   * progress token stays valid for the task's life). 2026-07-28 tasks carry no progress or log
   * notifications; a progress message becomes the task's `statusMessage` instead.
   */
  notify(method: string, params: Params): void {
    if (this.finished) return;
    if (this.task.legacy) {
      this.task.origin.legacy?.notifyConnection(method, withRelatedTask(params, this.task.taskId));
    } else if (method === 'notifications/progress' && typeof params.message === 'string') {
      this.runtime.store
        .update(this.task.taskId, { op: 'message', statusMessage: params.message })
        .catch((error: unknown) => this.runtime.report(asError(error)));
    }
  }

  get finished(): boolean {
    return this.task.done || this.task.abort.signal.aborted;
  }
  get signal(): AbortSignal {
    return this.task.abort.signal;
  }
  get extra(): InboundExtra | undefined {
    return this.task.origin.extra;
  }
  /** 2025-11-25 tasks live in the session that created them; they reach the client through it. */
  get legacy(): LegacyLink | undefined {
    return this.task.origin.legacy ? this : undefined;
  }
  get session(): LegacySession {
    return (this.task.origin.legacy as LegacyLink).session;
  }

  /**
   * 2025-11-25: a server→client request on behalf of the task, on an open `tasks/result` of the
   * task when there is one (over HTTP that request's stream reaches the client), else on the
   * connection that created the task — unless nothing sent there reaches the client now (an HTTP
   * session without a GET stream): then it waits for the `tasks/result` the task's `input_required`
   * status calls for, within the request's timeout.
   */
  async request(
    method: string,
    params: Params | undefined,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Record<string, unknown>> {
    const { origin } = this.task;
    let via = this.task.resultLink() ?? origin;
    let timeoutMs = options.timeoutMs;
    if (via === origin && origin.legacy?.canPush?.() === false) {
      const started = Date.now();
      via = await this.task.nextResult(options.signal, timeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS, method);
      if (timeoutMs !== undefined) timeoutMs = Math.max(1, timeoutMs - (Date.now() - started));
    }
    const legacy = via.legacy;
    if (!legacy) {
      throw new SwitchboardError(
        'CONFIG',
        `This connection cannot send ${method} to the client: its transport does not carry server-to-client requests.`,
      );
    }
    return legacy.request(method, withRelatedTask(params, this.task.taskId), { ...options, timeoutMs });
  }

  notifyConnection(method: string, params: Params): boolean {
    return this.task.origin.legacy?.notifyConnection(method, params) ?? false;
  }
}

/** 2026-07-28: input for a task's handler comes through `tasks/update`. */
export class ModernTaskInput implements InputSource {
  /** Keys are never reused within a task: one counter per handler run, and a task runs once. */
  private next = 0;

  constructor(
    private readonly task: RunningTask,
    private readonly runtime: TaskRuntime,
    private readonly f: RevisionFeatures,
    private readonly capabilities: ClientCapabilities,
  ) {}

  async ask(
    method: InputMethod,
    params: Params | undefined,
    options: InputCallOptions,
  ): Promise<Record<string, unknown>> {
    const refused = capabilityError(method, params, this.capabilities, this.f);
    if (refused) throw refused;
    const wire = encodeInputParams(method, params, this.f);
    const key = String(this.next++);
    const { taskId } = this.task;
    const asked = await this.runtime.store.update(taskId, {
      op: 'ask',
      key,
      request: wire === undefined ? { method } : { method, params: wire },
    });
    if (!asked.applied) throw gone(taskId);
    const signal = options.signal
      ? AbortSignal.any([this.task.abort.signal, options.signal])
      : this.task.abort.signal;
    try {
      return await this.runtime.until(taskId, signal, (record) => {
        if (!record || isTerminalStatus(record.status)) throw gone(taskId);
        return Object.hasOwn(record.inputResponses, key)
          ? (record.inputResponses[key] as Record<string, unknown>)
          : undefined;
      });
    } finally {
      // Taken (or abandoned): the question leaves the task, and with the last one input_required.
      await this.runtime.store
        .update(taskId, { op: 'settle', key })
        .catch((error: unknown) => this.runtime.report(asError(error)));
    }
  }

  /** An answer that breaks the form fails the handler's call, like a legacy client's bad answer. */
  invalidAnswer(message: string): Error {
    return new SwitchboardError('INVALID_RESULT', message);
  }
}

/** 2025-11-25: input is a server→client request; the task shows `input_required` meanwhile. */
export class LegacyTaskInput implements InputSource {
  private next = 0;

  constructor(
    private readonly task: RunningTask,
    private readonly runtime: TaskRuntime,
    private readonly inner: LinkInput,
  ) {}

  async ask(
    method: InputMethod,
    params: Params | undefined,
    options: InputCallOptions,
  ): Promise<Record<string, unknown>> {
    const key = String(this.next++);
    const { taskId } = this.task;
    const asked = await this.runtime.store.update(taskId, { op: 'ask', key, request: { method } });
    if (!asked.applied) throw gone(taskId);
    try {
      return await this.inner.ask(method, params, options);
    } finally {
      await this.runtime.store
        .update(taskId, { op: 'settle', key })
        .catch((error: unknown) => this.runtime.report(asError(error)));
    }
  }

  invalidAnswer(message: string): Error {
    return this.inner.invalidAnswer(message);
  }
}

/**
 * A Peer is one end of a JSON-RPC conversation over a {@link Channel}: it numbers and correlates
 * outgoing requests, enforces their timeouts, sends cancellations, routes progress, and runs incoming
 * requests through a handler with a per-request AbortSignal. It is symmetric: the server and the
 * client both sit on a Peer. It knows JSON-RPC and the two MCP utilities that are about requests
 * themselves (`notifications/cancelled`, `notifications/progress`), nothing else.
 */
import { ErrorCode, ProtocolError, SwitchboardError, toErrorObject } from '../protocol/errors.js';
import {
  errorFrame,
  notificationFrame,
  requestFrame,
  resultFrame,
  type SerializedMeta,
} from '../protocol/frames.js';
import {
  checkSentDepth,
  exceedsDepth,
  sentMayBeTooDeep,
  tooDeepMessage,
  tooDeepToSerialize,
} from '../protocol/json-depth.js';
import {
  classify,
  isRequestId,
  type JsonRpcNotification,
  type Params,
  type RequestId,
} from '../protocol/jsonrpc.js';
import { type Deferred, deferred } from '../util/deferred.js';
import { asError, isPlainObject, isPromiseLike } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import type { Channel, ChannelSink, FrameInfo, InboundExtra } from './channel.js';
import { type Deadlined, DeadlineQueue } from './deadlines.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Something that can be cancelled, told to listeners without an `AbortSignal`: an inbound request
 * is one (a gateway forwards it and cancels the forwarded call with it). An `AbortController` and
 * its `EventTarget` listener per call cost a gateway a third of its per-call CPU.
 */
export interface Cancellable {
  /** Calls `listener` once when cancelled (soon, if already cancelled); returns the unsubscribe. */
  onCancel(listener: (reason: unknown) => void): () => void;
}

export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects the call with code `ABORTED`. */
  signal?: AbortSignal;
  /** Like `signal`, for a cancellation that is not an `AbortSignal` (see {@link Cancellable}). */
  cancelledBy?: Cancellable;
  /** Time without a response (or, by default, without progress) before the call fails with `TIMEOUT`. */
  timeoutMs?: number;
  /** Progress reported by the peer; asking for it adds a `progressToken` to the request. */
  onprogress?: (update: ProgressUpdate) => void;
  /** Whether a progress notification restarts the timeout. Default true. */
  resetTimeoutOnProgress?: boolean;
  /** Hard limit however much progress arrives. Default 10 minutes (or `timeoutMs` if larger). */
  maxTotalTimeoutMs?: number;
  /** Whether abort and timeout send `notifications/cancelled`. Default true (false for `initialize`). */
  sendCancellation?: boolean;
  /** The inbound request this one is made on behalf of (lets HTTP send it on that request's stream). */
  relatedTo?: RequestId;
  /**
   * Told the request's JSON-RPC id just before it is sent, for callers that must recognise later
   * messages naming it (a `subscriptions/listen` stream's `subscriptionId`).
   */
  onRequestId?: (id: RequestId) => void;
}

/** An incoming request as handlers see it. */
export interface InboundRequest {
  readonly id: RequestId;
  readonly method: string;
  readonly params: Params | undefined;
  readonly extra: InboundExtra | undefined;
  /** Aborted when the peer cancels the request or the connection closes. Created on first use. */
  readonly signal: AbortSignal;
  /** True once the peer cancelled the request or the connection closed: send nothing more for it. */
  readonly cancelled: boolean;
  /** Tells `listener` of the cancellation without creating `signal` (see {@link Cancellable}). */
  onCancel(listener: (reason: unknown) => void): () => void;
  /** True once the response was sent. */
  readonly done: boolean;
  /**
   * Settles once the request is over: its response was handed to the channel, or it was cancelled,
   * or the connection closed. Lets a server that ends a long-lived request wait for its last word.
   */
  readonly settled: Promise<void>;
}

export interface PeerHandlers {
  /** Answers a request: a result object, a `RawJson` (protocol/frames.ts), or a thrown error. */
  request(request: InboundRequest): unknown;
  /** Any notification except cancellations of our inbound requests and progress for our outbound ones. */
  notification(notification: JsonRpcNotification, extra: InboundExtra | undefined): void;
  /** Whether an inbound batch of `length` messages may be processed now; return a reason string to refuse it. */
  batch?(length: number): true | string;
  /** Problems that do not end the connection: malformed frames, failing notification handlers. */
  error?(error: Error): void;
  /** The channel closed; every pending call has been rejected. */
  closed?(error: Error | undefined): void;
  /** The channel renewed its session with the other side (see `ChannelSink.renewed`). */
  renewed?(): void;
}

export interface PeerOptions {
  /** Default timeout for outgoing requests. */
  timeoutMs?: number;
  /** The owner's logger, handed to the channel (see {@link ChannelSink.logger}). */
  logger?: Logger;
  /**
   * Bounds the peer's requests served at once: past `concurrent` they wait, in arrival order; past
   * `queued` waiting, they are refused at once with an error. A client sets it, so that a server
   * flooding it with requests (elicitations, say) cannot run its handlers thousands of times at once;
   * a server does not (its long-lived requests, listen streams among them, could block the rest).
   */
  inboundLimit?: { readonly concurrent: number; readonly queued: number };
  /** The id of the first request this peer sends (default 1; see `Channel.firstRequestId`). */
  firstRequestId?: number | undefined;
}

interface PendingCall extends Deadlined<PendingCall> {
  id: number;
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  /** Its own timer, when it is armed for less than its whole timeout (else it is in a queue). */
  timer: ReturnType<typeof setTimeout> | undefined;
  timeoutMs: number;
  startedAt: number;
  maxTotalMs: number;
  onprogress: ((update: ProgressUpdate) => void) | undefined;
  resetOnProgress: boolean;
  progressToken: RequestId | undefined;
  cleanup: (() => void) | undefined;
  sendCancellation: boolean;
}

/** Collects the responses of one inbound batch and sends them as one array. */
class BatchCollector {
  private readonly frames: string[] = [];
  /** The id of a request the batch answers, if any (see the `batch` FrameInfo). */
  private requestId: RequestId | undefined;
  constructor(
    private remaining: number,
    private readonly flush: (frame: string, info: FrameInfo) => void,
  ) {}
  add(frame: string | undefined, id?: RequestId | null): void {
    if (frame !== undefined) this.frames.push(frame);
    if (id !== undefined && id !== null) this.requestId ??= id;
    if (--this.remaining === 0 && this.frames.length > 0) {
      this.flush(
        `[${this.frames.join(',')}]`,
        this.requestId === undefined ? BATCH : { kind: 'batch', requestId: this.requestId },
      );
    }
  }
}

class Inbound implements InboundRequest {
  cancelled = false;
  done = false;
  /** Its handler was called (it may have waited for a turn first, see `inboundLimit`). */
  running = false;
  private controller: AbortController | undefined;
  /**
   * The first listener still registered, in a field of its own: a request has one (the upstream
   * call a gateway forwards it as) far more often than more, and an array per request (grown to 16
   * slots at its first push) and a splice to take it off were most of what a listener cost.
   */
  private cancelListener: ((reason: unknown) => void) | undefined;
  /** Listeners registered while {@link cancelListener} was taken, in order. */
  private cancelListeners: Array<(reason: unknown) => void> | undefined;
  private cancelReason: unknown;
  private whenSettled: Deferred | undefined;
  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly params: Params | undefined,
    readonly extra: InboundExtra | undefined,
    readonly batch: BatchCollector | undefined,
  ) {}
  // Lazy: most requests never look at their signal, and an AbortController per request is
  // measurable on the hot path.
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.cancelled && !this.controller.signal.aborted) this.controller.abort();
    return this.controller.signal;
  }
  // Lazy too: only long-lived requests wait for it.
  get settled(): Promise<void> {
    if (this.cancelled || this.done) return Promise.resolve();
    this.whenSettled ??= deferred();
    return this.whenSettled.promise;
  }
  onCancel(listener: (reason: unknown) => void): () => void {
    if (this.cancelled) {
      queueMicrotask(() => listener(this.cancelReason));
      return () => {};
    }
    if (this.cancelListener === undefined && this.cancelListeners === undefined) {
      this.cancelListener = listener;
      return () => {
        if (this.cancelListener === listener) this.cancelListener = undefined;
      };
    }
    this.cancelListeners ??= [];
    this.cancelListeners.push(listener);
    return () => {
      const listeners = this.cancelListeners;
      const at = listeners ? listeners.indexOf(listener) : -1;
      if (at !== -1) listeners!.splice(at, 1);
    };
  }
  cancel(reason: unknown): void {
    if (this.cancelled || this.done) return;
    this.cancelled = true;
    this.cancelReason = reason;
    this.controller?.abort(reason);
    const first = this.cancelListener;
    const listeners = this.cancelListeners;
    this.cancelListener = undefined;
    this.cancelListeners = undefined;
    first?.(reason);
    if (listeners) for (const listener of listeners) listener(reason);
    this.whenSettled?.resolve();
  }
  /** Called once the response went out (or was dropped because the request is over). */
  settle(): void {
    this.whenSettled?.resolve();
  }
}

export class Peer {
  private readonly channel: Channel;
  private readonly handlers: PeerHandlers;
  private readonly defaultTimeoutMs: number;
  /** @internal See {@link PeerOptions.logger}. */
  readonly logger: Logger | undefined;
  private nextId = 1;
  /**
   * Outgoing calls awaiting their answer, and those of them that asked for progress: made by the
   * first call (a server connection may never send one; an empty Map is about 200 bytes a session).
   */
  private pending: Map<string | number, PendingCall> | undefined;
  private byProgressToken: Map<string | number, PendingCall> | undefined;
  private readonly inbound = new Map<string | number, Inbound>();
  private readonly inboundLimit: PeerOptions['inboundLimit'];
  /** Inbound requests whose handler runs now (counted only under `inboundLimit`). */
  private serving = 0;
  /** Inbound requests waiting for a turn, oldest first (made by the first to wait). */
  private waiting: Inbound[] | undefined;
  private closedError: Error | undefined;
  private isClosed = false;
  private started = false;
  /** While above zero, pending calls do not time out short of their maximum total (see holdTimeouts). */
  private holds = 0;
  /** The deadlines of pending calls armed for their whole timeout, by that timeout (see deadlines.ts). */
  private deadlines: Map<number, DeadlineQueue<PendingCall>> | undefined;
  /** Its most used entry: one map lookup less per call. */
  private lastDeadlines: DeadlineQueue<PendingCall> | undefined;

  constructor(channel: Channel, handlers: PeerHandlers, options: PeerOptions = {}) {
    this.channel = channel;
    this.handlers = handlers;
    this.defaultTimeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.logger = options.logger;
    this.inboundLimit = options.inboundLimit;
    this.nextId = options.firstRequestId ?? 1;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get label(): string {
    return this.channel.label ?? 'connection';
  }

  /** See {@link Channel.closeRequestStream}: false when the channel has no such streams. */
  closeRequestStream(id: RequestId): boolean {
    return this.channel.closeRequestStream?.(id) ?? false;
  }

  /** See {@link Channel.canPush}: false once closed. */
  canPush(): boolean {
    return !this.isClosed && (this.channel.canPush?.() ?? true);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.channel.start(new PeerSink(this));
  }

  /**
   * Sends a request and resolves with the raw result object. Rejects with ProtocolError or
   * SwitchboardError. `meta`: the request's `_meta`, serialized once for many requests (`params`
   * then carry no `_meta` of their own); the request carries `{ ...params, _meta: meta.value }`.
   */
  request(
    method: string,
    params: Params | undefined,
    options: RequestOptions = {},
    meta?: SerializedMeta,
  ): Promise<Record<string, unknown>> {
    if (this.isClosed) {
      return Promise.reject(
        new SwitchboardError(
          'NOT_CONNECTED',
          `Cannot send '${method}': ${this.label} is closed${this.closedError ? ` (${this.closedError.message})` : ''}.`,
        ),
      );
    }
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(abortError(method, signal.reason));
    }
    const id = this.nextId++;
    let progressToken: RequestId | undefined;
    if (options.onprogress) {
      progressToken = id;
      const own = meta?.value ?? (params?._meta as object | undefined);
      params = { ...params, _meta: { ...own, progressToken } };
      meta = undefined;
    }
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    return new Promise((resolve, reject) => {
      // First, so that a throwing callback rejects the call before anything is registered.
      options.onRequestId?.(id);
      const call: PendingCall = {
        id,
        method,
        resolve,
        reject,
        timer: undefined,
        deadline: 0,
        queue: undefined,
        newer: undefined,
        older: undefined,
        timeoutMs,
        startedAt: Date.now(),
        maxTotalMs: Math.max(options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS, timeoutMs),
        onprogress: options.onprogress,
        resetOnProgress: options.resetTimeoutOnProgress ?? true,
        progressToken,
        cleanup: undefined,
        sendCancellation: options.sendCancellation ?? true,
      };
      this.pending ??= new Map();
      this.pending.set(id, call);
      if (progressToken !== undefined) {
        this.byProgressToken ??= new Map();
        this.byProgressToken.set(progressToken, call);
      }
      if (Number.isFinite(timeoutMs)) this.arm(call, timeoutMs);
      if (signal) {
        const onAbort = () => this.cancelOutgoing(id, signal.reason, abortError(method, signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
        call.cleanup = () => signal.removeEventListener('abort', onAbort);
      } else if (options.cancelledBy) {
        call.cleanup = options.cancelledBy.onCancel((reason) =>
          this.cancelOutgoing(id, reason, abortError(method, reason)),
        );
      }
      let frame: string;
      try {
        // The peer refuses a message nested deeper than the limit, so it is not sent (params sit
        // at level 2 of the message). Walked only when the JSON is long enough to nest that deep,
        // or when JSON.stringify overflowed its stack on it (Node 20-24 do; Node 26 does not).
        frame = requestFrame(id, method, params, meta);
        if (sentMayBeTooDeep(frame.length)) checkSentDepth(withMeta(params, meta), frame.length, 'The value');
      } catch (thrown) {
        const error = tooDeepToSerialize(thrown, withMeta(params, meta), 'The value');
        this.settle(id);
        reject(
          new SwitchboardError(
            'CONFIG',
            `The params of '${method}' cannot be sent as JSON: ${(error as Error)?.message ?? error}` +
              ' (a cycle, a BigInt, or nesting too deep). Send plain JSON data.',
            { cause: error },
          ),
        );
        return;
      }
      this.sendFrame(frame, new SentRequest(id, method, params, meta, options.relatedTo));
    });
  }

  /** Sends a notification; `relatedTo` names the inbound request it is about, if any. */
  notify(method: string, params?: Params, relatedTo?: RequestId): void {
    if (this.isClosed) return;
    this.sendFrame(notificationFrame(method, params), { kind: 'notification', method, params, relatedTo });
  }

  /**
   * Keeps pending outgoing calls from timing out (short of their maximum total) until the returned
   * function is called: for times the peer is waiting on us, e.g. while a user answers the
   * elicitation a server sent in the middle of our `tools/call`, or signs in for a request the
   * server refused. When the last hold ends, each pending call has its whole timeout again: the
   * time spent waiting on us was not the peer's.
   */
  holdTimeouts(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.rearmPending();
    };
  }

  /** Closes the channel; pending calls reject with CONNECTION_CLOSED. */
  async close(): Promise<void> {
    await this.channel.close();
    this.shutdown(undefined);
  }

  // ---------------------------------------------------------------------------------------------

  private sendFrame(frame: string, info: FrameInfo): void {
    this.channel.send(frame, info);
  }

  /**
   * Arms `call` (not armed) to expire in `ms`: in the queue of its timeout when that is `ms` (a
   * call's first arming, almost always), else on a timer of its own.
   */
  private arm(call: PendingCall, ms: number): void {
    if (ms !== call.timeoutMs) {
      call.timer = setTimeout(() => {
        call.timer = undefined;
        this.expire(call);
      }, ms);
      return;
    }
    let queue = this.lastDeadlines;
    if (queue?.ms !== ms) {
      this.deadlines ??= new Map();
      queue = this.deadlines.get(ms);
      if (!queue) {
        queue = new DeadlineQueue(ms, this.expire);
        this.deadlines.set(ms, queue);
      }
      this.lastDeadlines = queue;
    }
    queue.add(call);
  }

  private disarm(call: PendingCall): void {
    call.queue?.remove(call);
    if (call.timer !== undefined) {
      clearTimeout(call.timer);
      call.timer = undefined;
    }
  }

  /** `call`'s time is up: it fails with TIMEOUT, or, while timeouts are held, waits again. */
  private readonly expire = (call: PendingCall): void => {
    const elapsed = Date.now() - call.startedAt;
    const left = call.maxTotalMs - elapsed;
    if (this.holds > 0 && left > 0) {
      this.arm(call, Math.min(call.timeoutMs, left));
      return;
    }
    const { id } = call;
    this.cancelOutgoing(
      id,
      'timeout',
      new SwitchboardError(
        'TIMEOUT',
        `Request '${call.method}' (id ${id}) to ${this.label} got no response within ${elapsed} ms. ` +
          'Raise the timeout (timeoutMs) if the operation is slow, or have the server report progress.',
      ),
    );
  };

  /** Every pending call's timer starts again with its whole timeout (within its maximum total). */
  private rearmPending(): void {
    for (const call of this.pending?.values() ?? []) {
      if (call.timer === undefined && call.queue === undefined) continue;
      this.disarm(call);
      const left = call.maxTotalMs - (Date.now() - call.startedAt);
      this.arm(call, Math.max(0, Math.min(call.timeoutMs, left)));
    }
  }

  private settle(id: string | number): PendingCall | undefined {
    const call = this.pending?.get(id);
    if (!call) return undefined;
    this.pending!.delete(id);
    if (call.progressToken !== undefined) this.byProgressToken?.delete(call.progressToken);
    this.disarm(call);
    call.cleanup?.();
    return call;
  }

  private cancelOutgoing(id: number, reason: unknown, error: Error): void {
    const call = this.settle(id);
    if (!call) return;
    if (call.sendCancellation && !this.isClosed) {
      this.notify('notifications/cancelled', {
        requestId: id,
        reason: reason instanceof Error ? reason.message : String(reason ?? 'cancelled'),
      });
    }
    call.reject(error);
  }

  /** @internal What the channel delivered (see {@link PeerSink}). */
  receive(value: unknown, extra: InboundExtra | undefined): void {
    if (extra?.shallow !== true && exceedsDepth(value)) {
      this.refuseTooDeep(value);
      return;
    }
    if (Array.isArray(value)) {
      this.receiveBatch(value, extra);
      return;
    }
    this.receiveOne(value, extra, undefined);
  }

  private receiveBatch(items: unknown[], extra: InboundExtra | undefined): void {
    const verdict =
      items.length === 0
        ? 'A JSON-RPC batch must not be empty.'
        : (this.handlers.batch?.(items.length) ?? true);
    if (verdict !== true) {
      const error = new ProtocolError(ErrorCode.InvalidRequest, verdict);
      this.sendFrame(errorFrame(null, error.toObject()), { kind: 'response', id: null });
      this.handlers.error?.(error);
      return;
    }
    const collector = new BatchCollector(items.length, (frame, info) => this.sendFrame(frame, info));
    this.receiveSlice(items, 0, extra, collector);
  }

  /**
   * Dispatches a batch {@link BATCH_SLICE} items at a time, letting the event loop turn between
   * slices: a long batch of synchronous requests must not stall every other connection.
   */
  private receiveSlice(
    items: unknown[],
    from: number,
    extra: InboundExtra | undefined,
    collector: BatchCollector,
  ) {
    const end = Math.min(items.length, from + BATCH_SLICE);
    for (let i = from; i < end; i++) this.receiveOne(items[i], extra, collector);
    if (end < items.length) {
      scheduleTurn(() => {
        // A connection that closed meanwhile serves nothing more (and answers nothing).
        if (!this.isClosed) this.receiveSlice(items, end, extra, collector);
      });
    }
  }

  private receiveOne(
    value: unknown,
    extra: InboundExtra | undefined,
    batch: BatchCollector | undefined,
  ): void {
    const c = classify(value);
    switch (c.kind) {
      case 'request':
        this.dispatch(c.message.id, c.message.method, c.message.params, extra, batch);
        return;
      case 'notification':
        batch?.add(undefined);
        this.receiveNotification(c.message, extra);
        return;
      case 'result': {
        batch?.add(undefined);
        this.settle(c.message.id)?.resolve(c.message.result);
        return;
      }
      case 'error': {
        batch?.add(undefined);
        const { id, error } = c.message;
        if (id === null) {
          // The peer could not read one of our messages; nothing to correlate it with.
          this.handlers.error?.(ProtocolError.fromObject(error));
          return;
        }
        this.settle(id)?.reject(ProtocolError.fromObject(error));
        return;
      }
      case 'invalid': {
        const error = new ProtocolError(ErrorCode.InvalidRequest, `Invalid JSON-RPC message: ${c.reason}.`);
        const looksLikeResponse =
          typeof value === 'object' && value !== null && ('result' in value || 'error' in value);
        // Never answer something that was itself a response: that could ping-pong forever.
        if (looksLikeResponse) batch?.add(undefined);
        else this.respondOrCollect(errorFrame(c.id, error.toObject()), c.id, batch);
        this.handlers.error?.(error);
        return;
      }
    }
  }

  private receiveNotification(message: JsonRpcNotification, extra: InboundExtra | undefined): void {
    const { method, params } = message;
    if (method === 'notifications/cancelled') {
      const requestId = params?.requestId;
      const target = requestId === undefined ? undefined : this.inbound.get(requestId as RequestId);
      if (target) {
        target.cancel(params?.reason ?? 'cancelled by the peer');
        return;
      }
    } else if (method === 'notifications/progress') {
      const token = params?.progressToken as RequestId | undefined;
      const call = token === undefined ? undefined : this.byProgressToken?.get(token);
      if (call) {
        this.progress(call, params!);
        return;
      }
    }
    try {
      this.handlers.notification(message, extra);
    } catch (error) {
      this.handlers.error?.(asError(error));
    }
  }

  private progress(call: PendingCall, params: Params): void {
    if (typeof params.progress !== 'number') return;
    if (call.resetOnProgress && (call.timer !== undefined || call.queue !== undefined)) {
      this.disarm(call);
      const left = call.maxTotalMs - (Date.now() - call.startedAt);
      this.arm(call, Math.max(0, Math.min(call.timeoutMs, left)));
    }
    const update: ProgressUpdate = { progress: params.progress };
    if (typeof params.total === 'number') update.total = params.total;
    if (typeof params.message === 'string') update.message = params.message;
    try {
      call.onprogress?.(update);
    } catch (error) {
      this.handlers.error?.(asError(error));
    }
  }

  private dispatch(
    id: RequestId,
    method: string,
    params: Params | undefined,
    extra: InboundExtra | undefined,
    batch: BatchCollector | undefined,
  ): void {
    if (this.inbound.has(id)) {
      const error = new ProtocolError(
        ErrorCode.InvalidRequest,
        `Request id ${JSON.stringify(id)} is already in use by a pending request; ids must not be reused while pending.`,
      );
      this.respondOrCollect(errorFrame(id, error.toObject()), id, batch);
      return;
    }
    const request = new Inbound(id, method, params, extra, batch);
    const limit = this.inboundLimit;
    if (limit && this.serving >= limit.concurrent) {
      this.waiting ??= [];
      const waiting = this.waiting;
      if (waiting.length >= limit.queued) {
        const error = new ProtocolError(
          ErrorCode.InternalError,
          `Too many requests at once: ${this.serving} of your requests are being served and ${waiting.length} more are waiting, the most this side takes; '${method}' was refused. Send fewer requests at once, or wait for their answers first.`,
        );
        this.respondOrCollect(errorFrame(id, error.toObject()), id, batch);
        return;
      }
      this.inbound.set(id, request);
      waiting.push(request);
      return;
    }
    this.inbound.set(id, request);
    this.run(request);
  }

  private run(request: Inbound): void {
    request.running = true;
    if (this.inboundLimit) this.serving++;
    let outcome: unknown;
    try {
      outcome = this.handlers.request(request);
    } catch (error) {
      this.finish(request, undefined, error);
      return;
    }
    if (isPromiseLike(outcome)) {
      outcome.then(
        (result) => this.finish(request, result, undefined),
        (error) => this.finish(request, undefined, error ?? new Error('Request handler failed')),
      );
    } else {
      this.finish(request, outcome, undefined);
    }
  }

  private finish(request: Inbound, result: unknown, error: unknown): void {
    this.inbound.delete(request.id);
    if (request.done) return;
    request.done = true;
    if (request.running && this.inboundLimit) {
      this.serving--;
      this.nextWaiting();
    }
    // A cancelled request gets no response at all (the peer has forgotten it).
    if (request.cancelled || this.isClosed) {
      request.batch?.add(undefined);
      request.settle();
      return;
    }
    let frame: string;
    if (error !== undefined) {
      frame = errorFrame(request.id, toErrorObject(error));
    } else {
      try {
        // As for requests: a result nested deeper than the peer accepts is not sent (result: level 2).
        frame = resultFrame(request.id, result);
        checkSentDepth(result, frame.length, 'The result');
      } catch (thrown) {
        const serializeError = tooDeepToSerialize(thrown, result, 'The result');
        frame = errorFrame(request.id, {
          code: ErrorCode.InternalError,
          message: `The result of '${request.method}' could not be serialized: ${(serializeError as Error).message}`,
        });
      }
    }
    this.respondOrCollect(frame, request.id, request.batch);
    request.settle();
  }

  /** Gives the freed turn to the oldest waiting request; one cancelled while waiting just ends. */
  private nextWaiting(): void {
    const waiting = this.waiting;
    while (waiting && waiting.length > 0 && !this.isClosed) {
      const next = waiting.shift()!;
      if (next.cancelled) {
        this.finish(next, undefined, undefined);
        continue;
      }
      this.run(next);
      return;
    }
  }

  private respondOrCollect(frame: string, id: RequestId | null, batch: BatchCollector | undefined): void {
    if (batch) batch.add(frame, id);
    else this.sendFrame(frame, { kind: 'response', id });
  }

  /**
   * A message nested deeper than {@link MAX_JSON_DEPTH}: nothing walks it. A request is answered
   * with -32600 under its id, a response fails the call it answers, anything else is reported.
   */
  private refuseTooDeep(value: unknown): void {
    const message = isPlainObject(value) ? value : undefined;
    const id = message && isRequestId(message.id) ? message.id : undefined;
    if (id !== undefined && typeof message?.method === 'string') {
      const error = new ProtocolError(
        ErrorCode.InvalidRequest,
        tooDeepMessage(`Request '${message.method}'`),
      );
      this.sendFrame(errorFrame(id, error.toObject()), { kind: 'response', id });
      this.handlers.error?.(error);
      return;
    }
    const call = id === undefined ? undefined : this.settle(id);
    if (call) {
      call.reject(
        new SwitchboardError(
          'INVALID_RESULT',
          `${tooDeepMessage(`The response to '${call.method}' (id ${call.id})`)} It was refused.`,
        ),
      );
      return;
    }
    this.handlers.error?.(new ProtocolError(ErrorCode.InvalidRequest, tooDeepMessage('A message')));
  }

  /** @internal A frame the channel could not decode: answered with its error, reported, the channel kept. */
  receiveMalformed(error: ProtocolError): void {
    this.sendFrame(errorFrame(null, error.toObject()), { kind: 'response', id: null });
    this.handlers.error?.(error);
  }

  /** @internal The channel renewed its session (see {@link PeerSink}). */
  renewed(): void {
    if (this.isClosed) return;
    try {
      this.handlers.renewed?.();
    } catch (error) {
      this.handlers.error?.(asError(error));
    }
  }

  /** @internal The channel closed (see {@link PeerSink}). */
  shutdown(error: Error | undefined): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.closedError = error;
    const reason = error ? `: ${error.message}` : '';
    for (const [id, call] of [...(this.pending ?? [])]) {
      this.settle(id);
      call.reject(
        new SwitchboardError(
          'CONNECTION_CLOSED',
          `${this.label} closed before '${call.method}' (id ${id}) was answered${reason}`,
          { cause: error },
        ),
      );
    }
    for (const request of this.inbound.values()) request.cancel(error ?? 'connection closed');
    this.inbound.clear();
    this.waiting = undefined;
    this.handlers.closed?.(error);
  }
}

const BATCH: FrameInfo = Object.freeze({ kind: 'batch' });

/** The params a request carries: `params` with `meta`'s value as their `_meta`, if given. */
function withMeta(params: Params | undefined, meta: SerializedMeta | undefined): Params | undefined {
  return meta === undefined ? params : { ...params, _meta: meta.value };
}

/**
 * A request's {@link FrameInfo}. Its `params` are what the request carries, `_meta` included, made
 * on first read: a stdio channel never reads them, and a copy of every request's params to add the
 * spliced envelope was garbage on every 2026-07-28 call.
 */
class SentRequest {
  readonly kind = 'request';
  private carried: Params | undefined;
  constructor(
    readonly id: number,
    readonly method: string,
    private readonly own: Params | undefined,
    private readonly meta: SerializedMeta | undefined,
    readonly relatedTo: RequestId | undefined,
  ) {}
  get params(): Params | undefined {
    if (this.meta === undefined) return this.own;
    this.carried ??= withMeta(this.own, this.meta);
    return this.carried;
  }
}

/** Batch items dispatched before the event loop gets a turn. */
const BATCH_SLICE = 64;

/** Runs `task` after pending I/O: `setImmediate` where there is one (Node, Bun), else a zero timeout. */
const scheduleTurn: (task: () => void) => void =
  typeof setImmediate === 'function' ? (task) => setImmediate(task) : (task) => setTimeout(task, 0);

function abortError(method: string, reason: unknown): SwitchboardError {
  const why = reason instanceof Error ? reason.message : reason === undefined ? '' : String(reason);
  return new SwitchboardError('ABORTED', `Request '${method}' was aborted${why ? `: ${why}` : ''}.`, {
    cause: reason,
  });
}

/**
 * What a peer gives its channel to deliver into: one small object per connection, where three
 * closures (and their contexts) were kept for as long as the connection lives.
 */
class PeerSink implements ChannelSink {
  constructor(private readonly peer: Peer) {}

  get logger(): Logger | undefined {
    return this.peer.logger;
  }

  message(value: unknown, extra?: InboundExtra): void {
    this.peer.receive(value, extra);
  }

  malformed(error: ProtocolError): void {
    this.peer.receiveMalformed(error);
  }

  closed(error?: Error): void {
    this.peer.shutdown(error);
  }

  renewed(): void {
    this.peer.renewed();
  }
}

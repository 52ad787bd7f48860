/**
 * Serving one 2026-07-28 request: check the mirrored headers against the body, run the request
 * through `Server.serve`, and answer on that POST — JSON when nothing has to be streamed first, an
 * SSE stream scoped to the request as soon as a notification (progress, log, a subscription
 * acknowledgement) must go out before the result. Closing the response stream is the cancellation:
 * the handler's `signal` aborts and nothing more is sent.
 *
 * No state outlives the request: there are no sessions in this era.
 */
import type { InboundExtra } from '../../../engine/channel.js';
import type { Cancellable } from '../../../engine/peer.js';
import { envelopeCapabilities } from '../../../protocol/envelope.js';
import { ErrorCode, ProtocolError, SwitchboardError, toErrorObject } from '../../../protocol/errors.js';
import { errorFrame, notificationFrame, resultFrame } from '../../../protocol/frames.js';
import type { JsonRpcRequest, Params, RequestId } from '../../../protocol/jsonrpc.js';
import type { RequestLink } from '../../../server/link.js';
import type { ServerCore } from '../../../server/server.js';
import { type Deferred, deferred } from '../../../util/deferred.js';
import {
  errorReply,
  type HttpExchange,
  type HttpReply,
  inboundExtra,
  jsonReply,
  rateLimitHeaders,
  statusForError,
} from './exchange.js';
import { checkMirroredHeaders } from './mcp-headers.js';
import { checkAccept, REPLY_TYPES } from './negotiation.js';
import type { ResolvedOptions } from './options.js';
import { SSE_HEADERS, SseStream, type StreamPolicy } from './sse.js';

/** What modern requests share: the server, the options, and the requests in flight (for close). */
export interface ModernScope {
  readonly server: ServerCore;
  readonly options: ResolvedOptions;
  readonly streams: StreamPolicy;
  readonly inFlight: Set<ModernCall>;
}

export function serveModernRequest(
  scope: ModernScope,
  exchange: HttpExchange,
  request: JsonRpcRequest,
): Promise<HttpReply> {
  const { method, id } = request;
  const params = request.params as Params;
  const meta = params._meta as Record<string, unknown>;
  const capabilities = envelopeCapabilities(meta);
  if (capabilities instanceof ProtocolError) {
    return Promise.resolve(errorReply(400, capabilities.message, { code: capabilities.code, id }));
  }
  // A listen stream is SSE whatever the response mode: its notifications are the whole point.
  const { responseMode } = scope.options;
  const mode = method === 'subscriptions/listen' && responseMode === 'json' ? 'sse' : responseMode;
  const streams = mode !== 'json';
  const notAcceptable = checkAccept(exchange, REPLY_TYPES[mode]);
  if (notAcceptable) return Promise.resolve(notAcceptable);
  try {
    const tool =
      method === 'tools/call' && typeof params.name === 'string'
        ? scope.server.toolDescriptor(params.name)
        : undefined;
    checkMirroredHeaders(exchange, method, params, tool);
  } catch (error) {
    const e = error as ProtocolError;
    return Promise.resolve(jsonReply(400, errorFrame(id, e.toObject())));
  }
  const call = new ModernCall(scope, exchange, id, streams);
  scope.server.serve(request, call).then(
    (result) => call.complete(result),
    (error) => call.fail(error),
  );
  return call.reply;
}

/**
 * One modern request in flight: its RequestLink, and the reply it becomes. It is its own
 * Cancellable, so a gateway forwarding it is told of a cancellation without an AbortController.
 */
export class ModernCall implements RequestLink, Cancellable {
  /** No sessions in this era. */
  readonly legacy = undefined;
  #stream: SseStream | undefined;
  #finished = false;
  #cancelled = false;
  #controller: AbortController | undefined;
  /** Told of a cancellation without a signal (see `cancellable`); made by the first `onCancel`. */
  #listeners: ((reason: unknown) => void)[] | undefined;
  /** Whether the client going away is watched yet (by `signal` or `onCancel`, once). */
  #watching = false;
  #reason: SwitchboardError | undefined;
  #extra: InboundExtra | undefined;
  #settle!: (reply: HttpReply) => void;
  readonly reply: Promise<HttpReply>;
  /** The final frame was written, or the request was cancelled. */
  #isSettled = false;
  /** RequestLink.settled, made on demand: only long-lived requests (listen streams, tasks) wait for it. */
  #whenSettled: Deferred | undefined;

  constructor(
    private readonly scope: ModernScope,
    private readonly exchange: HttpExchange,
    private readonly id: RequestId,
    /** Whether notifications may open an SSE stream (not in `json` mode, except for a listen). */
    private readonly streams: boolean,
  ) {
    this.reply = new Promise((resolve) => {
      this.#settle = resolve;
    });
    scope.inFlight.add(this);
    if (scope.options.responseMode === 'sse') this.#openStream();
  }

  /** Settles once the final frame was written or the request was cancelled (RequestLink.settled). */
  get settled(): Promise<void> {
    if (this.#isSettled) return Promise.resolve();
    this.#whenSettled ??= deferred();
    return this.#whenSettled.promise;
  }

  get finished(): boolean {
    return this.#finished || this.#cancelled;
  }

  // Lazy, and so is watching for the client going away: most handlers never look at their signal,
  // and an AbortController plus a 'close' listener per request show up on the hot path. Until a
  // handler asks, a disconnect is noticed when something is written (see #openStream).
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      this.#watchClient();
    }
    if (this.#cancelled && !this.#controller.signal.aborted) this.#controller.abort(this.#reason);
    return this.#controller.signal;
  }

  get cancellable(): Cancellable {
    return this;
  }

  onCancel(listener: (reason: unknown) => void): () => void {
    if (this.#cancelled) {
      const reason = this.#reason;
      queueMicrotask(() => listener(reason));
      return () => {};
    }
    this.#watchClient();
    this.#listeners ??= [];
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners?.indexOf(listener) ?? -1;
      if (at !== -1) this.#listeners!.splice(at, 1);
    };
  }

  #watchClient(): void {
    if (this.#watching) return;
    this.#watching = true;
    this.exchange.onClientGone(() =>
      this.#cancel('The client closed the connection (cancelling the request).'),
    );
  }

  get extra(): InboundExtra {
    this.#extra ??= inboundExtra(this.exchange);
    return this.#extra;
  }

  notify(method: string, params: Params): void {
    if (this.finished || !this.streams) return;
    this.#openStream().event(notificationFrame(method, params));
  }

  /** @internal */
  complete(result: unknown): void {
    let frame: string;
    try {
      frame = resultFrame(this.id, result);
    } catch (error) {
      this.fail(
        new ProtocolError(
          ErrorCode.InternalError,
          `The result could not be serialized: ${(error as Error).message}`,
        ),
      );
      return;
    }
    this.#finish(frame, 200);
  }

  /** @internal */
  fail(error: unknown): void {
    const object = toErrorObject(error);
    this.#finish(
      errorFrame(this.id, object),
      statusForError(object.code),
      object.code === ErrorCode.RateLimited ? rateLimitHeaders(object.data) : undefined,
    );
  }

  /** @internal The handler is closing: abort the request and end its reply. */
  shutdown(): void {
    if (this.finished) return;
    const stream = this.#stream;
    if (!stream) {
      this.#settle(
        errorReply(
          503,
          'The server is shutting down; send the request again later (or to another instance).',
          {
            code: ErrorCode.InternalError,
            id: this.id,
          },
        ),
      );
    }
    this.#cancel('The server is shutting down.');
    stream?.end();
  }

  #finish(frame: string, status: number, headers?: Record<string, string>): void {
    if (this.#finished) return;
    this.#finished = true;
    this.scope.inFlight.delete(this);
    this.#markSettled();
    if (this.#cancelled) return;
    const stream = this.#stream;
    if (stream) {
      stream.event(frame);
      stream.end();
    } else {
      this.#settle(jsonReply(status, frame, headers));
    }
  }

  #markSettled(): void {
    this.#isSettled = true;
    this.#whenSettled?.resolve();
  }

  #openStream(): SseStream {
    if (!this.#stream) {
      const stream = new SseStream(this.scope.streams);
      stream.onClientGone = () =>
        this.#cancel('The client closed the response stream (cancelling the request).');
      this.#stream = stream;
      this.#settle({ status: 200, headers: SSE_HEADERS as Record<string, string>, stream });
    }
    return this.#stream;
  }

  #cancel(why: string): void {
    if (this.#finished || this.#cancelled) return;
    this.#cancelled = true;
    this.#markSettled();
    this.scope.inFlight.delete(this);
    this.#reason = new SwitchboardError('ABORTED', why);
    this.#controller?.abort(this.#reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener(this.#reason);
    // Nobody reads this reply; the adapter needs one to release the exchange.
    if (!this.#stream) this.#settle(errorReply(499, why, { id: this.id }));
  }
}

/**
 * Server-Sent Events output, independent of the runtime: the handler core writes events into an
 * {@link SseStream}; the adapter that owns the HTTP response attaches a sink (a WHATWG stream
 * controller, a `node:http` response) and reports when the client goes away.
 *
 * Every open stream is registered with one {@link KeepAlive} ticker per handler, which writes a `:`
 * comment into streams that stayed silent for a whole interval (one timer for all streams, not one
 * per stream: most streams live for a single request).
 *
 * A client that stops reading a stream does not grow the server without bound: from
 * {@link CONGESTED_AT_BYTES} waiting the stream reports itself congested (a session then refuses new
 * POSTs with 503 until its client reads), and past `maxStreamBufferBytes` it is cut and the owner
 * told, as if the client had gone away.
 */
import { SwitchboardError } from '../../../protocol/errors.js';
import { formatBytes } from '../../../util/bytes.js';

/** Where an SSE stream's text goes. */
export interface SseSink {
  write(chunk: string): void;
  end(): void;
  /** Bytes written but not yet taken by the client (absent: the adapter cannot tell). */
  buffered?(): number;
  /** Cuts the connection at once, unread text and all (the adapter then reports the client gone). */
  abort?(): void;
}

/** Default cap on the text one stream holds for a client that does not read it: 8 MiB. */
export const DEFAULT_MAX_STREAM_BUFFER_BYTES = 8 * 1024 * 1024;

/** Text waiting on one stream from which it counts as congested: 1 MiB (or the cap, if smaller). */
export const CONGESTED_AT_BYTES = 1024 * 1024;

/** What every stream of a handler shares: the keep-alive ticker, the buffer bound, the log. */
export interface StreamPolicy {
  readonly keepAlive: KeepAlive | undefined;
  readonly maxBufferedBytes: number;
  readonly onerror: (error: Error) => void;
}

/** Formats one SSE event. JSON frames have no raw line breaks, but anything else is split safely. */
export function formatEvent(data: string, id?: string, event?: string): string {
  let head = '';
  if (event !== undefined) head += `event: ${event}\n`;
  if (id !== undefined) head += `id: ${id}\n`;
  if (data.indexOf('\n') === -1 && data.indexOf('\r') === -1) return `${head}data: ${data}\n\n`;
  return `${head}${data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('')}\n`;
}

/**
 * The 2025-11-25 priming event: an event id with empty data, sent first so the client can resume
 * the stream from it, and the reconnection delay the client must honour.
 */
export function formatPrimingEvent(id: string, retryMs: number | undefined): string {
  return retryMs === undefined ? `id: ${id}\ndata:\n\n` : `id: ${id}\nretry: ${retryMs}\ndata:\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // Reverse proxies (nginx) must pass events through as they come, not buffer them.
  'x-accel-buffering': 'no',
});

export class SseStream {
  #sink: SseSink | undefined;
  /** Text written before the adapter attached its sink (made by the first such write). */
  #pending: string[] | undefined;
  #pendingBytes = 0;
  #congestionReported = false;
  #open = true;
  #ended = false;
  /** Something was written since the last keep-alive tick. */
  #active = true;
  #onClientGone: (() => void) | undefined;
  readonly #policy: StreamPolicy;
  /** Who the stream belongs to, for the log line when it is cut (e.g. `HTTP+SSE session 1a2b3c4d`). */
  owner: string | undefined;

  constructor(policy: StreamPolicy) {
    this.#policy = policy;
    policy.keepAlive?.add(this);
  }

  /** Text written that the client has not taken yet. */
  get buffered(): number {
    return this.#sink ? (this.#sink.buffered?.() ?? 0) : this.#pendingBytes;
  }

  /**
   * Whether the client is far behind (see the module comment). The first time in a while it is,
   * the log is told.
   */
  get congested(): boolean {
    const buffered = this.#open ? this.buffered : 0;
    const congested = buffered >= Math.min(CONGESTED_AT_BYTES, this.#policy.maxBufferedBytes);
    if (congested && !this.#congestionReported) {
      this.#policy.onerror(
        new SwitchboardError(
          'TRANSPORT',
          `${this.owner ?? 'An SSE stream'}: the client is not reading its event stream (${formatBytes(buffered)} waiting); new messages get 503 until it does.`,
        ),
      );
    }
    this.#congestionReported = congested;
    return congested;
  }

  /** False once the stream ended or the client went away: nothing written now arrives. */
  get open(): boolean {
    return this.#open;
  }

  /** Called once when the client goes away before the server ended the stream. */
  set onClientGone(listener: (() => void) | undefined) {
    this.#onClientGone = listener;
  }

  write(chunk: string): boolean {
    if (!this.#open) return false;
    this.#active = true;
    if (this.#sink) this.#sink.write(chunk);
    else {
      this.#pending ??= [];
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
    }
    const buffered = this.buffered;
    if (buffered > this.#policy.maxBufferedBytes) {
      this.#overflow(buffered);
      return false;
    }
    return true;
  }

  event(data: string, id?: string, event?: string): boolean {
    return this.write(formatEvent(data, id, event));
  }

  /** Ends the stream from the server side (the response is complete). Idempotent. */
  end(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#ended = true;
    this.#policy.keepAlive?.remove(this);
    this.#sink?.end();
  }

  /** @internal Adapter: the response body is ready to receive text. */
  attach(sink: SseSink): void {
    this.#sink = sink;
    const pending = this.#pending;
    this.#pending = undefined;
    this.#pendingBytes = 0;
    if (pending) sink.write(pending.length === 1 ? pending[0]! : pending.join(''));
    if (this.#ended) sink.end();
  }

  /** @internal Adapter: the client closed the connection (or it broke). */
  clientGone(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#pending = undefined;
    this.#pendingBytes = 0;
    this.#policy.keepAlive?.remove(this);
    const listener = this.#onClientGone;
    this.#onClientGone = undefined;
    listener?.();
  }

  /** The client is not reading: cut the connection, say so, and let the owner treat it as gone. */
  #overflow(buffered: number): void {
    this.#policy.onerror(
      new SwitchboardError(
        'TRANSPORT',
        `${this.owner ?? 'An SSE stream'}: the client is not reading its event stream (${formatBytes(buffered)} waiting, past maxStreamBufferBytes); the stream was cut.`,
      ),
    );
    const sink = this.#sink;
    this.clientGone();
    // Without abort() the adapter can only end the response after what is already queued.
    if (sink?.abort) sink.abort();
    else sink?.end();
  }

  /** @internal KeepAlive: writes a comment if the stream was silent for a whole interval. */
  tick(): void {
    if (!this.#active) this.write(':\n\n');
    this.#active = false;
  }
}

/** One interval timer for every open stream of a handler; it stops while no stream is open. */
export class KeepAlive {
  readonly #streams = new Set<SseStream>();
  readonly #intervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
  }

  add(stream: SseStream): void {
    this.#streams.add(stream);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
      // Never keep a process alive just to send keep-alives (Node; other runtimes lack unref).
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  remove(stream: SseStream): void {
    // The timer stops at its next tick when nothing is left, so short-lived streams do not
    // start and stop it on every request.
    this.#streams.delete(stream);
  }

  #tick(): void {
    if (this.#streams.size === 0) {
      this.stop();
      return;
    }
    for (const stream of this.#streams) stream.tick();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * Server-Sent Events output, independent of the runtime: the handler core writes events into an
 * {@link SseStream}; the adapter that owns the HTTP response attaches a sink (a WHATWG stream
 * controller, a `node:http` response) and reports when the client goes away.
 *
 * Every open stream is registered with one {@link KeepAlive} ticker per handler, which writes a `:`
 * comment into streams that stayed silent for a whole interval (one timer for all streams, not one
 * per stream: most streams live for a single request).
 */

/** Where an SSE stream's text goes. */
export interface SseSink {
  write(chunk: string): void;
  end(): void;
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
  #open = true;
  #ended = false;
  /** Something was written since the last keep-alive tick. */
  #active = true;
  #onClientGone: (() => void) | undefined;
  readonly #keepAlive: KeepAlive | undefined;

  constructor(keepAlive: KeepAlive | undefined) {
    this.#keepAlive = keepAlive;
    keepAlive?.add(this);
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
    this.#keepAlive?.remove(this);
    this.#sink?.end();
  }

  /** @internal Adapter: the response body is ready to receive text. */
  attach(sink: SseSink): void {
    this.#sink = sink;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) sink.write(pending.length === 1 ? pending[0]! : pending.join(''));
    if (this.#ended) sink.end();
  }

  /** @internal Adapter: the client closed the connection (or it broke). */
  clientGone(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#pending = undefined;
    this.#keepAlive?.remove(this);
    const listener = this.#onClientGone;
    this.#onClientGone = undefined;
    listener?.();
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

/**
 * The client side of the 2024-11-05 HTTP+SSE transport (deprecated, still widely deployed): GET the
 * URL as an event stream, wait for its `endpoint` event, then POST every message to that endpoint;
 * everything the server sends, responses included, arrives on the stream. The transport has no
 * resumption, so when the stream ends the connection is over.
 *
 * The endpoint must be on the same origin as the stream: a server cannot make us POST (with our
 * credentials) anywhere else.
 */
import type { Channel, ChannelSink, FrameInfo } from '../../../engine/channel.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../../protocol/errors.js';
import type { RequestId } from '../../../protocol/jsonrpc.js';
import type { Era } from '../../../protocol/revisions.js';
import { frameInfoOf } from './frame-info.js';
import { describeCause, errorResponse, httpStatusError, networkError, rpcErrorIn } from './http-errors.js';
import { type HttpClientChannelOptions, HttpIo } from './options.js';
import { messageData, readEventStream } from './sse-reader.js';

export type SseClientChannelOptions = HttpClientChannelOptions;

export class SseClientChannel implements Channel {
  /** HTTP+SSE servers predate the modern era: the client can skip its `server/discover` probe. */
  readonly preferredEra: Era = 'legacy';
  readonly #io: HttpIo;
  #sink: ChannelSink | undefined;
  /** Where messages are POSTed, once the `endpoint` event named it. */
  #endpoint: string | undefined;
  /** Frames sent before the endpoint was known. */
  #queue: [string, FrameInfo][] = [];
  /** Aborts the stream and every POST when the channel closes. */
  readonly #lifetime = new AbortController();
  #finished = false;
  /** The id of the pending `initialize`, to learn the negotiated version from its result. */
  #initializeId: RequestId | undefined;
  #protocolVersion: string | undefined;
  #connectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Settles when the endpoint is known (or the stream failed before that). */
  readonly connected: Promise<void>;
  #resolveConnected!: () => void;
  #rejectConnected!: (error: Error) => void;

  constructor(url: string | URL, options: SseClientChannelOptions = {}) {
    this.#io = new HttpIo(url, options, 'SseClientChannel');
    this.connected = new Promise((resolve, reject) => {
      this.#resolveConnected = resolve;
      this.#rejectConnected = reject;
    });
    // Observed by start(); a never-started channel must not report an unhandled rejection.
    this.connected.catch(() => undefined);
  }

  get label(): string {
    return `HTTP+SSE ${this.#io.display}`;
  }

  start(sink: ChannelSink): void {
    if (this.#sink) return;
    this.#sink = sink;
    this.#io.adopt(sink.logger);
    if (this.#finished) {
      queueMicrotask(() => sink.closed());
      return;
    }
    void this.#listen();
  }

  send(frame: string, info?: FrameInfo): void {
    if (this.#finished) return;
    info ??= frameInfoOf(frame);
    if (info.kind === 'request' && info.method === 'initialize') this.#initializeId = info.id;
    if (this.#endpoint === undefined) this.#queue.push([frame, info]);
    else void this.#post(this.#endpoint, frame, info);
  }

  async close(): Promise<void> {
    this.#finish(undefined);
  }

  async #listen(): Promise<void> {
    const io = this.#io;
    const signal = this.#lifetime.signal;
    this.#connectTimer = setTimeout(
      () =>
        this.#finish(
          new SwitchboardError(
            'TIMEOUT',
            `The HTTP+SSE server at ${io.display} sent no endpoint event within ${io.connectTimeoutMs} ms. ` +
              'Check that the URL is its SSE endpoint, or raise connectTimeoutMs.',
          ),
        ),
      io.connectTimeoutMs,
    );
    try {
      const headers = await io.headers();
      headers.accept = 'text/event-stream';
      const response = await io.fetch(io.href, { method: 'GET', headers, signal });
      const type = response.headers.get('content-type') ?? '';
      if (response.status < 200 || response.status >= 300 || !type.startsWith('text/event-stream')) {
        const body = await io.text(response).catch(() => '');
        const detail =
          response.status >= 200 && response.status < 300
            ? `${io.display} answered GET with ${type || 'no content type'} instead of an event stream.`
            : httpStatusError({
                method: 'GET',
                url: io.url,
                status: response.status,
                statusText: response.statusText,
                body,
                wwwAuthenticate: response.headers.get('www-authenticate'),
              }).message;
        throw new SwitchboardError('TRANSPORT', `No HTTP+SSE event stream: ${detail}`, {
          cause: { httpStatus: response.status },
        });
      }
      await readEventStream(
        response.body,
        {
          event: (event) => {
            if (event.event === 'endpoint') {
              this.#onEndpoint(event.data);
              return;
            }
            const data = messageData(event);
            if (data !== undefined) this.#onMessage(data);
          },
        },
        io.maxMessageBytes,
      );
      this.#finish(
        new SwitchboardError(
          'CONNECTION_CLOSED',
          `The HTTP+SSE server at ${io.display} ended its event stream; this transport cannot resume, so the connection is over.`,
        ),
      );
    } catch (error) {
      if (signal.aborted) return;
      this.#finish(
        error instanceof SwitchboardError
          ? error
          : new SwitchboardError(
              'CONNECTION_CLOSED',
              `The HTTP+SSE stream from ${io.display} failed: ${describeCause(error)}.`,
              { cause: error },
            ),
      );
    } finally {
      clearTimeout(this.#connectTimer);
    }
  }

  #onEndpoint(data: string): void {
    if (this.#endpoint !== undefined) return;
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.#io.url);
    } catch {
      this.#finish(
        new SwitchboardError(
          'TRANSPORT',
          `The HTTP+SSE server sent an unusable endpoint ${JSON.stringify(data)}.`,
        ),
      );
      return;
    }
    if (endpoint.origin !== this.#io.url.origin) {
      this.#finish(
        new SwitchboardError(
          'TRANSPORT',
          `The HTTP+SSE server at ${this.#io.display} named an endpoint on another origin (${endpoint.origin}); ` +
            'refusing to send messages there.',
        ),
      );
      return;
    }
    this.#endpoint = endpoint.href;
    clearTimeout(this.#connectTimer);
    this.#resolveConnected();
    for (const [frame, info] of this.#queue.splice(0)) void this.#post(endpoint.href, frame, info);
  }

  #onMessage(data: string): void {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      this.#sink?.malformed(
        new ProtocolError(
          ErrorCode.ParseError,
          `The server sent an SSE message that is not JSON: ${(error as Error).message}`,
        ),
      );
      return;
    }
    if (this.#initializeId !== undefined && typeof value === 'object' && value !== null) {
      const message = value as { id?: unknown; result?: { protocolVersion?: unknown } };
      if (message.id === this.#initializeId) {
        this.#initializeId = undefined;
        const version = message.result?.protocolVersion;
        if (typeof version === 'string') this.#protocolVersion = version;
      }
    }
    this.#sink?.message(value);
  }

  async #post(endpoint: string, frame: string, info: FrameInfo): Promise<void> {
    const io = this.#io;
    const release = await io.postSlot();
    // Closed while this waited for its turn: nothing to send.
    if (this.#lifetime.signal.aborted) return release();
    const controller = new AbortController();
    const abort = () => controller.abort();
    this.#lifetime.signal.addEventListener('abort', abort, { once: true });
    // The POST only hands the message over (202); the answer comes on the stream.
    const timer = setTimeout(abort, io.connectTimeoutMs);
    const id = info.kind === 'request' ? info.id : null;
    try {
      const headers = await io.headers();
      headers['content-type'] = 'application/json';
      if (this.#protocolVersion) headers['mcp-protocol-version'] = this.#protocolVersion;
      const response = await io.fetch(endpoint, {
        method: 'POST',
        headers,
        body: frame,
        signal: controller.signal,
      });
      const body = await io.text(response);
      if (response.status >= 200 && response.status < 300) return;
      const error =
        rpcErrorIn(body) ??
        httpStatusError({
          method: 'POST',
          url: new URL(endpoint),
          status: response.status,
          statusText: response.statusText,
          body,
          wwwAuthenticate: response.headers.get('www-authenticate'),
        });
      this.#sink?.message(errorResponse(id, error));
    } catch (error) {
      if (this.#finished) return;
      const why = controller.signal.aborted
        ? new Error(`no acknowledgement within ${io.connectTimeoutMs} ms`)
        : error;
      this.#sink?.message(errorResponse(id, networkError('POST to', new URL(endpoint), why)));
    } finally {
      clearTimeout(timer);
      release();
      this.#lifetime.signal.removeEventListener('abort', abort);
    }
  }

  #finish(error: Error | undefined): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#queue = [];
    this.#lifetime.abort();
    clearTimeout(this.#connectTimer);
    this.#rejectConnected(
      error ?? new SwitchboardError('CONNECTION_CLOSED', `${this.label} was closed before it connected.`),
    );
    this.#sink?.closed(error);
  }
}

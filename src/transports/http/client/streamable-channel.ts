/**
 * The client side of Streamable HTTP, for both protocol eras, with a fallback to the 2024-11-05
 * HTTP+SSE transport: the Client sees one Channel whatever the server turns out to be.
 *
 * - Modern (2026-07-28; a request whose `_meta` names its protocol version): every request is its
 *   own POST carrying `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*`
 *   headers its tool's `x-mcp-header` annotations ask for (learned from the `tools/list` results
 *   passing through, which lose any tool whose annotations break the rules). The answer is JSON or
 *   an event stream; cancelling a request closes its stream (nothing is POSTed).
 * - Legacy (after an `initialize` without that `_meta`): the session id and negotiated version go on
 *   every later request; notifications and responses are POSTed too; a standalone GET stream carries
 *   server-initiated messages; interrupted streams resume with `Last-Event-ID`; an expired session
 *   (404) is re-initialized transparently; close() DELETEs the session.
 * - Fallback: when `initialize` is refused with 400/404/405 and no JSON-RPC error (nothing speaks
 *   Streamable HTTP at the URL), the channel switches to HTTP+SSE and replays it there.
 *
 * What each endpoint turned out to speak is remembered (see era-store.ts): `preferredEra` lets the
 * client skip its probe, and a remembered HTTP+SSE server is reached without the failing POSTs.
 *
 * HTTP failures become JSON-RPC errors for the request that suffered them (see http-errors.ts), and
 * failures of notifications become error responses without id, reported by the engine.
 */
import type { Channel, ChannelSink, FrameInfo } from '../../../engine/channel.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../../protocol/errors.js';
import type { JsonRpcErrorObject, Params, RequestId } from '../../../protocol/jsonrpc.js';
import { encodeHeaderValue } from '../../../protocol/mcp-headers.js';
import { META } from '../../../protocol/meta.js';
import { methodSpec } from '../../../protocol/methods.js';
import type { Era } from '../../../protocol/revisions.js';
import { isPlainObject } from '../../../util/guards.js';
import { Cancellation } from './cancellation.js';
import { defaultHttpEraStore, endpointKey, type HttpEra, type HttpEraStore } from './era-store.js';
import {
  isEventStream,
  keepStreamOpen,
  type OpenStream,
  ok,
  openEventStream,
  postForAnswer,
} from './event-streams.js';
import type { ResponseLike } from './fetch-like.js';
import { answers, frameInfoOf, type Json } from './frame-info.js';
import {
  badResponseError,
  describeCause,
  errorResponse,
  httpStatusError,
  networkError,
  rpcErrorIn,
} from './http-errors.js';
import { type HttpClientChannelOptions, HttpIo, sleep } from './options.js';
import { SseClientChannel } from './sse-channel.js';
import { messageData, readEventStream } from './sse-reader.js';
import { ToolHeaderIndex } from './tool-headers.js';

/** Which transport to speak: find out (default), Streamable HTTP only, or HTTP+SSE only. */
export type HttpTransportChoice = 'auto' | 'streamable' | 'sse';

export interface StreamableHttpClientChannelOptions extends HttpClientChannelOptions {
  transport?: HttpTransportChoice;
  /**
   * Where to read and record what the endpoint speaks: `true` (default) the process-wide
   * `defaultHttpEraStore`, `false` nowhere, or a store of your own.
   */
  rememberEra?: boolean | HttpEraStore;
  /** Legacy sessions: open the standalone GET event stream for server-initiated messages. Default true. */
  standaloneStream?: boolean;
}

const ACCEPT = 'application/json, text/event-stream';
/** What a session id may contain (visible ASCII, 0x21-0x7E). */
const SESSION_ID = /^[\x21-\x7e]+$/;
/** How long a response stream may stay open after carrying its answer. */
const LINGER_AFTER_ANSWER_MS = 1000;
/** Longest wait of a request for the GET stream to open (a server may hold back its headers). */
const STREAM_WAIT_MS = 1000;
/** Pages of `tools/list` walked to find a tool after a HeaderMismatch. */
const MAX_RELIST_PAGES = 20;

type RequestInfo = Extract<FrameInfo, { kind: 'request' }>;

/**
 * One request on its way: its POST, the response stream that should carry its answer, and its
 * cancellation (by the client, by close(), or after the answer when the stream lingers).
 */
class Exchange extends Cancellation {
  answered = false;
  /** `initialize` only: the session id the server assigned with its answer. */
  sessionId: string | undefined = undefined;
  /** Legacy streams: where to resume, and how long the server asked us to wait first. */
  lastEventId: string | undefined = undefined;
  retryMs: number | undefined = undefined;

  constructor(
    readonly info: RequestInfo,
    readonly frame: string,
    /** The request's modern protocol version; undefined for a legacy (or pre-handshake) request. */
    readonly modern: string | undefined,
  ) {
    super();
  }
}

/** A legacy (initialize-based) session with the server. */
interface LegacySession {
  sessionId: string | undefined;
  protocolVersion: string;
  /** Replayed when the server forgets the session (404). */
  readonly initialize: { readonly frame: string; readonly id: RequestId };
  initialized: string | undefined;
  /** The standalone GET stream, while it runs. */
  stream: AbortController | undefined;
  /**
   * Until the GET stream has its first answer (open, refused or failed), or for at most
   * STREAM_WAIT_MS: a promise requests wait for; undefined after. Requests wait for it: a server may send requests that concern no request of ours
   * (the official SDKs' `server.request`) only on that stream, and drop them while it is not open, so
   * a request racing ahead of the GET could wait forever for an answer that needs one of those.
   */
  ready: Promise<void> | undefined;
}

export class StreamableHttpClientChannel implements Channel {
  readonly #io: HttpIo;
  readonly #options: StreamableHttpClientChannelOptions;
  readonly #transport: HttpTransportChoice;
  readonly #key: string;
  readonly #eras: HttpEraStore | undefined;
  #sink: ChannelSink | undefined;
  #finished = false;
  #closing: Promise<void> | undefined;
  /** Requests awaiting their answer, by JSON-RPC id. */
  readonly #inflight = new Map<RequestId, Exchange>();
  /** Other exchanges in flight (notifications, internal calls), aborted on close. */
  readonly #others = new Set<AbortController>();
  readonly #tools = new ToolHeaderIndex();
  #legacy: LegacySession | undefined;
  /** A re-initialization in progress: legacy sends wait for it. */
  #reinit: Promise<boolean> | undefined;
  #modernConfirmed = false;
  /** Whether the server ever answered at the HTTP level (see #request). */
  #reached = false;
  #lastModernVersion: string | undefined;
  #internalIds = 0;
  /** The HTTP+SSE channel everything is delegated to, after the fallback. */
  #sse: SseClientChannel | undefined;
  /** Frames handed to the HTTP+SSE channel before it connected: replayed or failed if it does not. */
  #sseBacklog: [string, FrameInfo][] | undefined;
  #sseInitializeId: RequestId | undefined;

  constructor(url: string | URL, options: StreamableHttpClientChannelOptions = {}) {
    this.#io = new HttpIo(url, options, 'StreamableHttpClientChannel');
    this.#options = options;
    this.#transport = options.transport ?? 'auto';
    this.#key = endpointKey(this.#io.url);
    const remember = options.rememberEra ?? true;
    this.#eras = remember === true ? defaultHttpEraStore : remember === false ? undefined : remember;
  }

  get label(): string {
    return this.#sse ? this.#sse.label : `HTTP ${this.#io.display}`;
  }

  /** What this endpoint spoke last time (or `legacy` when pinned to HTTP+SSE). */
  get preferredEra(): Era | undefined {
    if (this.#transport === 'sse') return 'legacy';
    const era = this.#recall();
    return era === undefined ? undefined : era === 'modern' ? 'modern' : 'legacy';
  }

  /** The transport in use now: `sse` once the channel moved to (or was pinned to) HTTP+SSE. */
  get activeTransport(): 'streamable' | 'sse' {
    return this.#sse ? 'sse' : 'streamable';
  }

  /** The legacy session id, while a session is open. */
  get sessionId(): string | undefined {
    return this.#legacy?.sessionId;
  }

  start(sink: ChannelSink): void {
    if (this.#sink) return;
    this.#sink = sink;
    this.#io.adopt(sink.logger);
    if (this.#finished) queueMicrotask(() => sink.closed());
    else if (this.#transport === 'sse') this.#useSse([], 'pinned');
  }

  send(frame: string, info?: FrameInfo): void {
    if (this.#finished) return;
    info ??= frameInfoOf(frame);
    if (this.#sse) {
      if (info.kind === 'request' && info.method === 'initialize') this.#sseInitializeId = info.id;
      this.#sseBacklog?.push([frame, info]);
      this.#sse.send(frame, info);
      return;
    }
    switch (info.kind) {
      case 'request':
        if (info.method === 'initialize' && this.#recall() === 'sse') {
          this.#useSse([[frame, info]], 'remembered');
          return;
        }
        void this.#request(frame, info);
        return;
      case 'notification':
        if (info.method === 'notifications/cancelled') {
          this.#inflight.get(info.params?.requestId as RequestId)?.abort();
          // Modern: closing the response stream is the cancellation; there is nothing to POST.
          if (!this.#legacy) return;
        } else if (info.method === 'notifications/initialized' && this.#legacy) {
          const legacy = this.#legacy;
          legacy.initialized = frame;
          // The GET stream opens once the server acknowledged this (see #post); #listen replaces `ready`.
          const acknowledged: Promise<void> = this.#post(frame, info).then(() => {
            if (legacy.ready !== acknowledged) return legacy.ready;
            legacy.ready = undefined;
          });
          legacy.ready = acknowledged;
          return;
        }
        void this.#post(frame, info);
        return;
      default:
        // Modern clients send no responses (servers send them no requests); legacy ones POST them.
        if (this.#legacy) void this.#post(frame, info);
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  // --- requests ------------------------------------------------------------------------------

  async #request(frame: string, info: RequestInfo): Promise<void> {
    const exchange = new Exchange(info, frame, modernVersionOf(info.params));
    this.#inflight.set(info.id, exchange);
    try {
      await this.#exchange(exchange);
    } catch (error) {
      // Aborted: cancelled by the client, or the channel closed. Either way nobody awaits an answer.
      if (!exchange.aborted && !exchange.answered) {
        const failure = networkError('POST to', this.#io.url, error);
        if (!this.#reached) {
          // Nothing ever answered here: the connection could not be made (refused, DNS, TLS), as
          // when a stdio server cannot be spawned. Close with that, rather than letting the
          // handshake read it as a server refusing the protocol.
          this.#finish(new SwitchboardError('TRANSPORT', failure.message, { cause: error }));
          return;
        }
        this.#deliver(errorResponse(info.id, failure), exchange);
      }
    } finally {
      if (this.#inflight.get(info.id) === exchange) this.#inflight.delete(info.id);
    }
  }

  async #exchange(exchange: Exchange): Promise<void> {
    const { info } = exchange;
    let reinitialized = false;
    let relisted = false;
    for (;;) {
      if (!exchange.modern) {
        if (this.#reinit) await this.#reinit;
        // Undefined once the GET stream has answered: no await (and no microtask) per request then.
        const ready = this.#legacy?.ready;
        if (ready) await ready;
      }
      const headers = this.#io.fixedHeaders() ?? (await this.#io.headers());
      this.#addProtocolHeaders(headers, info, exchange.modern);
      const response = await this.#io.fetchCancellable(
        this.#io.href,
        'POST',
        headers,
        exchange.frame,
        exchange,
      );
      this.#reached = true;
      // Awaited: an async function returning a promise as it is takes two more microtasks.
      if (ok(response.status)) return await this.#readAnswer(response, exchange);

      const body = await this.#io.text(response);
      const rpc = rpcErrorIn(body);
      const session = headers['mcp-session-id'];
      if (response.status === 404 && session !== undefined && !reinitialized) {
        // The server forgot the session: start a new one, as the stored handshake did, and retry.
        reinitialized = true;
        if (await this.#reinitialize(session)) continue;
      }
      if (
        rpc?.code === ErrorCode.HeaderMismatch &&
        exchange.modern &&
        info.method === 'tools/call' &&
        !relisted
      ) {
        // Our idea of the tool's x-mcp-header arguments is missing or stale: re-list, then retry.
        relisted = true;
        if (await this.#relist(exchange)) continue;
      }
      const failure =
        rpc ??
        httpStatusError({
          method: 'POST',
          url: this.#io.url,
          status: response.status,
          statusText: response.statusText,
          body,
          wwwAuthenticate: response.headers.get('www-authenticate'),
        });
      if (
        // A JSON-RPC error body means a Streamable HTTP server refused the request, except with
        // 405: an MCP endpoint always takes POST (a Switchboard server's /sse answers so).
        (!rpc || response.status === 405) &&
        info.method === 'initialize' &&
        this.#transport === 'auto' &&
        notStreamable(response.status)
      ) {
        // Neither the modern probe nor initialize found Streamable HTTP here: try HTTP+SSE.
        this.#inflight.delete(info.id);
        this.#useSse([[exchange.frame, info]], 'fallback', failure);
        return;
      }
      this.#deliver(errorResponse(info.id, failure), exchange);
      return;
    }
  }

  #addProtocolHeaders(headers: Record<string, string>, info: FrameInfo, modern: string | undefined): void {
    headers.accept = ACCEPT;
    headers['content-type'] = 'application/json';
    if (modern !== undefined) {
      headers['mcp-protocol-version'] = modern;
      if (info.kind !== 'request') return;
      headers['mcp-method'] = info.method;
      const field = methodSpec(info.method)?.nameParam;
      const name = field === undefined ? undefined : info.params?.[field];
      if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
      if (info.method === 'tools/call' && typeof name === 'string') {
        this.#tools.addHeaders(name, info.params?.arguments, headers);
      }
      return;
    }
    this.#addSessionHeaders(headers);
  }

  /** Legacy: the session id (when the server assigned one) and the negotiated version. */
  #addSessionHeaders(headers: Record<string, string>): void {
    const legacy = this.#legacy;
    if (!legacy) return;
    if (legacy.sessionId !== undefined) headers['mcp-session-id'] = legacy.sessionId;
    headers['mcp-protocol-version'] = legacy.protocolVersion;
  }

  /** Reads a 2xx answer to a request: one JSON body, or an event stream. */
  async #readAnswer(response: ResponseLike, exchange: Exchange): Promise<void> {
    const { info } = exchange;
    if (info.method === 'initialize' && !exchange.modern) exchange.sessionId = this.#sessionIdOf(response);
    if (isEventStream(response)) return this.#readStream(response, exchange);
    let text: string;
    try {
      text = await this.#io.text(response);
    } catch (error) {
      if (!(error instanceof SwitchboardError && error.code === 'MESSAGE_TOO_LARGE')) throw error;
      const problem = `answered '${info.method}' with a body too large to take: ${error.message}`;
      this.#deliver(errorResponse(info.id, badResponseError(this.#io.url, problem)), exchange);
      return;
    }
    if (text === '') {
      const problem = `accepted '${info.method}' (HTTP ${response.status}) without answering it.`;
      this.#deliver(errorResponse(info.id, badResponseError(this.#io.url, problem)), exchange);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const problem = `answered '${info.method}' with a body that is not JSON (${(error as Error).message}).`;
      this.#deliver(errorResponse(info.id, badResponseError(this.#io.url, problem)), exchange);
      return;
    }
    this.#deliver(value, exchange);
    if (!exchange.answered) {
      const problem = `answered '${info.method}' (id ${JSON.stringify(info.id)}) with JSON that is not its response.`;
      this.#deliver(errorResponse(info.id, badResponseError(this.#io.url, problem)), exchange);
    }
  }

  /**
   * Reads a request's event stream until its answer. A legacy stream that ends early after giving
   * an event id is resumed with GET + `Last-Event-ID` (the 2025-11-25 server may close it on
   * purpose: "SSE polling"), waiting as long as its `retry` field asked.
   */
  async #readStream(response: ResponseLike, exchange: Exchange): Promise<void> {
    // The answer should end the stream; a server that keeps it open gets a moment, then is hung up on.
    let linger: ReturnType<typeof setTimeout> | undefined;
    const handlers = {
      event: (event: { id?: string | undefined; event?: string | undefined; data: string }) => {
        if (event.id !== undefined) exchange.lastEventId = event.id;
        const data = messageData(event);
        if (data !== undefined) {
          this.#receive(data, exchange);
          if (exchange.answered && linger === undefined) {
            linger = setTimeout(() => exchange.abort(), LINGER_AFTER_ANSWER_MS);
          }
        }
      },
      retry: (ms: number) => {
        exchange.retryMs = ms;
      },
    };
    let stream: ResponseLike | undefined = response;
    let release: (() => void) | undefined;
    let failures = 0;
    while (stream) {
      let broken: unknown;
      try {
        await readEventStream(stream.body, handlers, this.#io.maxMessageBytes);
      } catch (error) {
        if (exchange.aborted) throw error;
        broken = error;
      } finally {
        release?.();
        clearTimeout(linger);
      }
      if (exchange.answered) return;
      const resumable = !exchange.modern && this.#legacy !== undefined && exchange.lastEventId !== undefined;
      stream = undefined;
      while (resumable && !stream && failures < this.#io.reconnect.maxAttempts) {
        failures++;
        // Resuming is rare: only here does the exchange need an AbortSignal.
        await sleep(this.#io.backoff(failures, exchange.retryMs), exchange.signal);
        if (exchange.aborted) return;
        const resumed = await this.#resume(exchange.lastEventId!, exchange.signal);
        if (resumed) {
          ({ response: stream, release } = resumed);
          failures = 0;
        }
      }
      if (!stream) {
        const why = broken === undefined ? 'it ended' : `it broke (${describeCause(broken)})`;
        const problem = `sent no answer to '${exchange.info.method}' on its event stream before ${why}.`;
        this.#deliver(errorResponse(exchange.info.id, badResponseError(this.#io.url, problem)), exchange);
      }
    }
  }

  /** GET + `Last-Event-ID`: the rest of an interrupted stream, or undefined if the server will not. */
  async #resume(lastEventId: string, signal: AbortSignal): Promise<OpenStream | undefined> {
    try {
      const headers = await this.#io.headers();
      this.#addSessionHeaders(headers);
      headers['last-event-id'] = lastEventId;
      const opened = await openEventStream(this.#io, headers, signal);
      if (ok(opened.response.status) && isEventStream(opened.response)) return opened;
      opened.release();
      await this.#io.text(opened.response).catch(() => undefined);
    } catch {
      // Retried by the caller until its attempts run out.
    }
    return undefined;
  }

  /** Decodes one event's data and delivers it. */
  #receive(data: string, exchange: Exchange | undefined): void {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      this.#sink?.malformed(
        new ProtocolError(
          ErrorCode.ParseError,
          `The server at ${this.#io.display} sent an event that is not JSON: ${(error as Error).message}`,
        ),
      );
      return;
    }
    this.#deliver(value, exchange);
  }

  /** Hands a message to the engine, learning from it first when it answers `exchange`. */
  #deliver(value: unknown, exchange: Exchange | undefined): void {
    if (this.#finished) return;
    if (exchange && !exchange.answered && answers(value, exchange.info.id)) {
      exchange.answered = true;
      const result = (value as { result?: unknown }).result;
      if (isPlainObject(result)) this.#learn(exchange, result);
    }
    this.#sink?.message(value);
  }

  #learn(exchange: Exchange, result: Json): void {
    if (exchange.modern !== undefined) {
      this.#lastModernVersion = exchange.modern;
      if (!this.#modernConfirmed) {
        this.#modernConfirmed = true;
        this.#remember('modern');
      }
      if (exchange.info.method === 'tools/list') {
        for (const warning of this.#tools.learn(result)) this.#io.warn(warning);
      }
    } else if (exchange.info.method === 'initialize' && typeof result.protocolVersion === 'string') {
      // Set before the engine sees the result, so `notifications/initialized` already carries the session.
      this.#legacy = {
        sessionId: exchange.sessionId,
        protocolVersion: result.protocolVersion,
        initialize: { frame: exchange.frame, id: exchange.info.id },
        initialized: undefined,
        stream: undefined,
        ready: undefined,
      };
      this.#remember('streamable-legacy');
    }
  }

  // --- notifications and responses -----------------------------------------------------------

  /** POSTs a notification, a response or a batch of responses; the server acknowledges with 202. */
  async #post(frame: string, info: FrameInfo): Promise<void> {
    const controller = new AbortController();
    this.#others.add(controller);
    const release = await this.#io.postSlot();
    // Closed while this waited for its turn: nothing to send.
    if (controller.signal.aborted || this.#finished) {
      release();
      this.#others.delete(controller);
      return;
    }
    const timer = setTimeout(() => controller.abort(), this.#io.connectTimeoutMs);
    try {
      if (this.#reinit && this.#legacy) await this.#reinit;
      const headers = await this.#io.headers();
      const modern =
        info.kind === 'notification' && !this.#legacy
          ? (modernVersionOf(info.params) ?? this.#lastModernVersion)
          : undefined;
      this.#addProtocolHeaders(headers, info, modern);
      const response = await this.#io.fetch(this.#io.href, {
        method: 'POST',
        headers,
        body: frame,
        signal: controller.signal,
      });
      const body = await this.#io.text(response);
      if (ok(response.status)) {
        if (info.kind === 'notification' && info.method === 'notifications/initialized') this.#listen();
        return;
      }
      this.#deliver(
        errorResponse(
          null,
          rpcErrorIn(body) ??
            httpStatusError({
              method: 'POST',
              url: this.#io.url,
              status: response.status,
              statusText: response.statusText,
              body,
              wwwAuthenticate: response.headers.get('www-authenticate'),
            }),
        ),
        undefined,
      );
    } catch (error) {
      if (this.#finished) return;
      const why = controller.signal.aborted
        ? new Error(`no acknowledgement within ${this.#io.connectTimeoutMs} ms`)
        : error;
      this.#deliver(errorResponse(null, networkError('POST to', this.#io.url, why)), undefined);
    } finally {
      clearTimeout(timer);
      release();
      this.#others.delete(controller);
    }
  }

  // --- legacy sessions -----------------------------------------------------------------------

  /** Opens the standalone GET stream of the current session (once), unless disabled; see `ready`. */
  #listen(): void {
    const legacy = this.#legacy;
    if (!legacy || legacy.stream || this.#options.standaloneStream === false || this.#finished) return;
    const controller = new AbortController();
    legacy.stream = controller;
    const headers = async () => {
      const h = await this.#io.headers();
      this.#addSessionHeaders(h);
      return h;
    };
    let settled!: () => void;
    const ready = new Promise<void>((resolve) => {
      const timer = setTimeout(() => settled(), STREAM_WAIT_MS);
      settled = () => {
        clearTimeout(timer);
        // Requests stop waiting (and stop awaiting anything) once the stream has answered.
        if (legacy.ready === ready) legacy.ready = undefined;
        resolve();
      };
    });
    legacy.ready = ready;
    const receive = (data: string) => this.#receive(data, undefined);
    const session = legacy.sessionId;
    void keepStreamOpen(this.#io, headers, receive, controller.signal, settled).then((end) => {
      if (legacy.stream === controller) legacy.stream = undefined;
      // The server restarted or expired the session while only this stream was listening: start a
      // new one now rather than at the next request, so server-initiated messages keep arriving.
      if (end === 'forgotten' && session !== undefined && !this.#finished) void this.#reinitialize(session);
    });
  }

  /** The session id a response assigns, if it is usable: the spec allows visible ASCII only. */
  #sessionIdOf(response: ResponseLike): string | undefined {
    const id = response.headers.get('mcp-session-id') ?? undefined;
    if (id === undefined || SESSION_ID.test(id)) return id;
    this.#io.warn(
      `The server at ${this.#io.display} assigned a session id that is not visible ASCII; ignoring it.`,
    );
    return undefined;
  }

  /** Starts a new session after the server forgot `stale`; concurrent callers share one attempt. */
  #reinitialize(stale: string): Promise<boolean> {
    const legacy = this.#legacy;
    if (!legacy) return Promise.resolve(false);
    if (legacy.sessionId !== stale) return Promise.resolve(true);
    this.#reinit ??= this.#runReinitialize(legacy).finally(() => {
      this.#reinit = undefined;
    });
    return this.#reinit;
  }

  async #runReinitialize(legacy: LegacySession): Promise<boolean> {
    legacy.stream?.abort();
    legacy.stream = undefined;
    const { frame, id } = legacy.initialize;
    try {
      const headers = await this.#io.headers();
      headers.accept = ACCEPT;
      headers['content-type'] = 'application/json';
      const { response, message } = await this.#call(frame, id, headers);
      const result = message.result;
      if (!isPlainObject(result) || typeof result.protocolVersion !== 'string') {
        throw new Error(
          isPlainObject(message.error) ? String(message.error.message) : 'no initialize result',
        );
      }
      legacy.sessionId = this.#sessionIdOf(response);
      legacy.protocolVersion = result.protocolVersion;
      if (legacy.initialized !== undefined) {
        const next = await this.#io.headers();
        next.accept = ACCEPT;
        next['content-type'] = 'application/json';
        this.#addSessionHeaders(next);
        const ack = await this.#io.fetch(this.#io.href, {
          method: 'POST',
          headers: next,
          body: legacy.initialized,
          signal: AbortSignal.timeout(this.#io.connectTimeoutMs),
        });
        await this.#io.text(ack);
        if (!ok(ack.status)) throw new Error(`notifications/initialized was refused with HTTP ${ack.status}`);
      }
      this.#listen();
      await legacy.ready;
      // The owner sets up again what the old session held (its requests wait for this attempt's end).
      if (!this.#finished) this.#sink?.renewed?.();
      return true;
    } catch (error) {
      if (!this.#finished) {
        this.#io.warn(
          `The server at ${this.#io.display} ended the session and starting a new one failed: ${describeCause(error)}.`,
        );
      }
      return false;
    }
  }

  /**
   * After a HeaderMismatch on `tools/call`: lists the tools again (with the call's own protocol
   * envelope) until the called tool shows up, learning its `x-mcp-header` arguments. True when it did.
   */
  async #relist(exchange: Exchange): Promise<boolean> {
    const params = exchange.info.params ?? {};
    const name = params.name;
    const meta = params._meta;
    if (typeof name !== 'string' || !isPlainObject(meta)) return false;
    const envelope: Json = {};
    for (const key of [META.protocolVersion, META.clientCapabilities, META.clientInfo]) {
      if (key in meta) envelope[key] = meta[key];
    }
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_RELIST_PAGES; page++) {
        const id = `switchboard-http-${++this.#internalIds}`;
        const listParams: Params = cursor === undefined ? { _meta: envelope } : { cursor, _meta: envelope };
        const info: RequestInfo = { kind: 'request', id, method: 'tools/list', params: listParams };
        const headers = await this.#io.headers();
        this.#addProtocolHeaders(headers, info, exchange.modern);
        const frame = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: listParams });
        const { message } = await this.#call(frame, id, headers);
        const result = message.result;
        if (!isPlainObject(result) || !Array.isArray(result.tools)) return false;
        for (const warning of this.#tools.learn(result)) this.#io.warn(warning);
        if (result.tools.some((tool) => isPlainObject(tool) && tool.name === name)) return true;
        if (typeof result.nextCursor !== 'string') return false;
        cursor = result.nextCursor;
      }
    } catch {
      // The original HeaderMismatch is reported instead.
    }
    return false;
  }

  /** A request of the channel's own (not the engine's), bounded by the connect timeout and by close(). */
  async #call(
    frame: string,
    id: RequestId,
    headers: Record<string, string>,
  ): Promise<{ response: ResponseLike; message: Json }> {
    const controller = new AbortController();
    this.#others.add(controller);
    const timer = setTimeout(() => controller.abort(), this.#io.connectTimeoutMs);
    try {
      return await postForAnswer(this.#io, frame, id, headers, controller);
    } finally {
      clearTimeout(timer);
      this.#others.delete(controller);
    }
  }

  // --- HTTP+SSE fallback ---------------------------------------------------------------------

  /**
   * Switches to HTTP+SSE and hands it `backlog`. Why decides what a failure to connect means:
   * `fallback` (initialize found no Streamable HTTP): fail the backlog's requests with both reasons;
   * `remembered` (the endpoint spoke HTTP+SSE before): forget that and send the backlog by POST after
   * all; `pinned` (transport: 'sse'): the channel closes.
   */
  #useSse(
    backlog: [string, FrameInfo][],
    why: 'fallback' | 'remembered' | 'pinned',
    postFailure?: JsonRpcErrorObject,
  ): void {
    const sse = new SseClientChannel(this.#io.url, this.#options);
    let connected = false;
    this.#sse = sse;
    this.#sseBacklog = why === 'pinned' ? undefined : [];
    sse.start({
      message: (value) => {
        if (this.#sse !== sse) return;
        if (this.#sseInitializeId !== undefined && answers(value, this.#sseInitializeId)) {
          this.#sseInitializeId = undefined;
          if (isPlainObject((value as Json).result)) this.#remember('sse');
        }
        this.#sink?.message(value);
      },
      malformed: (error) => this.#sink?.malformed(error),
      closed: (error) => {
        if (this.#sse === sse && (connected || why === 'pinned')) this.#finish(error);
      },
      logger: this.#sink?.logger,
    });
    for (const [frame, info] of backlog) this.send(frame, info);
    sse.connected.then(
      () => {
        connected = true;
        if (this.#sse === sse) this.#sseBacklog = undefined;
      },
      (error: Error) => {
        if (this.#sse !== sse || this.#finished || why === 'pinned') return;
        const pending = this.#sseBacklog ?? [];
        this.#sse = undefined;
        this.#sseBacklog = undefined;
        if (why === 'remembered') {
          this.#forget();
          for (const [frame, info] of pending) this.send(frame, info);
          return;
        }
        for (const [, info] of pending) {
          if (info.kind !== 'request') continue;
          const message = `${postFailure?.message ?? `Streamable HTTP failed at ${this.#io.display}.`} The HTTP+SSE fallback failed too: ${error.message}`;
          this.#deliver(
            errorResponse(info.id, { code: ErrorCode.InternalError, message, data: postFailure?.data }),
            undefined,
          );
        }
      },
    );
  }

  // --- era memory and shutdown ---------------------------------------------------------------

  #recall(): HttpEra | undefined {
    const era = this.#eras?.get(this.#key);
    return era === 'sse' && this.#transport === 'streamable' ? undefined : era;
  }

  #remember(era: HttpEra): void {
    this.#eras?.set(this.#key, era);
  }

  #forget(): void {
    this.#eras?.delete(this.#key);
  }

  async #shutdown(): Promise<void> {
    const legacy = this.#legacy;
    const sse = this.#sse;
    this.#abortAll();
    if (sse) await sse.close();
    if (legacy?.sessionId !== undefined) await this.#deleteSession();
    this.#finish(undefined);
  }

  /** DELETE ends the session on the server; 405 (not supported) and failures change nothing. */
  async #deleteSession(): Promise<void> {
    try {
      const headers = await this.#io.headers();
      this.#addSessionHeaders(headers);
      const response = await this.#io.fetch(this.#io.href, {
        method: 'DELETE',
        headers,
        signal: AbortSignal.timeout(this.#io.connectTimeoutMs),
      });
      await this.#io.text(response);
    } catch {
      // The session will expire on its own.
    }
  }

  #abortAll(): void {
    this.#finished = true;
    for (const exchange of this.#inflight.values()) exchange.abort();
    this.#inflight.clear();
    for (const controller of this.#others) controller.abort();
    this.#others.clear();
    this.#legacy?.stream?.abort();
  }

  #finish(error: Error | undefined): void {
    this.#abortAll();
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.closed(error);
  }
}

/** What `initialize` failing with no JSON-RPC error says about the URL: nothing serves Streamable HTTP. */
const notStreamable = (status: number) => status === 400 || status === 404 || status === 405;

function modernVersionOf(params: Params | undefined): string | undefined {
  const meta = params?._meta;
  if (!isPlainObject(meta)) return undefined;
  const version = meta[META.protocolVersion];
  return typeof version === 'string' ? version : undefined;
}

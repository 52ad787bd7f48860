/**
 * Options shared by the HTTP client channels, and the small I/O core both build on: the URL,
 * `fetch`, the headers every request carries (static, or computed per request), timeouts and
 * warnings.
 */
import { SwitchboardError } from '../../../protocol/errors.js';
import type { Logger } from '../../../util/logger.js';
import { readText } from './body.js';
import type { Cancellation } from './cancellation.js';
import type { FetchLike, RequestInitLike, ResponseLike } from './fetch-like.js';
import { displayUrl } from './http-errors.js';

/** Extra request headers: fixed, or computed for every request (e.g. a signature or a trace id). */
export type HeadersSource =
  | Record<string, string>
  | Headers
  | readonly (readonly [string, string])[]
  | (() => Record<string, string> | Headers | Promise<Record<string, string> | Headers>);

/** How a dropped event stream is re-opened. The server's SSE `retry` field overrides the delay. */
export interface ReconnectOptions {
  /** Delay before the first reconnection attempt. Default 1000 ms. */
  initialDelayMs?: number;
  /** Upper bound of the exponential backoff. Default 30 s. */
  maxDelayMs?: number;
  /**
   * Consecutive failed attempts before giving up on a stream the server refuses (an HTTP error), or,
   * for a server that cannot be reached, before slowing to one attempt every `maxDelayMs`. Default 5.
   */
  maxAttempts?: number;
}

export interface HttpClientChannelOptions {
  /** The `fetch` to use. Default: the global one. */
  fetch?: FetchLike;
  /** Headers added to every request. The channel's own protocol headers take precedence. */
  headers?: HeadersSource;
  /**
   * An OAuth access token sent as `Authorization: Bearer <token>` on every request (never in the
   * URL), or a function returning the current one (called per request, so it can refresh).
   */
  bearerToken?: string | (() => string | undefined | Promise<string | undefined>);
  /** Passed through to every `fetch` call (e.g. `credentials`, `redirect`, or undici's `dispatcher`). */
  requestInit?: Omit<RequestInit, 'method' | 'headers' | 'body' | 'signal'>;
  /**
   * How long opening an event stream (and, on HTTP+SSE, receiving its `endpoint` event) or getting a
   * notification acknowledged may take. Requests are bounded by the client's own timeouts. Default 10 s.
   */
  connectTimeoutMs?: number;
  reconnect?: ReconnectOptions;
  /**
   * Largest message accepted: an SSE event, in characters, and any response body read whole (a JSON
   * answer, an error page), in bytes; past it the call fails with MESSAGE_TOO_LARGE. Default 32 Mi.
   */
  maxMessageBytes?: number;
  /**
   * Most POSTs of notifications and responses in flight at once (the answers to a server's requests,
   * above all); more wait their turn, in order. A server that sends thousands of requests inside one
   * call so gets its answers over a few reused connections, whatever the fetch. Default 16.
   */
  maxConcurrentPosts?: number;
  /**
   * Where problems go that fail no call (an invalid tool dropped, a stream given up): its `warn`.
   * Default: the logger of the Client this channel connects, if it was given one, else silent.
   */
  logger?: Logger;
  /** Told about the same problems instead of the logger (kept from before `logger`). */
  onwarning?: (message: string) => void;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_CONCURRENT_POSTS = 16;

/** The parts of the options every exchange needs, resolved once. */
export class HttpIo {
  readonly url: URL;
  readonly href: string;
  /** The URL as shown in labels and messages (no query, no fragment). */
  readonly display: string;
  readonly connectTimeoutMs: number;
  readonly maxMessageBytes: number;
  readonly reconnect: Required<ReconnectOptions>;
  readonly #fetch: FetchLike;
  readonly #options: HttpClientChannelOptions;
  /** The headers when neither they nor the token are computed per request. */
  readonly #fixed: Record<string, string> | undefined;
  /** The owner's logger, adopted when the channel starts (see `adopt`). */
  #inherited: Logger | undefined;
  readonly #maxPosts: number;
  #posting = 0;
  /** POSTs waiting for one in flight to end (see `postSlot`). */
  readonly #waiting: (() => void)[] = [];

  constructor(url: string | URL, options: HttpClientChannelOptions, channel: string) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new SwitchboardError(
        'CONFIG',
        `${channel}: ${JSON.stringify(String(url))} is not an absolute URL.`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new SwitchboardError(
        'CONFIG',
        `${channel} needs an http: or https: URL, not ${parsed.protocol}.`,
      );
    }
    parsed.hash = '';
    if (options.fetch === undefined && typeof globalThis.fetch !== 'function') {
      throw new SwitchboardError(
        'CONFIG',
        `${channel}: this runtime has no global fetch; pass one as \`fetch\`.`,
      );
    }
    // Called unbound: browsers reject a fetch invoked with some other object as `this`.
    const fetchImpl: FetchLike = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.url = parsed;
    this.href = parsed.href;
    this.display = displayUrl(parsed);
    this.#fetch = fetchImpl;
    this.#options = options;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#maxPosts = options.maxConcurrentPosts ?? DEFAULT_MAX_CONCURRENT_POSTS;
    if (!Number.isInteger(this.#maxPosts) || this.#maxPosts < 1) {
      throw new SwitchboardError(
        'CONFIG',
        `${channel}: maxConcurrentPosts must be a positive whole number, got ${String(options.maxConcurrentPosts)}.`,
      );
    }
    this.reconnect = {
      initialDelayMs: options.reconnect?.initialDelayMs ?? 1000,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
      maxAttempts: options.reconnect?.maxAttempts ?? 5,
    };
    const { headers, bearerToken } = options;
    this.#fixed =
      typeof headers === 'function' || typeof bearerToken === 'function'
        ? undefined
        : withToken(lowerCase(headers), bearerToken);
  }

  /**
   * A fresh copy of the headers every request carries when they are fixed (neither they nor the
   * token are computed per request), else undefined: the hot path need not await {@link headers}.
   */
  fixedHeaders(): Record<string, string> | undefined {
    return this.#fixed ? { ...this.#fixed } : undefined;
  }

  /** A fresh object with the headers every request carries (lower-case names). */
  async headers(): Promise<Record<string, string>> {
    if (this.#fixed) return { ...this.#fixed };
    const { headers, bearerToken } = this.#options;
    const extra = typeof headers === 'function' ? await headers() : headers;
    const token = typeof bearerToken === 'function' ? await bearerToken() : bearerToken;
    return withToken(lowerCase(extra), token);
  }

  /**
   * Waits for a turn to POST a notification or response (at most `maxConcurrentPosts` at once, in
   * the order asked); resolves with the function that ends the turn (call it exactly once).
   */
  async postSlot(): Promise<() => void> {
    if (this.#posting >= this.#maxPosts) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#posting++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // A fetch frees a kept-alive connection for the next request only after it has delivered the
      // response's end (undici: on a later tick): the turn passes on a task later, so the next POST
      // finds that connection free instead of opening another (3,000 answers once took 26, not 16).
      setTimeout(() => {
        const next = this.#waiting.shift();
        // Passed straight to the next in line, the turn stays counted in #posting.
        if (next) next();
        else this.#posting--;
      }, 0);
    };
  }

  /** A response's whole body as text, refused past {@link maxMessageBytes} (see body.ts). */
  text(response: ResponseLike): Promise<string> {
    return readText(response, this.maxMessageBytes);
  }

  fetch(url: string, init: RequestInitLike): Promise<ResponseLike> {
    const passthrough = this.#options.requestInit;
    const fetchImpl = this.#fetch;
    return fetchImpl(url, passthrough ? { ...passthrough, ...init } : init);
  }

  /**
   * `fetch` for a request that `cancel` may abort: it goes as `init.cancel`, and `init.signal` is
   * made only if the fetch reads it (see FetchCancel).
   */
  fetchCancellable(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    cancel: Cancellation,
  ): Promise<ResponseLike> {
    const fetchImpl = this.#fetch;
    return fetchImpl(url, {
      ...this.#options.requestInit,
      method,
      headers,
      body,
      cancel,
      get signal() {
        return cancel.signal;
      },
    });
  }

  /** Takes the logger of the Client this channel serves (used when the options name none). */
  adopt(logger: Logger | undefined): void {
    this.#inherited = logger;
  }

  warn(message: string): void {
    const { onwarning, logger } = this.#options;
    try {
      if (onwarning) onwarning(message);
      else (logger ?? this.#inherited)?.warn(message);
    } catch {
      // A throwing warning callback must not break the channel.
    }
  }

  /** The delay before reconnection attempt `attempt` (1-based), unless the server named one. */
  backoff(attempt: number, serverRetryMs: number | undefined): number {
    if (serverRetryMs !== undefined) return serverRetryMs;
    const { initialDelayMs, maxDelayMs } = this.reconnect;
    return Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt - 1));
  }
}

function lowerCase(source: Exclude<HeadersSource, () => unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (source === undefined) return out;
  const entries =
    source instanceof Headers || Array.isArray(source)
      ? (source as Iterable<readonly [string, string]>)
      : Object.entries(source as Record<string, string>);
  for (const [name, value] of entries) out[name.toLowerCase()] = value;
  return out;
}

function withToken(headers: Record<string, string>, token: string | undefined): Record<string, string> {
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

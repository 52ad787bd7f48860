/**
 * The handler core's view of one HTTP request and of its answer, independent of the runtime.
 *
 * `fetch(Request)` and the `node:http` adapter both translate into an {@link HttpExchange} and out of
 * an {@link HttpReply}. The Node adapter reads headers and the body straight from `IncomingMessage`
 * and writes the reply straight to `ServerResponse`, so the common JSON POST never pays for building
 * a WHATWG `Request`/`Response` pair.
 */
import type { AuthInfo, InboundExtra } from '../../../engine/channel.js';
import { ErrorCode } from '../../../protocol/errors.js';
import { errorFrame } from '../../../protocol/frames.js';
import type { RequestId } from '../../../protocol/jsonrpc.js';
import { formatBytes } from '../../../util/bytes.js';
import type { SseStream } from './sse.js';

/** The body of a request, read under a size cap. */
export type BodyRead =
  | { readonly kind: 'text'; readonly text: string }
  /** An upstream middleware (`express.json()`...) already parsed it. */
  | { readonly kind: 'parsed'; readonly value: unknown }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'failed'; readonly error: Error };

/** @internal One HTTP request as the handler core sees it. */
export interface HttpExchange {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The query string without `?`, or ''. */
  readonly query: string;
  /** A header by lower-case name; repeated headers joined with ', '. `host` falls back to HTTP/2's `:authority`. */
  header(name: string): string | undefined;
  /** Every header, lower-case names (built on demand, for handlers that ask). */
  headers(): Record<string, string>;
  /** Reads the whole body as text, or reports that it exceeds `maxBytes`. */
  readBody(maxBytes: number): Promise<BodyRead>;
  /** The local address the connection arrived on, when the adapter knows it. */
  readonly localAddress: string | undefined;
  /**
   * Credentials an upstream middleware verified (e.g. `req.auth` in Express); replaced by what the
   * handler's own `auth` option verified, when it has one.
   */
  auth: AuthInfo | undefined;
  /**
   * Calls `listener` once if the client goes away before the response is complete — also when it
   * already went away before this call.
   */
  onClientGone(listener: () => void): void;
}

/**
 * @internal The core's answer: a complete body, or an SSE stream the adapter pipes out. A reply
 * with a body owns its `headers` object (adapters may add `content-length` to it); a body-less or
 * stream reply may share it.
 */
export type HttpReply =
  | { readonly status: number; readonly headers: Record<string, string>; readonly body?: string }
  | { readonly status: number; readonly headers: Record<string, string>; readonly stream: SseStream };

/**
 * What the engine hands a handler about the request a message came with: verified credentials, and
 * the request headers as `transport.headers` (built only if a handler asks for them).
 *
 * A class, not an object literal with a `get transport()`: V8 allocates such a literal's accessor
 * pair in the old generation, where it holds the getter's closure, and through it the whole request
 * (exchange, `req`, `res`, their buffers), alive through every young-generation GC until the next
 * full one. On a legacy session, where each POST makes one, nearly every request was promoted and
 * the server's GC time doubled (docs/benchmarks.md).
 */
class ExchangeExtra implements InboundExtra {
  readonly auth: AuthInfo | undefined;
  #headers: Record<string, string> | undefined;

  constructor(private readonly exchange: HttpExchange) {
    this.auth = exchange.auth;
  }

  get transport(): { headers: Record<string, string> } {
    this.#headers ??= this.exchange.headers();
    return { headers: this.#headers };
  }
}

export const inboundExtra = (exchange: HttpExchange): InboundExtra => new ExchangeExtra(exchange);

export const isStreamReply = (reply: HttpReply): reply is Extract<HttpReply, { stream: SseStream }> =>
  'stream' in reply;

const JSON_TYPE = 'application/json';

export function jsonReply(status: number, body: string, headers?: Record<string, string>): HttpReply {
  return {
    status,
    headers: headers ? { 'content-type': JSON_TYPE, ...headers } : { 'content-type': JSON_TYPE },
    body,
  };
}

/**
 * An HTTP error with a JSON-RPC error body that says what went wrong and what to do. `code` is
 * -32600 unless the spec names another one for the situation.
 */
export function errorReply(
  status: number,
  message: string,
  options: { code?: number; id?: RequestId | null; data?: unknown; headers?: Record<string, string> } = {},
): HttpReply {
  const error =
    options.data === undefined
      ? { code: options.code ?? ErrorCode.InvalidRequest, message }
      : { code: options.code ?? ErrorCode.InvalidRequest, message, data: options.data };
  return jsonReply(status, errorFrame(options.id ?? null, error), options.headers);
}

/** The 500 for an error nobody expected while serving a request (a bug): its message, code -32603. */
export function internalErrorReply(error: unknown): HttpReply {
  return errorReply(500, `Internal error while serving the request: ${(error as Error)?.message ?? error}`, {
    code: ErrorCode.InternalError,
  });
}

/**
 * 503 for a POST to a session whose client does not read the session's event streams: the message
 * is not taken in (its answer would only pile up).
 */
export function congestedReply(buffered: number, headers?: Record<string, string>): HttpReply {
  return errorReply(
    503,
    `Service Unavailable: this session's client is not reading its event stream (${formatBytes(buffered)} waiting). Read the stream, then send this message again.`,
    { code: ErrorCode.InternalError, headers: { 'retry-after': '1', ...headers } },
  );
}

/** 202 Accepted, no body: a notification or response was taken in. */
export const acceptedReply = (headers?: Record<string, string>): HttpReply => ({
  status: 202,
  headers: headers ?? {},
});

/**
 * The HTTP status of a JSON-RPC error that ends a request before anything was streamed (2026-07-28
 * status table): unknown method → 404; header, version, capability, parse and envelope errors → 400;
 * everything else is an ordinary JSON-RPC error in a 200.
 */
export function statusForError(code: number): number {
  switch (code) {
    case ErrorCode.RateLimited:
      return 429;
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
    case ErrorCode.InvalidRequest:
    case ErrorCode.ParseError:
      return 400;
    default:
      return 200;
  }
}

/**
 * The headers of a rate-limited reply (draft SEP-3304): `Retry-After` in whole seconds, rounded up,
 * from the error's `data.retryAfterMs`, and `RateLimit-Limit` when the error says the limit.
 */
export function rateLimitHeaders(data: unknown): Record<string, string> {
  const { retryAfterMs, limit } = (typeof data === 'object' && data !== null ? data : {}) as {
    retryAfterMs?: unknown;
    limit?: unknown;
  };
  const headers: Record<string, string> = {};
  if (typeof retryAfterMs === 'number')
    headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  if (typeof limit === 'number') headers['ratelimit-limit'] = String(limit);
  return headers;
}

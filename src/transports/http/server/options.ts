/**
 * Options of {@link createHttpHandler}, and their defaults. Secure by default: loopback-only Host
 * and same-origin Origin checks, a 4 MiB body cap, bounded sessions and event buffers.
 */
import { SwitchboardError } from '../../../protocol/errors.js';
import { type Logger, withOnerror } from '../../../util/logger.js';
import type { HttpAuthenticator } from './authenticator.js';
import { type EventStore, MemoryEventStore } from './event-store.js';
import type { OriginPolicy } from './security.js';
import type { SessionStore } from './session-store.js';
import { DEFAULT_MAX_STREAM_BUFFER_BYTES } from './sse.js';

/**
 * How a request's reply is framed. `auto`: JSON when nothing is streamed before the response, an SSE
 * stream as soon as a notification must go first. `json`: always JSON (request-scoped notifications
 * such as progress and logs are dropped; legacy server→client requests go to the GET stream).
 * `sse`: always an SSE stream.
 */
export type ResponseMode = 'auto' | 'json' | 'sse';

export interface HttpHandlerOptions extends OriginPolicy {
  /** Path of the MCP endpoint (Streamable HTTP, both eras). Default `/mcp`. */
  endpoint?: string;
  /** Reply framing. Default `auto`. */
  responseMode?: ResponseMode;
  /** Largest request body in bytes; larger ones get 413. Default 4 MiB (4194304), the official SDKs' limit. */
  maxBodyBytes?: number;
  /** Serve legacy Streamable HTTP sessions (`initialize`, 2025-03-26 .. 2025-11-25). Default true. */
  legacySessions?: boolean;
  /**
   * Path of the legacy HTTP+SSE transport's stream (2024-11-05, deprecated), or false to turn that
   * transport off. Default `/sse`.
   */
  sseEndpoint?: string | false;
  /** Path the HTTP+SSE transport receives POSTs on (`?sessionId=` is appended). Default `/messages`. */
  messagesEndpoint?: string;
  /** Most legacy sessions open at once; a new one evicts the least recently used idle one. Default 10000. */
  maxSessions?: number;
  /** A legacy session with no open stream and no request for this long is closed. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /**
   * Where legacy sessions keep sent SSE events for `Last-Event-ID` resumption, or false for no
   * resumability (no event ids, no buffering while the GET stream is closed). Default: a bounded
   * {@link MemoryEventStore}.
   */
  eventStore?: EventStore | false;
  /**
   * Shares legacy Streamable HTTP sessions between the nodes of a cluster: their records live in the
   * store, so any node serves any session (see docs/scaling.md; `redisStores().http` has a Redis one
   * with the matching event store). Default: none, a session lives in the handler that created it.
   */
  sessionStore?: SessionStore;
  /** Reconnection delay sent in the `retry` field of 2025-11-25 priming events. Default 1000 ms. */
  retryMs?: number;
  /** Interval of `:` keep-alive comments on silent SSE streams; 0 turns them off. Default 15000 ms. */
  keepAliveMs?: number;
  /**
   * Most bytes one SSE stream may hold for a client that does not read it; past it the stream is
   * cut (an HTTP+SSE session then ends). From 1 MiB waiting, a session's POSTs get 503 until its
   * client reads. Default 8 MiB (8388608).
   */
  maxStreamBufferBytes?: number;
  /**
   * Where problems go that concern no single request (an event store failing, a stream cut): its
   * `error`. Default: the logger of the Server (silent unless it was given one).
   */
  logger?: Logger;
  /** Receives the same errors (kept from before `logger`; both are called when both are given). */
  onerror?: (error: Error) => void;
  /**
   * Makes the server an OAuth protected resource: `bearer({...})` from `switchboard/auth` checks
   * the token of every request, serves the Protected Resource Metadata, and refuses calls whose
   * scopes the token lacks (see docs/auth.md). Default: no authorization.
   */
  auth?: HttpAuthenticator;
}

export interface ResolvedOptions {
  readonly endpoint: string;
  readonly responseMode: ResponseMode;
  readonly maxBodyBytes: number;
  readonly legacySessions: boolean;
  readonly sseEndpoint: string | undefined;
  readonly messagesEndpoint: string;
  readonly maxSessions: number;
  readonly sessionIdleTimeoutMs: number;
  readonly eventStore: EventStore | undefined;
  readonly sessionStore: SessionStore | undefined;
  readonly retryMs: number;
  readonly keepAliveMs: number;
  readonly maxStreamBufferBytes: number;
  readonly policy: OriginPolicy;
  readonly onerror: (error: Error) => void;
  readonly auth: HttpAuthenticator | undefined;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new SwitchboardError(
      'CONFIG',
      `createHttpHandler: ${name} must be a positive number, got ${value}.`,
    );
  }
  return value;
}

function path(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.startsWith('/') || value.includes('?')) {
    throw new SwitchboardError(
      'CONFIG',
      `createHttpHandler: ${name} must be a path starting with "/" and without a query, got ${JSON.stringify(value)}.`,
    );
  }
  return value.length > 1 && value.endsWith('/') ? value.slice(0, -1) : value;
}

function checkAuth(auth: HttpAuthenticator | undefined): HttpAuthenticator | undefined {
  if (
    auth !== undefined &&
    (typeof auth !== 'object' ||
      auth === null ||
      typeof auth.authenticate !== 'function' ||
      typeof auth.authorize !== 'function' ||
      typeof auth.document !== 'function')
  ) {
    throw new SwitchboardError(
      'CONFIG',
      'createHttpHandler: auth must be made by bearer({...}) from switchboard/auth (or implement document, authenticate and authorize).',
    );
  }
  return auth;
}

/** The options checked, with their defaults; `serverLogger` is the served Server's. */
export function resolveOptions(options: HttpHandlerOptions, serverLogger: Logger): ResolvedOptions {
  const mode = options.responseMode ?? 'auto';
  if (mode !== 'auto' && mode !== 'json' && mode !== 'sse') {
    throw new SwitchboardError(
      'CONFIG',
      `createHttpHandler: responseMode must be 'auto', 'json' or 'sse', got ${JSON.stringify(mode)}.`,
    );
  }
  for (const key of ['allowedHosts', 'allowedOrigins'] as const) {
    const list = options[key];
    if (
      list !== undefined &&
      list !== 'any' &&
      !(Array.isArray(list) && list.every((v) => typeof v === 'string'))
    ) {
      throw new SwitchboardError('CONFIG', `createHttpHandler: ${key} must be an array of strings or 'any'.`);
    }
  }
  // Called as a method: a logger's `error` may need its `this`.
  const logger = withOnerror(options.logger, options.onerror, serverLogger);
  return {
    endpoint: path('endpoint', options.endpoint, '/mcp'),
    responseMode: mode,
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    legacySessions: options.legacySessions ?? true,
    sseEndpoint: options.sseEndpoint === false ? undefined : path('sseEndpoint', options.sseEndpoint, '/sse'),
    messagesEndpoint: path('messagesEndpoint', options.messagesEndpoint, '/messages'),
    maxSessions: positive('maxSessions', options.maxSessions, 10_000),
    sessionIdleTimeoutMs: positive('sessionIdleTimeoutMs', options.sessionIdleTimeoutMs, 30 * 60_000),
    eventStore: options.eventStore === false ? undefined : (options.eventStore ?? new MemoryEventStore()),
    sessionStore: options.sessionStore,
    retryMs: positive('retryMs', options.retryMs, 1000, true),
    keepAliveMs: positive('keepAliveMs', options.keepAliveMs, 15_000, true),
    maxStreamBufferBytes: positive(
      'maxStreamBufferBytes',
      options.maxStreamBufferBytes,
      DEFAULT_MAX_STREAM_BUFFER_BYTES,
    ),
    policy: { allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins },
    onerror: (error) => logger.error(error),
    auth: checkAuth(options.auth),
  };
}

/**
 * What a handler knows about the request it serves, and what it can do while serving it. The same
 * object in both eras: `progress`, `log` and `signal` behave identically whether the client spoke
 * `initialize` (legacy) or sent a 2026-07-28 `_meta` envelope (modern).
 */
import type { AuthInfo, InboundExtra } from '../engine/channel.js';
import { encodeProgressParams } from '../protocol/codec.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import { type Era, featuresOf, type Revision } from '../protocol/revisions.js';
import {
  type ClientCapabilities,
  type Implementation,
  LOGGING_LEVELS,
  type LoggingLevel,
  type Meta,
} from '../protocol/types.js';

/** How a request's context reaches the client: implemented by a connection or an HTTP response stream. */
export interface RequestLink {
  /** Sends a notification about this request (progress, log) if it is still live. */
  notify(method: string, params: Params): void;
  /** True once nothing more may be sent for this request (answered, cancelled, disconnected). */
  readonly finished: boolean;
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  readonly extra: InboundExtra | undefined;
  /** Legacy log level set with `logging/setLevel` on this connection. */
  readonly logLevel?: LoggingLevel | undefined;
  /** Records a legacy `logging/setLevel` for the connection. */
  setLogLevel?(level: LoggingLevel): void;
  /** The URIs this legacy connection subscribed to with `resources/subscribe` (absent outside a legacy session). */
  readonly resourceSubscriptions?: Set<string>;
  /**
   * Settles once this request's final response was handed to the transport (or the request was
   * cancelled): a server ending a `subscriptions/listen` stream waits for it before closing.
   */
  readonly settled?: Promise<void>;
  /**
   * Says that the server ended this long-lived request, after its final result went out. On a
   * channel every request shares (stdio, in-memory) that is `notifications/cancelled` naming the
   * request; a transport with a stream per request (HTTP) ends the stream instead and leaves this out.
   */
  announceEnd?(reason: string): void;
}

/** The client as this request describes it. */
export interface ClientView {
  readonly info: Implementation | undefined;
  readonly capabilities: ClientCapabilities;
}

const levelRank = (level: LoggingLevel): number => LOGGING_LEVELS.indexOf(level);

export class RequestContext {
  private lastProgress = Number.NEGATIVE_INFINITY;

  constructor(
    /** The method being served, e.g. `tools/call`. */
    readonly method: string,
    /** The JSON-RPC id of the request. */
    readonly requestId: RequestId | undefined,
    /** The protocol revision this request speaks. */
    readonly revision: Revision,
    readonly client: ClientView,
    /** The request's `_meta`, including the 2026-07-28 envelope keys. */
    readonly meta: Meta | undefined,
    /** @internal How this request reaches its client (the listen stream and subscriptions need it). */
    readonly link: RequestLink,
  ) {}

  get era(): Era {
    return featuresOf(this.revision).era;
  }

  /** Aborted when the client cancels this request or disconnects. Stop work and return. */
  get signal(): AbortSignal {
    return this.link.signal;
  }

  /** Credentials the transport verified for this request (HTTP with authorization). */
  get auth(): AuthInfo | undefined {
    return this.link.extra?.auth;
  }

  /**
   * Reports progress when the client asked for it (a `progressToken` in `_meta`); otherwise does
   * nothing. `progress` must increase with every call. Nothing is sent after the request finished.
   */
  progress(progress: number, total?: number, message?: string): void {
    const token = this.meta?.progressToken;
    if (token === undefined || this.link.finished) return;
    if (!(progress > this.lastProgress)) {
      throw new SwitchboardError(
        'CONFIG',
        `Progress must increase with every report: got ${progress} after ${this.lastProgress}.`,
      );
    }
    this.lastProgress = progress;
    const params: Params = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.link.notify('notifications/progress', encodeProgressParams(params, featuresOf(this.revision)));
  }

  /** @internal Applies `logging/setLevel` to the connection this request arrived on. */
  setLogLevel(level: LoggingLevel): void {
    this.link.setLogLevel?.(level);
  }

  /**
   * Sends a log message to the client if its level passes the client's threshold: the legacy
   * `logging/setLevel` level of the connection, or on 2026-07-28 the request's
   * `_meta["io.modelcontextprotocol/logLevel"]` (no level, no message).
   * @deprecated in 2026-07-28 together with MCP logging; still served for at least 12 months.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (this.link.finished) return;
    const threshold =
      this.era === 'modern'
        ? (this.meta?.[META.logLevel] as LoggingLevel | undefined)
        : (this.link.logLevel ?? 'debug');
    if (threshold === undefined || levelRank(level) < levelRank(threshold)) return;
    const params: Params = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.link.notify('notifications/message', params);
  }
}

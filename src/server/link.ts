/**
 * How a request being served reaches its client. Every transport gives `Server.serve` a
 * {@link RequestLink} per request: the few things every request has (notifications about it, its
 * cancellation, what the transport knows of it). What only a legacy connection has — a session made
 * by `initialize`, server→client requests, notifications not tied to the request — is one object of
 * its own, {@link LegacyLink}, absent on a 2026-07-28 HTTP request.
 *
 * Types only, imported by the connection, the context, input and the transports alike: nothing
 * here imports them back.
 */
import type { InboundExtra } from '../engine/channel.js';
import type { Cancellable } from '../engine/peer.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import type { LegacyRevision } from '../protocol/revisions.js';
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  ServerCapabilities,
} from '../protocol/types.js';

/**
 * A request as a transport hands it to `Server.serve`: the Peer's inbound request or a parsed
 * JSON-RPC request, as they are (no object is made for it).
 */
export interface ServedRequest {
  readonly method: string;
  readonly params?: Params | undefined;
  readonly id?: RequestId | undefined;
}

/** The client as a request describes it. */
export interface ClientView {
  readonly info: Implementation | undefined;
  readonly capabilities: ClientCapabilities;
}

/** State of a connection that completed the legacy `initialize` handshake. */
export interface LegacySession {
  /** Random, unguessable: what 2025-11-25 tasks are scoped to. */
  readonly id: string;
  readonly revision: LegacyRevision;
  readonly client: ClientView;
  /**
   * What initialize advertised. It stays the session's contract: `list_changed` goes out as promised
   * even after the last tool is removed, and the methods stay callable (answering an empty list).
   */
  readonly capabilities: ServerCapabilities;
  initialized: boolean;
  /** The threshold `logging/setLevel` set (undefined: everything is sent). */
  logLevel: LoggingLevel | undefined;
  /**
   * The URIs the client follows with `resources/subscribe`: made by the first request that
   * subscribes, as most sessions never do.
   */
  resourceSubscriptions: Set<string> | undefined;
  /**
   * The context of the latest request served in the session, kept where list filters or scopes
   * make lists differ per caller: a list change goes to the session only if it sees what changed.
   */
  viewer?: object;
}

/** One request's way to its client: implemented by a connection, an HTTP request, a running task. */
export interface RequestLink {
  /** Sends a notification about this request (progress, log) if it is still live. */
  notify(method: string, params: Params): void;
  /** True once nothing more may be sent for this request (answered, cancelled, disconnected). */
  readonly finished: boolean;
  /** Aborted when the client cancels or goes away. */
  readonly signal: AbortSignal;
  /**
   * The same as `signal` for a caller that only needs to be told (a gateway forwarding the request),
   * without the `AbortController` a signal costs (a connection's request, a 2026-07-28 HTTP call);
   * absent where the signal is already there.
   */
  readonly cancellable?: Cancellable;
  readonly extra: InboundExtra | undefined;
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
  /** The legacy session the request arrived in, and what it can reach there; absent outside one. */
  readonly legacy: LegacyLink | undefined;
}

/** What a request in a legacy session (stdio, in-memory, an HTTP session) reaches besides its answer. */
export interface LegacyLink {
  /** The session `initialize` opened: its revision, client, log level, subscriptions, id. */
  readonly session: LegacySession;
  /**
   * Sends a server→client request (elicitation, sampling, roots) on behalf of this request; HTTP
   * sends it on this request's stream.
   */
  request(
    method: string,
    params: Params | undefined,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Record<string, unknown>>;
  /**
   * Sends a notification on the connection, not tied to this request, even after it finished
   * (`notifications/elicitation/complete`). False once the connection closed.
   */
  notifyConnection(method: string, params: Params): boolean;
  /**
   * Whether a message sent on the connection (not on this request's stream) reaches the client now
   * (see `Channel.canPush`). Absent: it does.
   */
  canPush?(): boolean;
  /** Ends the connection carrying this request's stream, the request going on (see `ctx.closeSseStream`). */
  closeStream?(): boolean;
}

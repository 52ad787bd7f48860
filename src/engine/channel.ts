/**
 * A Channel moves serialized JSON-RPC frames between two peers. It is the only thing a transport
 * has to implement (stdio, in-memory, HTTP sessions...); everything above it is shared.
 *
 * Outbound frames are strings (the engine serializes once, and may splice cached JSON).
 * Inbound frames are delivered decoded (a JSON value: one message or a batch array), because each
 * transport already knows where a frame ends and can parse it in the same pass.
 */
import type { ProtocolError } from '../protocol/errors.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import type { Era } from '../protocol/revisions.js';
import type { Logger } from '../util/logger.js';

/** Per-message information a transport knows and a handler may want (HTTP auth, headers...). */
export interface InboundExtra {
  /** Verified credentials of the caller, when the transport authenticated the message. */
  readonly auth?: AuthInfo;
  /** Transport-specific details, e.g. the HTTP request headers. */
  readonly transport?: Record<string, unknown>;
  /**
   * The transport knows the value nests no deeper than `MAX_JSON_DEPTH` (its JSON text was too
   * short to, see `mayExceedDepth`): the engine skips its own walk of the value.
   */
  readonly shallow?: boolean;
}

/** Credentials a transport verified for the message (e.g. a bearer token). */
export interface AuthInfo {
  /** The access token itself. Never pass it to another service (the spec forbids token passthrough). */
  readonly token?: string;
  /** The OAuth client the token was issued to. */
  readonly clientId?: string;
  /** Who the token acts for (the `sub` claim). */
  readonly subject?: string;
  /** The authorization server that issued the token (its `iss`). */
  readonly issuer?: string;
  /** The scopes granted (with those they imply, when the server declares scope hierarchies). */
  readonly scopes?: readonly string[];
  /** When the token expires, in seconds since the epoch. */
  readonly expiresAt?: number;
  /** Anything else the verifier knows (for JWT access tokens: `claims`, every claim of the token). */
  readonly extra?: Record<string, unknown>;
}

/**
 * Who a message acts for, as a key: the issuer, subject and client of verified credentials, the
 * token itself when they name neither, null without credentials. Legacy HTTP sessions are bound to
 * it, and 2026-07-28 `requestState` and tasks to its digest.
 */
export function principalOf(auth: AuthInfo | undefined): string | null {
  if (!auth) return null;
  if (auth.subject !== undefined || auth.clientId !== undefined) {
    return `principal\n${auth.issuer ?? ''}\n${auth.subject ?? ''}\n${auth.clientId ?? ''}`;
  }
  return auth.token === undefined ? null : `token\n${auth.token}`;
}

export interface ChannelSink {
  /** One decoded JSON value: a single message or a batch array. */
  message(value: unknown, extra?: InboundExtra): void;
  /**
   * A frame that could not be decoded (bad JSON, over the size limit). `error` carries the code
   * the engine answers with (-32700 or -32600). The channel stays open.
   */
  malformed(error: ProtocolError): void;
  /** The channel closed. `error` says why when it was not a normal close. Called at most once. */
  closed(error?: Error): void;
  /**
   * The transport replaced its session with the peer by a new one it opened itself, and stays open
   * (legacy Streamable HTTP: the server forgot the session, 404, and the client channel initialized
   * again). What the old session held at the peer (a log level, resource subscriptions) is gone:
   * the owner sets it up again.
   */
  renewed?(): void;
  /**
   * The logger its owner (a Server or Client) was given, if any: where a channel without a logger
   * of its own reports what concerns no call (a slow peer, a dropped tool, a refused frame).
   */
  readonly logger?: Logger;
}

/**
 * What the engine knows about an outbound frame, passed along so a transport never has to re-parse
 * it (the HTTP client derives `Mcp-Method`/`Mcp-Name` headers from it and turns a cancellation into
 * closing the request's response stream).
 */
export type FrameInfo =
  | {
      readonly kind: 'request';
      readonly id: RequestId;
      readonly method: string;
      readonly params: Params | undefined;
      /** The inbound request this one is sent on behalf of (e.g. an elicitation during a tool call). */
      readonly relatedTo?: RequestId;
    }
  | {
      readonly kind: 'notification';
      readonly method: string;
      readonly params: Params | undefined;
      /** The inbound request this notification is about (progress, logs): HTTP sends it on that request's stream. */
      readonly relatedTo?: RequestId;
    }
  | { readonly kind: 'response'; readonly id: RequestId | null }
  /**
   * Several responses in one JSON-RPC batch array. `requestId`: the id of one request it answers,
   * when the engine knows it (so a transport can find where the batch came from without parsing).
   */
  | { readonly kind: 'batch'; readonly requestId?: RequestId };

export interface Channel {
  /** Starts delivering inbound frames to `sink`. Called once. */
  start(sink: ChannelSink): void;
  /** Queues one serialized frame. Never throws; a broken channel reports through `sink.closed`. */
  send(frame: string, info?: FrameInfo): void;
  /** Closes the channel, releasing every resource it holds (streams, child processes). Idempotent. */
  close(): Promise<void>;
  /** A short human-readable label for error messages, e.g. `stdio: node server.js (pid 4242)`. */
  readonly label?: string;
  /**
   * The era the channel expects the server to speak, when it knows (e.g. remembered from an earlier
   * connection to the same HTTP endpoint). `auto` negotiation then skips the probe of the other era.
   */
  readonly preferredEra?: Era;
  /**
   * Transports that carry each request's messages on a stream of its own, resumable (legacy
   * Streamable HTTP with an event store, 2025-11-25): ends the connection carrying request `id`'s
   * stream without ending the request. The client reconnects with `Last-Event-ID` and gets the rest
   * (SEP-1699 polling). Returns false when this channel cannot (absent: never).
   */
  closeRequestStream?(id: RequestId): boolean;
  /**
   * Whether a message that belongs to no request in flight (sent on its own, or about a request
   * already answered) reaches the peer now. Absent: always (stdio, in-memory). A legacy HTTP session
   * does only while its GET stream is open; until then such messages wait in its event store for a
   * GET that may never come, so a server with another way to reach the client takes that instead.
   */
  canPush?(): boolean;
  /**
   * The id of the first request the peer sends on this channel (default 1). A legacy HTTP session
   * served by several nodes gives each node its own range, so that a client's answer, wherever it
   * arrives, names the node whose request it answers.
   */
  readonly firstRequestId?: number;
}

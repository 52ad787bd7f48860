/**
 * One long-lived connection to a client (stdio, in-memory, a legacy HTTP session): a Peer plus the
 * era state the spec scopes to a connection — the legacy handshake, its negotiated revision, the
 * log level. Modern (2026-07-28) requests carry their own state and pass straight through.
 */
import type { Channel, InboundExtra } from '../engine/channel.js';
import { type Cancellable, type InboundRequest, Peer, type PeerHandlers } from '../engine/peer.js';
import { hasModernEnvelope } from '../protocol/envelope.js';
import { ErrorCode, invalidRequest, ProtocolError } from '../protocol/errors.js';
import type { JsonRpcNotification, Params } from '../protocol/jsonrpc.js';
import { type Deferred, deferred } from '../util/deferred.js';
import type { Logger } from '../util/logger.js';
import type { RequestContext } from './context.js';
import type { LegacyLink, LegacySession, RequestLink, ServedRequest } from './link.js';
import {
  type Audience,
  legacyWants,
  type NotificationHub,
  type NotificationSubscriber,
} from './notifications.js';

const EMPTY: Params = Object.freeze({}) as Params;

/**
 * What a connection needs of its server (`ServerCore` is one): named here so that the connection
 * does not import the server that imports it.
 */
export interface ConnectionHost {
  readonly notifications: NotificationHub;
  readonly configuredLogger: Logger | undefined;
  readonly maxBatchLength: number;
  serve(request: ServedRequest, link: RequestLink): Promise<unknown>;
  initialize(params: Params, link?: RequestLink): { result: unknown; session: LegacySession };
  reportError(error: Error): void;
  detach(connection: ServerConnection): void;
  emit(event: 'rootsListChanged', payload: { connection: ServerConnection }): void;
}

/**
 * The side channel of one inbound request on a connection. Once the connection has a legacy
 * session it is also the request's {@link LegacyLink} (one object per request, not two).
 */
class PeerRequestLink implements RequestLink, LegacyLink {
  constructor(
    readonly connection: ServerConnection,
    private readonly inbound: InboundRequest,
  ) {}
  notify(method: string, params: Params): void {
    if (!this.finished) this.connection.peer.notify(method, params, this.inbound.id);
  }
  request(
    method: string,
    params: Params | undefined,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<Record<string, unknown>> {
    return this.connection.peer.request(method, params, { ...options, relatedTo: this.inbound.id });
  }
  notifyConnection(method: string, params: Params): boolean {
    const { peer } = this.connection;
    if (peer.closed) return false;
    peer.notify(method, params);
    return true;
  }
  canPush(): boolean {
    return this.connection.peer.canPush();
  }
  get finished(): boolean {
    return this.inbound.done || this.inbound.cancelled;
  }
  closeStream(): boolean {
    return !this.finished && this.connection.peer.closeRequestStream(this.inbound.id);
  }
  get signal(): AbortSignal {
    return this.inbound.signal;
  }
  get cancellable(): Cancellable {
    return this.inbound;
  }
  get extra(): InboundExtra | undefined {
    return this.inbound.extra;
  }
  get legacy(): LegacyLink | undefined {
    return this.connection.session ? this : undefined;
  }
  get session(): LegacySession {
    return this.connection.session as LegacySession;
  }
  get settled(): Promise<void> {
    return this.inbound.settled;
  }
  /** Every request shares this channel, so only a cancellation tells the client its stream ended. */
  announceEnd(reason: string): void {
    this.connection.peer.notify('notifications/cancelled', { requestId: this.inbound.id, reason });
  }
}

/**
 * The peer's callbacks into its connection: one small object per connection, where five closures
 * (and their contexts) were kept for as long as the connection lives.
 */
class ConnectionHandlers implements PeerHandlers {
  constructor(private readonly connection: ServerConnection) {}

  request(request: InboundRequest): unknown {
    return this.connection.onRequest(request);
  }

  notification(notification: JsonRpcNotification): void {
    this.connection.onNotification(notification);
  }

  batch(length: number): true | string {
    return this.connection.batchVerdict(length);
  }

  error(error: Error): void {
    this.connection.server.reportError(error);
  }

  closed(): void {
    this.connection.onClosed();
  }
}

export class ServerConnection implements NotificationSubscriber {
  /** @internal */
  readonly peer: Peer;
  private legacy: LegacySession | undefined;
  #isClosed = false;
  /** Closed by {@link release}: the session goes on elsewhere. */
  #released = false;
  /** Made when someone waits for the close (see {@link closed}). */
  #whenClosed: Deferred | undefined;

  constructor(
    /** @internal */
    readonly server: ConnectionHost,
    channel: Channel,
  ) {
    server.notifications.add(this);
    this.peer = new Peer(channel, new ConnectionHandlers(this), {
      logger: server.configuredLogger,
      firstRequestId: channel.firstRequestId,
    });
  }

  /** Settles once the connection has closed, for whatever reason. */
  get closed(): Promise<void> {
    if (this.#isClosed) return Promise.resolve();
    this.#whenClosed ??= deferred();
    return this.#whenClosed.promise;
  }

  /** The legacy session, once `initialize` succeeded on this connection. */
  get session(): LegacySession | undefined {
    return this.legacy;
  }

  /** True when {@link release} closed this connection: its session did not end. */
  get released(): boolean {
    return this.#released;
  }

  /**
   * Gives this connection a legacy session made elsewhere: a legacy HTTP session served by several
   * nodes, rebuilt on this one from its shared record (or made shareable after initialize).
   */
  restore(session: LegacySession): void {
    this.legacy = session;
  }

  /**
   * Whether the server's change notifications reach this connection (they do from the start): off
   * on the nodes of a cluster that do not hold the session's stream, as the holder sends them.
   */
  follow(changes: boolean): void {
    if (this.#isClosed) return;
    if (changes) this.server.notifications.add(this);
    else this.server.notifications.remove(this);
  }

  /**
   * Closes this connection without ending its legacy session, which goes on on other nodes (a
   * replica no longer used here): no `sessionClosed` listener hears of it.
   */
  release(): Promise<void> {
    this.#released = true;
    return this.close();
  }

  /** @internal */
  start(): void {
    this.peer.start();
  }

  /** Ends this connection's listen streams gracefully (see `Server.close`), then closes it. */
  async close(): Promise<void> {
    await this.server.notifications.endListens(
      (link) => link instanceof PeerRequestLink && link.connection === this,
    );
    await this.peer.close();
  }

  /** @internal The legacy era's change notifications: to a completed handshake, what it asked for. */
  deliver(method: string, params: Params | undefined, audience?: Audience): void {
    const session = this.legacy;
    if (!session?.initialized || !legacyWants(session, method, params)) return;
    // The session's viewer is the RequestContext the server keeps there (link.ts imports no context).
    if (audience && !audience(session.viewer as RequestContext | undefined)) return;
    this.peer.notify(method, params);
  }

  /** @internal The peer closed: the connection leaves the server. */
  onClosed(): void {
    this.server.notifications.remove(this);
    this.server.detach(this);
    this.#isClosed = true;
    this.#whenClosed?.resolve();
  }

  /** @internal */
  onRequest(request: InboundRequest): Promise<unknown> | unknown {
    const params = request.params ?? EMPTY;
    if (!hasModernEnvelope(params)) {
      if (request.method === 'initialize') return this.initialize(params, request);
      // The one request a legacy client may send before initializing.
      if (request.method === 'ping' && !this.legacy) return EMPTY;
    }
    return this.server.serve(request, new PeerRequestLink(this, request));
  }

  private initialize(params: Params, request: InboundRequest): unknown {
    if (this.legacy) {
      throw invalidRequest(
        `This connection is already initialized (protocol ${this.legacy.revision}); initialize may be sent only once per connection.`,
      );
    }
    const { result, session } = this.server.initialize(params, new PeerRequestLink(this, request));
    this.legacy = session;
    return result;
  }

  /** @internal */
  onNotification(notification: JsonRpcNotification): void {
    if (notification.method === 'notifications/roots/list_changed') {
      if (this.legacy) this.server.emit('rootsListChanged', { connection: this });
      return;
    }
    if (notification.method === 'notifications/initialized') {
      if (this.legacy) this.legacy.initialized = true;
      else
        this.server.reportError(
          new ProtocolError(ErrorCode.InvalidRequest, 'notifications/initialized arrived before initialize.'),
        );
    }
  }

  /** @internal */
  batchVerdict(length: number): true | string {
    if (this.legacy?.revision === '2025-03-26') {
      const max = this.server.maxBatchLength;
      if (length <= max) return true;
      return `This JSON-RPC batch holds ${length} messages; a batch may hold at most ${max} (the server's maxBatchLength). Split it into smaller batches.`;
    }
    return this.legacy
      ? `JSON-RPC batches are only allowed on protocol revision 2025-03-26; this connection negotiated ${this.legacy.revision}. Send messages one at a time.`
      : 'JSON-RPC batches are only allowed after initialize negotiated protocol revision 2025-03-26 (and initialize itself must not be batched). Send messages one at a time.';
  }
}

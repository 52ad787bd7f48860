/**
 * The legacy sessions of one handler (Streamable HTTP and HTTP+SSE alike), with their bounds: at
 * most `maxSessions` at once (a new session evicts the least recently used idle one, or is refused
 * with 503 when every session is busy), and an idle timeout after which a session with no open
 * stream and no request in flight is closed. Session ids are 128 random bits (hex).
 */
import type { ServerCore } from '../../../server/server.js';
import { randomHex } from '../../../util/random-id.js';
import type { ResolvedOptions } from './options.js';
import type { SessionStore } from './session-store.js';
import type { StreamPolicy } from './sse.js';

/** What a registered session offers the registry. */
export interface RegisteredSession {
  readonly kind: 'streamable' | 'sse';
  readonly id: string;
  readonly lastActive: number;
  /** The registry's clock at this session's last lookup (see {@link SessionRegistry.get}). */
  usedAt: number;
  /** A client is attached (an open stream, a request in flight): never evicted or timed out. */
  readonly busy: boolean;
  /**
   * Closes the session's connection, which closes its streams and unregisters it (a session shared
   * with other nodes goes on there).
   */
  terminate(): Promise<void>;
  /** Called now and then while the session is busy: a shared session keeps its record alive. */
  refresh?(): void;
}

/** How this handler shares its legacy sessions with the other nodes of a cluster (a `sessionStore`). */
export interface SharedScope {
  readonly store: SessionStore;
  /**
   * This node's number, random: the ids of the server→client requests and of the POST streams a
   * session sends from this node are in a range of their own ({@link requestIdBase}, {@link streamIdBase}).
   */
  readonly node: number;
}

/** A random node number, below 2^20 (see {@link SharedScope.node}). */
export const newNodeNumber = (): number => 1 + (Number.parseInt(randomHex(3), 16) % 0xfffff);
/** Server→client request ids of node `node`: from node × 2^32 + 1 (safe integers). */
export const requestIdBase = (node: number): number => node * 2 ** 32;
/** POST stream ids of node `node`: from node × 2^28 + 1 (event ids allow 15 digits). */
export const streamIdBase = (node: number): number => node * 2 ** 28;
/** The node that numbered POST stream `streamId`: its range. */
export const nodeOfStreamId = (streamId: number): number => Math.floor(streamId / 2 ** 28);
/** The node whose request a client's answer names: its id's range. */
export const nodeOfRequestId = (id: unknown): number | undefined =>
  typeof id === 'number' && Number.isSafeInteger(id) ? Math.floor(id / 2 ** 32) : undefined;

/** What every session of a handler shares. */
export interface SessionScope {
  readonly server: ServerCore;
  readonly options: ResolvedOptions;
  readonly streams: StreamPolicy;
  /** Present with a `sessionStore`: sessions are shared with the other nodes. */
  readonly shared: SharedScope | undefined;
  /** Called by a session once it closed, whatever the reason. */
  closed(session: RegisteredSession): void;
}

/** 128 bits from the platform's CSPRNG, as 32 hex characters (visible ASCII, as the spec requires). */
export const newSessionId = (): string => randomHex(16);

export class SessionRegistry {
  readonly #sessions = new Map<string, RegisteredSession>();
  /** Ticks once per lookup: orders sessions by last use (milliseconds would tie). */
  #clock = 0;
  readonly #maxSessions: number;
  readonly #idleTimeoutMs: number;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    maxSessions: number,
    idleTimeoutMs: number,
    private readonly onerror: (error: Error) => void,
  ) {
    this.#maxSessions = maxSessions;
    this.#idleTimeoutMs = idleTimeoutMs;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /**
   * The session with this id, marked as just used. A stamp rather than moving the entry to the end
   * of the Map: a delete + set per request rebuilt the Map's table every time, and the discarded
   * tables, once old, kept every request they had seen alive through the young-generation GC
   * (docs/benchmarks.md: half the legacy server's CPU overhead was that garbage).
   */
  get(id: string): RegisteredSession | undefined {
    const session = this.#sessions.get(id);
    if (session) session.usedAt = ++this.#clock;
    return session;
  }

  /** The session with this id, not marked as used (a message from another node). */
  peek(id: string): RegisteredSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Makes room for one more session, evicting the least recently used idle one when full (a scan,
   * only when full). Returns false when the registry is full of busy sessions.
   */
  reserve(): boolean {
    if (this.#sessions.size < this.#maxSessions) return true;
    let oldest: RegisteredSession | undefined;
    for (const session of this.#sessions.values()) {
      if (!session.busy && (oldest === undefined || session.usedAt < oldest.usedAt)) oldest = session;
    }
    if (oldest === undefined) return false;
    this.#evict(oldest);
    return this.#sessions.size < this.#maxSessions;
  }

  add(session: RegisteredSession): void {
    session.usedAt = ++this.#clock;
    this.#sessions.set(session.id, session);
    if (this.#sweeper === undefined) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.min(this.#idleTimeoutMs, 60_000));
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
  }

  remove(session: RegisteredSession): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
    if (this.#sessions.size === 0) this.#stopSweeper();
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    this.#stopSweeper();
    await Promise.all([...this.#sessions.values()].map((session) => session.terminate()));
  }

  #evict(session: RegisteredSession): void {
    // Unregister now (terminate finishes asynchronously), so the slot is free for the caller.
    this.#sessions.delete(session.id);
    session.terminate().catch(this.onerror);
  }

  #sweep(): void {
    const cutoff = Date.now() - this.#idleTimeoutMs;
    for (const session of [...this.#sessions.values()]) {
      if (session.busy) session.refresh?.();
      else if (session.lastActive <= cutoff) this.#evict(session);
    }
    if (this.#sessions.size === 0) this.#stopSweeper();
  }

  #stopSweeper(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

/**
 * The legacy sessions of one handler (Streamable HTTP and HTTP+SSE alike), with their bounds: at
 * most `maxSessions` at once (a new session evicts the least recently used idle one, or is refused
 * with 503 when every session is busy), and an idle timeout after which a session with no open
 * stream and no request in flight is closed. Session ids are 128 random bits (hex).
 */
import type { ServerCore } from '../../../server/server.js';
import { randomHex } from '../../../util/random-id.js';
import type { ResolvedOptions } from './options.js';
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
  /** Closes the session's connection, which closes its streams and unregisters it. */
  terminate(): Promise<void>;
}

/** What every session of a handler shares. */
export interface SessionScope {
  readonly server: ServerCore;
  readonly options: ResolvedOptions;
  readonly streams: StreamPolicy;
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
      if (!session.busy && session.lastActive <= cutoff) this.#evict(session);
    }
    if (this.#sessions.size === 0) this.#stopSweeper();
  }

  #stopSweeper(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}

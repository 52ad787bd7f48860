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
  /** In least-recently-used order: a lookup moves a session to the end. */
  readonly #sessions = new Map<string, RegisteredSession>();
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

  /** The session with this id, marked as just used. */
  get(id: string): RegisteredSession | undefined {
    const session = this.#sessions.get(id);
    if (session) {
      this.#sessions.delete(id);
      this.#sessions.set(id, session);
    }
    return session;
  }

  /**
   * Makes room for one more session, evicting the least recently used idle one when full.
   * Returns false when the registry is full of busy sessions.
   */
  reserve(): boolean {
    if (this.#sessions.size < this.#maxSessions) return true;
    for (const session of this.#sessions.values()) {
      if (!session.busy) {
        this.#evict(session);
        return this.#sessions.size < this.#maxSessions;
      }
    }
    return false;
  }

  add(session: RegisteredSession): void {
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

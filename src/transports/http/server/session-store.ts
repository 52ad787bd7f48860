/**
 * Legacy Streamable HTTP sessions shared between the nodes of a cluster. Without a store (the
 * default) a session lives in the handler that created it. With one, the session's record — what a
 * later request needs of the session: its revision, client, capabilities, log level, resource
 * subscriptions — is kept in the store, so a POST carrying `Mcp-Session-Id` can be served by any node:
 * the node rebuilds the session from the record (a replica) and keeps it while it is used.
 *
 * The store also carries the messages a session's replicas send each other: a changed record, the end
 * of the session (DELETE on any node), a client's answer to a server→client request that arrived at
 * another node than the one that asked, a frame for the standalone GET stream (held by one node), and
 * which node holds that stream now. `MemorySessionStore` shares sessions between handlers of one
 * process (tests, several handlers on one port); `switchboard/redis` has the Redis one.
 */

import type { LegacyRevision } from '../../../protocol/revisions.js';
import type { LoggingLevel, ServerCapabilities } from '../../../protocol/types.js';
import type { ClientView } from '../../../server/link.js';
import { positiveOption } from './event-store.js';

/** A legacy session as every node sees it. */
export interface SessionRecord {
  /** The session's own id (`LegacySession.id`, what 2025-11-25 tasks are scoped to). */
  readonly id: string;
  readonly revision: LegacyRevision;
  readonly client: ClientView;
  /** What initialize advertised: the session's contract. */
  readonly capabilities: ServerCapabilities;
  /** The principal that opened the session (`principalOf`), null without authorization. */
  readonly owner: string | null;
  readonly initialized: boolean;
  readonly logLevel: LoggingLevel | undefined;
  readonly resourceSubscriptions: readonly string[];
}

/** What the replicas of a session say to each other. */
export type SessionMessage =
  /** The record changed (log level, subscriptions, initialized). */
  | { readonly type: 'update'; readonly record: SessionRecord }
  /** The session ended (DELETE, or initialize failed): every replica closes. */
  | { readonly type: 'end' }
  /** A client's JSON-RPC response to a server→client request the node `to` sent. */
  | { readonly type: 'response'; readonly to: number; readonly message: unknown }
  /** A client's `notifications/cancelled`, for the node running the request it names. */
  | { readonly type: 'cancel'; readonly message: unknown }
  /** A frame for the standalone GET stream, for the node holding it. */
  | { readonly type: 'push'; readonly frame: string }
  /** The node `node` holds the standalone GET stream now: the others let go of it. */
  | { readonly type: 'held'; readonly node: number };

/** A message as delivered: the session it is about and the node that sent it. */
export interface SessionEnvelope {
  readonly session: string;
  readonly from: number;
  readonly message: SessionMessage;
}

export interface SessionStore {
  /** Keeps a new session's record. */
  create(sessionId: string, record: SessionRecord): Promise<void>;
  /** The record, its lifetime refreshed; undefined when the session is unknown, expired or ended. */
  load(sessionId: string): Promise<SessionRecord | undefined>;
  /** Refreshes the record's lifetime (a session in use); false when it is gone. */
  touch(sessionId: string): Promise<boolean>;
  /** Replaces the record (its lifetime refreshed), then tells the other nodes. */
  update(sessionId: string, record: SessionRecord, from: number): Promise<void>;
  /** Forgets the record, then tells every node the session ended. */
  delete(sessionId: string, from: number): Promise<void>;
  /** Tells the other nodes something about a session. Best effort: never throws. */
  publish(envelope: SessionEnvelope): void;
  /** Hears every node's messages (a node ignores its own by `from`); returns the unsubscribe. */
  subscribe(listener: (envelope: SessionEnvelope) => void): () => void;
  /**
   * Node `node` serves sessions until the returned function is called (its handler closed): it keeps
   * saying so, so that the others can tell when it died ({@link isAlive}).
   */
  join(node: number): () => void;
  /**
   * Whether node `node` is still serving: false once it left, or died (stopped saying it is alive).
   * Asked only when a client resumes a stream of another node that never sent its last answer.
   */
  isAlive(node: number): Promise<boolean>;
}

export interface MemorySessionStoreOptions {
  /** How long a record lives after its last use. Default 30 minutes. */
  readonly ttlMs?: number;
}

/** Sessions shared by the handlers of one process; records expire `ttlMs` after their last use. */
export class MemorySessionStore implements SessionStore {
  readonly #records = new Map<string, { record: SessionRecord; expires: number }>();
  readonly #listeners = new Set<(envelope: SessionEnvelope) => void>();
  readonly #nodes = new Set<number>();
  readonly #ttlMs: number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#ttlMs = positiveOption('MemorySessionStore', 'ttlMs', options.ttlMs, 30 * 60_000);
  }

  async create(sessionId: string, record: SessionRecord): Promise<void> {
    // Expired records are dropped when read; now and then, also those nobody reads again.
    if (this.#records.size % 1024 === 1023) for (const id of [...this.#records.keys()]) this.#live(id);
    this.#records.set(sessionId, { record, expires: Date.now() + this.#ttlMs });
  }

  async load(sessionId: string): Promise<SessionRecord | undefined> {
    return this.#live(sessionId)?.record;
  }

  async touch(sessionId: string): Promise<boolean> {
    return this.#live(sessionId) !== undefined;
  }

  async update(sessionId: string, record: SessionRecord, from: number): Promise<void> {
    if (!this.#live(sessionId)) return;
    this.#records.set(sessionId, { record, expires: Date.now() + this.#ttlMs });
    this.publish({ session: sessionId, from, message: { type: 'update', record } });
  }

  async delete(sessionId: string, from: number): Promise<void> {
    this.#records.delete(sessionId);
    this.publish({ session: sessionId, from, message: { type: 'end' } });
  }

  publish(envelope: SessionEnvelope): void {
    // Asynchronous, as over a network: a listener never runs inside the sender's call.
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(envelope);
    });
  }

  subscribe(listener: (envelope: SessionEnvelope) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** In one process a node dies with the others: it is alive until it leaves. */
  join(node: number): () => void {
    this.#nodes.add(node);
    return () => this.#nodes.delete(node);
  }

  async isAlive(node: number): Promise<boolean> {
    return this.#nodes.has(node);
  }

  /** The live entry, its lifetime refreshed; an expired one is dropped. */
  #live(sessionId: string): { record: SessionRecord; expires: number } | undefined {
    const entry = this.#records.get(sessionId);
    if (!entry) return undefined;
    const now = Date.now();
    if (entry.expires <= now) {
      this.#records.delete(sessionId);
      return undefined;
    }
    entry.expires = now + this.#ttlMs;
    return entry;
  }
}

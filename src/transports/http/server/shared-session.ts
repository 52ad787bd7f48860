/**
 * The legacy session of a replica (see session-store.ts): the `LegacySession` the server's handlers
 * read and change, made from the shared record. A change (`logging/setLevel`, `resources/subscribe`,
 * `notifications/initialized`) calls `changed`, which saves the record for the other nodes; a record
 * another node changed is applied without calling it.
 */
import type { LegacyRevision } from '../../../protocol/revisions.js';
import type { LoggingLevel, ServerCapabilities } from '../../../protocol/types.js';
import type { ClientView, LegacySession } from '../../../server/link.js';
import type { SessionRecord } from './session-store.js';

/** A Set that says when it changes. */
class WatchedSet extends Set<string> {
  constructor(
    values: Iterable<string>,
    private readonly changed: () => void,
  ) {
    super();
    for (const value of values) super.add(value);
  }
  override add(value: string): this {
    if (!this.has(value)) {
      super.add(value);
      this.changed();
    }
    return this;
  }
  override delete(value: string): boolean {
    const deleted = super.delete(value);
    if (deleted) this.changed();
    return deleted;
  }
  override clear(): void {
    if (this.size === 0) return;
    super.clear();
    this.changed();
  }
}

export class SharedLegacySession implements LegacySession {
  readonly id: string;
  readonly revision: LegacyRevision;
  readonly client: ClientView;
  readonly capabilities: ServerCapabilities;
  readonly owner: string | null;
  #initialized: boolean;
  #logLevel: LoggingLevel | undefined;
  #subscriptions: WatchedSet | undefined;

  constructor(
    record: SessionRecord,
    private readonly changed: () => void,
  ) {
    this.id = record.id;
    this.revision = record.revision;
    this.client = record.client;
    this.capabilities = record.capabilities;
    this.owner = record.owner;
    this.#initialized = record.initialized;
    this.#logLevel = record.logLevel;
    this.#subscriptions = this.#watch(record.resourceSubscriptions);
  }

  /** The record for the store, as the session is now. */
  static recordOf(session: LegacySession, owner: string | null): SessionRecord {
    return {
      id: session.id,
      revision: session.revision,
      client: session.client,
      capabilities: session.capabilities,
      owner,
      initialized: session.initialized,
      logLevel: session.logLevel,
      resourceSubscriptions: session.resourceSubscriptions ? [...session.resourceSubscriptions] : [],
    };
  }

  get record(): SessionRecord {
    return SharedLegacySession.recordOf(this, this.owner);
  }

  /** Takes the changes another node made. */
  apply(record: SessionRecord): void {
    this.#initialized = record.initialized;
    this.#logLevel = record.logLevel;
    this.#subscriptions = this.#watch(record.resourceSubscriptions);
  }

  get initialized(): boolean {
    return this.#initialized;
  }
  set initialized(value: boolean) {
    if (value === this.#initialized) return;
    this.#initialized = value;
    this.changed();
  }

  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel;
  }
  set logLevel(value: LoggingLevel | undefined) {
    if (value === this.#logLevel) return;
    this.#logLevel = value;
    this.changed();
  }

  get resourceSubscriptions(): Set<string> | undefined {
    return this.#subscriptions;
  }
  set resourceSubscriptions(value: Set<string> | undefined) {
    this.#subscriptions = value === undefined ? undefined : new WatchedSet(value, this.changed);
    this.changed();
  }

  #watch(values: readonly string[]): WatchedSet | undefined {
    return values.length === 0 ? undefined : new WatchedSet(values, this.changed);
  }
}

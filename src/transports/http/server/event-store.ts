/**
 * Where legacy Streamable HTTP sessions (2025-03-26 .. 2025-11-25) keep the SSE events they sent, so
 * a client that lost a stream can resume it with `Last-Event-ID` and receive what it missed.
 *
 * Each session numbers its streams (0 is the standalone GET stream, 1.. are POST streams) and each
 * stream numbers its events; the SSE event id `<stream>-<seq>` carries both, so a `Last-Event-ID`
 * names the stream to resume (the spec: never replay events of another stream). A store only keeps
 * and returns events: implement it over a database to keep them out of the process's memory. (The
 * session itself stays in the handler that created it, so a client resumes on that process only.)
 */
import { SwitchboardError } from '../../../protocol/errors.js';

export interface StoredEvent {
  /**
   * Position in its stream, from 1. A shared session's POST stream also keeps a 0: its opening (the
   * ids of its requests, for another node to answer them if this one dies), never replayed.
   */
  readonly seq: number;
  /** The JSON-RPC message, serialized. */
  readonly data: string;
}

export interface Replay {
  readonly events: readonly StoredEvent[];
  readonly gap: boolean;
}

export interface EventStore {
  /** Keeps one event. Appends for one stream arrive in `seq` order. */
  append(sessionId: string, streamId: number, event: StoredEvent): void | Promise<void>;
  /**
   * The events of a stream with `seq > afterSeq` that are still kept, in order; `gap` says whether
   * some of them were already discarded (then the stream cannot be resumed without loss).
   */
  replay(sessionId: string, streamId: number, afterSeq: number): Replay | Promise<Replay>;
  /** Forgets every event of a session (it ended). */
  deleteSession(sessionId: string): void | Promise<void>;
}

export interface MemoryEventStoreOptions {
  /** Events kept per session; the oldest go first. Default 1000. */
  maxEventsPerSession?: number;
  /** Bytes of event data kept per session (UTF-16 length as a cheap proxy); the oldest go first. Default 4 MiB. */
  maxBytesPerSession?: number;
  /**
   * Bytes of event data kept over every session together (same measure); past it the oldest events
   * of any session go first. Default 64 MiB.
   */
  maxBytes?: number;
}

/** One kept event, listed both in its session (in order) and in the store (in order of arrival). */
interface Kept {
  readonly session: SessionEvents;
  readonly streamId: number;
  readonly seq: number;
  /** Emptied once the event is dropped, so a dead entry still listed holds no text. */
  data: string;
  /** False once dropped by its session's bounds or with its session. */
  live: boolean;
}

interface SessionEvents {
  events: Kept[];
  /** Index of the first live entry in `events` (dropped entries are compacted lazily). */
  head: number;
  bytes: number;
  /** Per stream, the highest seq discarded to stay within the bounds. */
  discardedThrough: Map<number, number>;
}

/**
 * A first-in-first-out list with O(1) removal at the head: entries before `head` are dropped and
 * compacted away once they make up half the array.
 */
function compact<T>(list: { events: T[]; head: number }): void {
  if (list.head > 64 && list.head * 2 > list.events.length) {
    list.events = list.events.slice(list.head);
    list.head = 0;
  }
}

/**
 * The default store: bounded, in this process's memory. Each session keeps at most
 * `maxEventsPerSession` events and `maxBytesPerSession` bytes, and all sessions together at most
 * `maxBytes`: 10 000 idle sessions cannot hold 4 MiB each.
 */
export class MemoryEventStore implements EventStore {
  readonly #sessions = new Map<string, SessionEvents>();
  readonly #maxEvents: number;
  readonly #maxSessionBytes: number;
  readonly #maxBytes: number;
  /** Every kept event of every session, in order of arrival (dead entries skipped lazily). */
  #all: { events: Kept[]; head: number } = { events: [], head: 0 };
  /** Dead entries still in `#all`: when they are half of it, it is rebuilt with the live ones. */
  #dead = 0;
  #bytes = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = positiveOption(
      'MemoryEventStore',
      'maxEventsPerSession',
      options.maxEventsPerSession,
      1000,
    );
    this.#maxSessionBytes = positiveOption(
      'MemoryEventStore',
      'maxBytesPerSession',
      options.maxBytesPerSession,
      4 * 1024 * 1024,
    );
    this.#maxBytes = positiveOption('MemoryEventStore', 'maxBytes', options.maxBytes, 64 * 1024 * 1024);
  }

  /** Bytes of event data kept now, over every session. */
  get bytes(): number {
    return this.#bytes;
  }

  append(sessionId: string, streamId: number, event: StoredEvent): void {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = { events: [], head: 0, bytes: 0, discardedThrough: new Map() };
      this.#sessions.set(sessionId, session);
    }
    const kept: Kept = { session, streamId, seq: event.seq, data: event.data, live: true };
    session.events.push(kept);
    session.bytes += kept.data.length;
    this.#all.events.push(kept);
    this.#bytes += kept.data.length;
    while (
      session.events.length - session.head > this.#maxEvents ||
      (session.bytes > this.#maxSessionBytes && session.events.length - session.head > 1)
    ) {
      this.#dropOldest(session);
    }
    compact(session);
    // Over the global budget: the oldest live events of any session go, never the one just kept.
    const all = this.#all;
    while (this.#bytes > this.#maxBytes && all.head < all.events.length - 1) {
      const oldest = all.events[all.head++]!;
      if (oldest.live) this.#dropOldest(oldest.session);
      this.#dead--;
    }
    // Dead entries behind a live one (an idle session's old event) are not reached by the head.
    if (this.#dead > 64 && this.#dead * 2 > all.events.length - all.head) {
      this.#all = { events: all.events.slice(all.head).filter((kept) => kept.live), head: 0 };
      this.#dead = 0;
    } else compact(all);
  }

  replay(sessionId: string, streamId: number, afterSeq: number): Replay {
    const session = this.#sessions.get(sessionId);
    if (!session) return { events: [], gap: false };
    const events: StoredEvent[] = [];
    for (let i = session.head; i < session.events.length; i++) {
      const event = session.events[i]!;
      if (event.streamId === streamId && event.seq > afterSeq)
        events.push({ seq: event.seq, data: event.data });
    }
    return { events, gap: (session.discardedThrough.get(streamId) ?? 0) > afterSeq };
  }

  deleteSession(sessionId: string): void {
    const session = this.#sessions.get(sessionId);
    if (!session) return;
    this.#sessions.delete(sessionId);
    for (let i = session.head; i < session.events.length; i++) this.#kill(session.events[i]!);
    this.#bytes -= session.bytes;
  }

  /** Drops a session's oldest live event (events leave a session in the order they came). */
  #dropOldest(session: SessionEvents): void {
    const dropped = session.events[session.head++]!;
    session.bytes -= dropped.data.length;
    this.#bytes -= dropped.data.length;
    session.discardedThrough.set(dropped.streamId, dropped.seq);
    this.#kill(dropped);
  }

  #kill(kept: Kept): void {
    kept.live = false;
    kept.data = '';
    this.#dead++;
  }
}

/** An event store's bound: `fallback` when not given, else a positive integer (CONFIG error otherwise). */
export function positiveOption(
  store: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new SwitchboardError(
      'CONFIG',
      `${store}: ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

/** `<stream>-<seq>` */
export const formatEventId = (streamId: number, seq: number): string => `${streamId}-${seq}`;

export function parseEventId(id: string): { streamId: number; seq: number } | undefined {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(id.trim());
  return match ? { streamId: Number(match[1]), seq: Number(match[2]) } : undefined;
}

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

export interface StoredEvent {
  /** Position in its stream, from 1. */
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
}

interface SessionEvents {
  events: { readonly streamId: number; readonly seq: number; readonly data: string }[];
  /** Index of the first live entry in `events` (dropped entries are compacted lazily). */
  head: number;
  bytes: number;
  /** Per stream, the highest seq discarded to stay within the bounds. */
  discardedThrough: Map<number, number>;
}

/** The default store: bounded, in this process's memory. */
export class MemoryEventStore implements EventStore {
  readonly #sessions = new Map<string, SessionEvents>();
  readonly #maxEvents: number;
  readonly #maxBytes: number;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.#maxEvents = options.maxEventsPerSession ?? 1000;
    this.#maxBytes = options.maxBytesPerSession ?? 4 * 1024 * 1024;
  }

  append(sessionId: string, streamId: number, event: StoredEvent): void {
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = { events: [], head: 0, bytes: 0, discardedThrough: new Map() };
      this.#sessions.set(sessionId, session);
    }
    session.events.push({ streamId, seq: event.seq, data: event.data });
    session.bytes += event.data.length;
    while (
      session.events.length - session.head > this.#maxEvents ||
      (session.bytes > this.#maxBytes && session.events.length - session.head > 1)
    ) {
      const dropped = session.events[session.head++]!;
      session.bytes -= dropped.data.length;
      session.discardedThrough.set(dropped.streamId, dropped.seq);
    }
    if (session.head > 64 && session.head * 2 > session.events.length) {
      session.events = session.events.slice(session.head);
      session.head = 0;
    }
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
    this.#sessions.delete(sessionId);
  }
}

/** `<stream>-<seq>` */
export const formatEventId = (streamId: number, seq: number): string => `${streamId}-${seq}`;

export function parseEventId(id: string): { streamId: number; seq: number } | undefined {
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(id.trim());
  return match ? { streamId: Number(match[1]), seq: Number(match[2]) } : undefined;
}

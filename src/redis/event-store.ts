/**
 * The HTTP event store in Redis: the SSE events of legacy Streamable HTTP sessions, for resuming a
 * stream with `Last-Event-ID`. One list per session (`<stream> <seq> <data>` entries, capped at
 * `maxEventsPerSession`, the oldest trimmed first) and one hash of the last seq appended per stream,
 * which tells a trimmed stream (a gap) from a finished one. An append is one pipelined round trip;
 * both keys expire `ttlMs` after the session's last event.
 */
import {
  type EventStore,
  positiveOption,
  type Replay,
  type StoredEvent,
} from '../transports/http/server/event-store.js';
import type { RedisConnection } from './connection.js';

export interface RedisEventStoreOptions {
  /** Events kept per session. Default 1000. */
  readonly maxEventsPerSession?: number;
  /** How long a session's events are kept after its last one. Default 1 hour. */
  readonly ttlMs?: number;
}

export class RedisEventStore implements EventStore {
  readonly #max: number;
  readonly #ttlMs: number;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisEventStoreOptions = {},
  ) {
    this.#max = positiveOption('RedisEventStore', 'maxEventsPerSession', options.maxEventsPerSession, 1000);
    this.#ttlMs = positiveOption('RedisEventStore', 'ttlMs', options.ttlMs, 3_600_000);
  }

  async append(sessionId: string, streamId: number, event: StoredEvent): Promise<void> {
    const list = this.connection.key(`e:${sessionId}`);
    const last = this.connection.key(`eh:${sessionId}`);
    await this.connection.guard(() =>
      this.connection.command
        .multi()
        .rpush(list, `${streamId} ${event.seq} ${event.data}`)
        .ltrim(list, -this.#max, -1)
        .hset(last, String(streamId), String(event.seq))
        .pexpire(list, this.#ttlMs)
        .pexpire(last, this.#ttlMs)
        .exec(),
    );
  }

  async replay(sessionId: string, streamId: number, afterSeq: number): Promise<Replay> {
    const results = await this.connection.guard(() =>
      this.connection.command
        .pipeline()
        .lrange(this.connection.key(`e:${sessionId}`), 0, -1)
        .hget(this.connection.key(`eh:${sessionId}`), String(streamId))
        .exec(),
    );
    const [listed, lastSeq] = (results ?? []).map(([error, value]) => {
      if (error) throw this.connection.unavailable(error);
      return value;
    }) as [string[], string | null];
    const events: StoredEvent[] = [];
    let first: number | undefined;
    for (const entry of listed ?? []) {
      const space1 = entry.indexOf(' ');
      const space2 = entry.indexOf(' ', space1 + 1);
      if (Number(entry.slice(0, space1)) !== streamId) continue;
      const seq = Number(entry.slice(space1 + 1, space2));
      first ??= seq;
      if (seq > afterSeq) events.push({ seq, data: entry.slice(space2 + 1) });
    }
    const last = lastSeq === null ? 0 : Number(lastSeq);
    // Events after afterSeq were sent but the oldest kept one is not the next: some were trimmed.
    const gap = last > afterSeq && (first ?? last + 1) > afterSeq + 1;
    return { events, gap };
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.connection.guard(() =>
      this.connection.command.del(
        this.connection.key(`e:${sessionId}`),
        this.connection.key(`eh:${sessionId}`),
      ),
    );
  }
}

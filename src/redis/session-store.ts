/**
 * Legacy Streamable HTTP sessions in Redis (see `transports/http/server/session-store.ts`): one JSON
 * string per session (`s:<id>`) that expires `ttlMs` after its last use, and the sessions' messages
 * on the shared channel (kind `session`). Round trips: loading a record and refreshing its lifetime
 * is one (GET and PEXPIRE pipelined), a refresh alone is one, a change is one (SET and PUBLISH
 * pipelined). Each node also keeps a key saying it is alive (`nl:<node>`, renewed every third of
 * `nodeLeaseMs`), read only when a client resumes a stream of another node that never ended.
 */

import { positiveOption } from '../transports/http/server/event-store.js';
import type {
  SessionEnvelope,
  SessionRecord,
  SessionStore,
} from '../transports/http/server/session-store.js';
import { isPlainObject } from '../util/guards.js';
import type { RedisConnection } from './connection.js';

export interface RedisSessionStoreOptions {
  /** How long a session's record lives after its last use. Default 30 minutes (as `sessionIdleTimeoutMs`). */
  readonly ttlMs?: number;
  /**
   * How long after its last sign of life a node is taken for dead (each node renews its key every
   * third of this). Default 10 s.
   */
  readonly nodeLeaseMs?: number;
}

/** The envelope on the wire: short keys, as every node parses every message. */
interface Wire {
  readonly s: string;
  readonly f: number;
  readonly m: SessionEnvelope['message'];
}

export class RedisSessionStore implements SessionStore {
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #listeners = new Set<(envelope: SessionEnvelope) => void>();

  constructor(
    private readonly connection: RedisConnection,
    options: RedisSessionStoreOptions = {},
  ) {
    this.#ttlMs = positiveOption('RedisSessionStore', 'ttlMs', options.ttlMs, 30 * 60_000);
    this.#leaseMs = positiveOption('RedisSessionStore', 'nodeLeaseMs', options.nodeLeaseMs, 10_000);
    connection.on('session', (body) => {
      if (!isPlainObject(body) || typeof body.s !== 'string' || !isPlainObject(body.m)) return;
      const envelope: SessionEnvelope = {
        session: body.s,
        from: Number(body.f),
        message: body.m as unknown as SessionEnvelope['message'],
      };
      for (const listener of this.#listeners) listener(envelope);
    });
  }

  #key(sessionId: string): string {
    return this.connection.key(`s:${sessionId}`);
  }

  #wire(envelope: SessionEnvelope): string {
    const wire: Wire = { s: envelope.session, f: envelope.from, m: envelope.message };
    return this.connection.message('session', wire);
  }

  async create(sessionId: string, record: SessionRecord): Promise<void> {
    await this.connection.guard(() =>
      this.connection.command.set(this.#key(sessionId), JSON.stringify(record), 'PX', this.#ttlMs),
    );
  }

  async load(sessionId: string): Promise<SessionRecord | undefined> {
    const key = this.#key(sessionId);
    const results = await this.connection.guard(() =>
      this.connection.command.pipeline().get(key).pexpire(key, this.#ttlMs).exec(),
    );
    const [error, text] = results?.[0] ?? [null, null];
    if (error) throw this.connection.unavailable(error);
    if (typeof text !== 'string') return undefined;
    try {
      return JSON.parse(text) as SessionRecord;
    } catch {
      return undefined;
    }
  }

  async touch(sessionId: string): Promise<boolean> {
    const refreshed = await this.connection.guard(() =>
      this.connection.command.pexpire(this.#key(sessionId), this.#ttlMs),
    );
    return refreshed === 1;
  }

  async update(sessionId: string, record: SessionRecord, from: number): Promise<void> {
    const message = this.#wire({ session: sessionId, from, message: { type: 'update', record } });
    await this.#exec((pipeline) =>
      pipeline
        .set(this.#key(sessionId), JSON.stringify(record), 'PX', this.#ttlMs, 'XX')
        .publish(this.connection.channel, message),
    );
  }

  async delete(sessionId: string, from: number): Promise<void> {
    const message = this.#wire({ session: sessionId, from, message: { type: 'end' } });
    await this.#exec((pipeline) =>
      pipeline.del(this.#key(sessionId)).publish(this.connection.channel, message),
    );
  }

  publish(envelope: SessionEnvelope): void {
    const wire: Wire = { s: envelope.session, f: envelope.from, m: envelope.message };
    this.connection.publish('session', wire);
  }

  subscribe(listener: (envelope: SessionEnvelope) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  join(node: number): () => void {
    const key = this.connection.key(`nl:${node}`);
    // A failed renewal (Redis down) is retried on the next beat; the outage is reported once elsewhere.
    const beat = () => void this.connection.command.set(key, '1', 'PX', this.#leaseMs).catch(() => {});
    beat();
    const timer = setInterval(beat, Math.max(1, Math.floor(this.#leaseMs / 3)));
    timer.unref?.();
    return () => {
      clearInterval(timer);
      this.connection.command.del(key).catch(() => {});
    };
  }

  async isAlive(node: number): Promise<boolean> {
    const exists = await this.connection.guard(() =>
      this.connection.command.exists(this.connection.key(`nl:${node}`)),
    );
    return exists === 1;
  }

  async #exec(
    build: (pipeline: ReturnType<RedisConnection['command']['pipeline']>) => unknown,
  ): Promise<void> {
    const pipeline = this.connection.command.pipeline();
    build(pipeline);
    const results = await this.connection.guard(() => pipeline.exec());
    for (const [error] of results ?? []) if (error) throw this.connection.unavailable(error);
  }
}

/** Change notifications between nodes over the shared Redis channel (see `server/change-bus.ts`). */
import type { BusChange, ChangeBus } from '../server/change-bus.js';
import { isPlainObject } from '../util/guards.js';
import type { RedisConnection } from './connection.js';

export class RedisChangeBus implements ChangeBus {
  readonly #listeners = new Set<(change: BusChange) => void>();

  constructor(private readonly connection: RedisConnection) {
    connection.on('change', (body) => {
      if (!isPlainObject(body) || typeof body.method !== 'string') return;
      const change: BusChange = isPlainObject(body.params)
        ? { method: body.method, params: body.params }
        : { method: body.method };
      for (const listener of this.#listeners) listener(change);
    });
  }

  publish(change: BusChange): void {
    this.connection.publish('change', change);
  }

  subscribe(listener: (change: BusChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

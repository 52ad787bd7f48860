/**
 * Single use of each `requestState`, across nodes: one `SET key 1 NX PX ttl` per retry (one round
 * trip). The key expires with the state, so nothing outlives the replay window.
 */
import type { RequestStateStore } from '../server/request-state.js';
import type { RedisConnection } from './connection.js';

export class RedisRequestStateStore implements RequestStateStore {
  constructor(private readonly connection: RedisConnection) {}

  consume(nonce: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(expiresAt - Date.now()));
    return this.connection.guard(async () => {
      const set = await this.connection.command.set(this.connection.key(`n:${nonce}`), '1', 'PX', ttl, 'NX');
      return set === 'OK';
    });
  }
}

/**
 * `redisStores({ url })`: everything a Server and its HTTP handler share with the other nodes of a
 * cluster, over one Redis. Call it once per node (process).
 */

import type { RedisOptions } from 'ioredis';
import type { TaskServerOptions } from '../extensions/tasks/server.js';
import type { ChangeBus } from '../server/change-bus.js';
import type { RequestStateStore } from '../server/request-state.js';
import type { Logger } from '../util/logger.js';
import { RedisChangeBus } from './change-bus.js';
import { RedisConnection } from './connection.js';
import { RedisEventStore, type RedisEventStoreOptions } from './event-store.js';
import { RedisKeyring, type RedisKeyringOptions } from './keyring.js';
import { RedisRequestStateStore } from './nonce-store.js';
import { RedisPinStore } from './pin-store.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
import { RedisTaskIdKeys, type RedisTaskIdKeysOptions } from './task-id-key.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './task-store.js';

export interface RedisStoresOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  readonly url: string;
  /** Prepended to every key and channel, so several deployments share one Redis. Default `switchboard:`. */
  readonly prefix?: string;
  /** Where Redis outages and failed notifications are reported. Default: nowhere. */
  readonly logger?: Logger;
  readonly keys?: RedisKeyringOptions;
  readonly tasks?: RedisTaskStoreOptions;
  readonly events?: RedisEventStoreOptions;
  /** Legacy sessions' records (their lifetime after the last use). */
  readonly sessions?: RedisSessionStoreOptions;
  /** A gateway's task id keys (how often each node re-reads them). */
  readonly taskIdKeys?: RedisTaskIdKeysOptions;
  /** More ioredis options (TLS, timeouts...). */
  readonly redisOptions?: RedisOptions;
}

export interface RedisStores {
  /** Spread into `new Server(info, { ...stores.server })`. */
  readonly server: {
    readonly changeBus: ChangeBus;
    readonly requestStateKey: RedisKeyring;
    readonly requestStateStore: RequestStateStore;
    readonly tasks: TaskServerOptions & { readonly store: RedisTaskStore };
  };
  /** Spread into `createHttpHandler(server, { ...stores.http })`. */
  readonly http: { readonly eventStore: RedisEventStore; readonly sessionStore: RedisSessionStore };
  /** The shared `requestState` keys: `rotate()` starts sealing with a new key on every node. */
  readonly keyring: RedisKeyring;
  readonly taskStore: RedisTaskStore;
  /** A gateway's tool pins (`--lock`), shared by every node. */
  readonly pins: RedisPinStore;
  /**
   * The keys binding a gateway's task ids to their callers, the same on every node (see
   * task-id-key.ts): read (or created) at the first call, kept up to date until `close()`.
   */
  taskIdKeys(): Promise<RedisTaskIdKeys>;
  /** Closes this node's connections (after the server and handler are closed). */
  close(): Promise<void>;
}

/** Connects to Redis and reads the shared keys; rejects with a clear error when Redis is unreachable. */
export async function redisStores(options: RedisStoresOptions): Promise<RedisStores> {
  const connection = await RedisConnection.open({
    url: options.url,
    prefix: options.prefix ?? 'switchboard:',
    logger: options.logger,
    redisOptions: options.redisOptions,
  });
  const keyring = new RedisKeyring(connection, options.keys);
  try {
    await keyring.load();
  } catch (error) {
    keyring.close();
    connection.close();
    throw error;
  }
  const taskStore = new RedisTaskStore(connection, options.tasks);
  // Made at the first call only: a deployment without a gateway keeps no such hash.
  let taskIdKeys: Promise<RedisTaskIdKeys> | undefined;
  return {
    server: {
      changeBus: new RedisChangeBus(connection),
      requestStateKey: keyring,
      requestStateStore: new RedisRequestStateStore(connection),
      tasks: { store: taskStore },
    },
    http: {
      eventStore: new RedisEventStore(connection, options.events),
      sessionStore: new RedisSessionStore(connection, options.sessions),
    },
    keyring,
    taskStore,
    pins: new RedisPinStore(connection),
    taskIdKeys() {
      taskIdKeys ??= (async () => {
        const keys = new RedisTaskIdKeys(connection, options.taskIdKeys);
        try {
          await keys.load();
        } catch (error) {
          keys.close();
          taskIdKeys = undefined;
          throw error;
        }
        return keys;
      })();
      return taskIdKeys;
    },
    async close() {
      keyring.close();
      (await taskIdKeys?.catch(() => undefined))?.close();
      taskStore.close();
      connection.close();
    },
  };
}

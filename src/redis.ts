/**
 * `switchboard/redis`: a cluster of Switchboard nodes sharing state through Redis (Node; uses
 * `ioredis`). See docs/scaling.md.
 */
export { RedisChangeBus } from './redis/change-bus.js';
export { RedisEventStore, type RedisEventStoreOptions } from './redis/event-store.js';
export { RedisKeyring, type RedisKeyringOptions } from './redis/keyring.js';
export { RedisRequestStateStore } from './redis/nonce-store.js';
export { RedisPinStore } from './redis/pin-store.js';
export { RedisSessionStore, type RedisSessionStoreOptions } from './redis/session-store.js';
export { type RedisStores, type RedisStoresOptions, redisStores } from './redis/stores.js';
export { RedisTaskStore, type RedisTaskStoreOptions } from './redis/task-store.js';

/**
 * The key that binds a gateway's task ids to the callers they were shown to (`gateway.redis`):
 * one random 256-bit secret at `<prefix>task-key` (the gateway's prefix is
 * `switchboard:gateway:`), made by the first node to ask (SET NX: two nodes starting together
 * agree on one) and read by every other. It has no expiry: a task id must stay good for as long as
 * its task lives, across restarts of every node. Anyone who can read this Redis can read the key
 * and so make task ids for any caller: keep Redis private to the cluster.
 */
import { base64UrlToBytes, bytesToBase64Url } from '../util/base64.js';
import type { RedisConnection } from './connection.js';

// Sets the key unless it is set, answers the key in force. One round trip, no race between nodes.
const LOAD_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`;

export async function loadTaskIdKey(connection: RedisConnection): Promise<Uint8Array> {
  const fresh = bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const stored = (await connection.guard(() =>
    connection.command.eval(LOAD_SCRIPT, 1, connection.key('task-key'), fresh),
  )) as string;
  return base64UrlToBytes(stored);
}

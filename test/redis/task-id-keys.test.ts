/**
 * The gateway's task id keys in Redis (`stores.taskIdKeys()`), against a real redis-server: nodes
 * starting together agree on one key; an earlier version's single `task-key` is taken in (a rolling
 * upgrade); when Redis loses the keys (FLUSHALL, standing for a restart without persistence) the
 * running nodes put theirs back and a node started in between ends up holding them too, all making
 * ids under one newest key; ids no key reads reach Redis at most once per `missRefreshMs`.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { type LocalRedis, startRedis } from '../../examples/cluster/services.js';
import { TaskIds } from '../../src/gateway/task-ids.js';
import { type RedisStores, type RedisStoresOptions, redisStores } from '../../src/redis/stores.js';
import { base64UrlToBytes, bytesToBase64Url } from '../../src/util/base64.js';
import { until } from '../helpers/wait.js';

describe('task id keys in Redis', () => {
  let redis: LocalRedis;
  let raw: Redis;
  const opened: RedisStores[] = [];
  const node = async (prefix: string, taskIdKeys: RedisStoresOptions['taskIdKeys'] = {}) => {
    const stores = await redisStores({ url: redis.url, prefix, taskIdKeys });
    opened.push(stores);
    return stores.taskIdKeys();
  };
  const texts = (keys: readonly Uint8Array[]) => keys.map(bytesToBase64Url);

  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  // Each test's nodes stop with it: none goes on reading Redis in the next.
  afterEach(async () => {
    for (const stores of opened.splice(0)) await stores.close();
  });
  after(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  test('nodes starting together agree on one key, kept without expiry', async () => {
    const [a, b] = await Promise.all([node('together:'), node('together:')]);
    assert.equal(a.keys().length, 1);
    assert.deepEqual(texts(b.keys()), texts(a.keys()));
    assert.equal(await raw.hlen('together:task-keys'), 1);
    assert.equal(await raw.pttl('together:task-keys'), -1, 'no expiry');
  });

  test("an earlier version's single task-key is taken in: ids it made stay good through upgraded nodes", async () => {
    const legacy = bytesToBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    await raw.set('upgrade:task-key', legacy);
    const a = await node('upgrade:');
    assert.deepEqual(texts(a.keys()), [legacy], 'the key every node used so far, still the newest');
    const parts = { upstream: 'files', id: 't1' };
    const shown = await new TaskIds(base64UrlToBytes(legacy), '__').show('alice', parts);
    assert.deepEqual(await new TaskIds(a, '__').read(shown, 'alice', (n) => n === 'files'), parts);
    assert.equal(await raw.get('upgrade:task-key'), legacy, 'left for the nodes not yet upgraded');
  });

  test('Redis loses the keys: each node puts its own back by itself, on its next refresh', async () => {
    const a = await node('healed:', { refreshMs: 50 });
    const [held] = texts(a.keys());
    await raw.flushall();
    await until(
      async () => (await raw.hvals('healed:task-keys')).some((value) => value.includes(held!)),
      'the key back in Redis',
    );
    assert.deepEqual(texts(a.keys()), [held], 'the node kept its key throughout');
  });

  test('a node started after the loss makes a key of its own: every node ends up holding both and making ids under one', async () => {
    // Refreshes far apart: what brings the nodes together here is an id C made, read through A.
    const slow = { refreshMs: 3_600_000 };
    const a = await node('lost:', slow);
    const b = await node('lost:', slow);
    const before = texts(a.keys());
    await raw.flushall();
    const c = await node('lost:', slow);
    assert.equal(c.keys().length, 1);
    assert.notDeepEqual(texts(c.keys()), before, 'C found nothing and made a key');
    // A reads an id under a key it lacks: it reads the keys again, putting its own back and taking C's.
    assert.equal(await a.missed(), true);
    assert.equal(a.keys().length, 2);
    // A told the others: B takes in C's key, C takes in A's (and B's, the same).
    const all = [a, b, c];
    await until(() => all.every((keys) => keys.keys().length === 2), 'every node holds both keys');
    for (const keys of all) {
      assert.deepEqual(texts(keys.keys()), texts(c.keys()), 'one list, one newest key, on every node');
      assert.ok(texts(keys.keys()).includes(before[0]!), 'the key ids were made under before the loss');
    }
    assert.equal(await raw.hlen('lost:task-keys'), 2, 'Redis holds both again');
  });

  test('ids no key reads reach Redis at most once per missRefreshMs, however many', async () => {
    const keys = await node('misses:', { refreshMs: 3_600_000, missRefreshMs: 3_600_000 });
    const evals = async () => {
      const stats = (await raw.info('commandstats')).match(/^cmdstat_eval:calls=(\d+)/m);
      return Number(stats?.[1] ?? 0);
    };
    const start = await evals();
    const first = await Promise.all(Array.from({ length: 50 }, () => keys.missed()));
    assert.deepEqual(new Set(first), new Set([false]), 'nothing changed');
    for (let i = 0; i < 50; i++) assert.equal(await keys.missed(), false);
    assert.equal((await evals()) - start, 1, 'one read for a hundred misses');
  });
});

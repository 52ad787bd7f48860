/**
 * The Redis stores one by one, against a real redis-server: the HTTP event store (replay, trimming
 * reported as a gap, a stream that just ended is no gap, sessions forgotten), every key carrying a
 * TTL and the deployment's prefix, a task whose node died ending as failed with a reason, and a clear
 * error when Redis cannot be reached at start. Also the in-memory defaults of the same interfaces
 * (`MemoryChangeBus`, `MemoryKeyring`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { freePort, type LocalRedis, startRedis } from '../../examples/cluster/services.js';
import { Server } from '../../src/extensions/server.js';
import { type RedisStores, redisStores } from '../../src/redis/stores.js';
import { MemoryChangeBus } from '../../src/server/change-bus.js';
import { MemoryKeyring, RequestStateSealer } from '../../src/server/request-state.js';
import type { SessionEnvelope, SessionRecord } from '../../src/transports/http/server/session-store.js';
import { until } from '../helpers/wait.js';

const SESSION: SessionRecord = {
  id: 'session-own-id',
  revision: '2025-11-25',
  client: { info: { name: 'c', version: '1' }, capabilities: { elicitation: {} } },
  capabilities: { tools: { listChanged: true } },
  owner: null,
  initialized: true,
  logLevel: undefined,
  resourceSubscriptions: [],
};

const PAYLOAD = {
  v: 1,
  m: 'tools/call',
  r: 'x',
  c: null,
  e: Date.now() + 60_000,
  n: 'n',
  a: {},
  p: {},
} as const;

describe('Redis stores', () => {
  let redis: LocalRedis;
  let raw: Redis;
  let stores: RedisStores;
  const prefix = 'stores-test:';
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
    stores = await redisStores({
      url: redis.url,
      prefix,
      events: { maxEventsPerSession: 3 },
      tasks: { leaseMs: 300 },
    });
  });
  after(async () => {
    await stores.close();
    raw.disconnect();
    await redis.stop();
  });

  test('the event store replays a stream after a seq, reports trimmed events as a gap, forgets a session', async () => {
    const store = stores.http.eventStore;
    for (let seq = 1; seq <= 2; seq++) await store.append('s1', 0, { seq, data: `{"n":${seq}}` });
    await store.append('s1', 1, { seq: 1, data: 'other stream' });
    assert.deepEqual(await store.replay('s1', 0, 0), {
      events: [
        { seq: 1, data: '{"n":1}' },
        { seq: 2, data: '{"n":2}' },
      ],
      gap: false,
    });
    assert.deepEqual(
      await store.replay('s1', 0, 2),
      { events: [], gap: false },
      'resumed at the end: no gap',
    );
    // Three events kept per session: the fourth and fifth push stream 0's first two out.
    await store.append('s1', 0, { seq: 3, data: 'three' });
    await store.append('s1', 0, { seq: 4, data: 'four' });
    const trimmed = await store.replay('s1', 0, 0);
    assert.deepEqual(
      trimmed.events.map((e) => e.seq),
      [3, 4],
    );
    assert.equal(trimmed.gap, true);
    assert.equal((await store.replay('s1', 0, 2)).gap, false, 'nothing after seq 2 was lost');
    await store.deleteSession('s1');
    assert.deepEqual(await store.replay('s1', 0, 0), { events: [], gap: false });
  });

  test('every key carries the prefix and a TTL', async () => {
    await stores.http.eventStore.append('s2', 0, { seq: 1, data: 'x' });
    const server = new Server({ name: 'ttl', version: '1' }, { ...stores.server });
    server.registerTool('t', { execution: { taskSupport: 'optional' } }, () => 'done');
    await stores.taskStore.create({
      taskId: 'ttl-task',
      owner: null,
      revision: '2026-07-28',
      method: 'tools/call',
      ttlMs: null,
    });
    await stores.server.requestStateStore.consume('nonce-1', Date.now() + 60_000);
    await stores.http.sessionStore.create('ttl-session', SESSION);
    const keys = await raw.keys('*');
    assert.ok(keys.length >= 7, `keys: ${keys.join(', ')}`);
    for (const key of keys) {
      assert.ok(key.startsWith(prefix), `${key} carries the prefix`);
      assert.ok((await raw.pttl(key)) > 0, `${key} has a TTL`);
    }
    await server.close();
  });

  test('the session store keeps, refreshes, changes and forgets a record, telling the other nodes', async (t) => {
    const other = await redisStores({ url: redis.url, prefix, sessions: { ttlMs: 60_000 } });
    t.after(() => other.close());
    /** What JSON keeps (an undefined log level is no field). */
    const wire = (value: unknown) => JSON.parse(JSON.stringify(value));
    const heard: SessionEnvelope[] = [];
    other.http.sessionStore.subscribe((envelope) => heard.push(envelope));
    const store = stores.http.sessionStore;
    assert.equal(await store.load('s9'), undefined);
    assert.equal(await store.touch('s9'), false);
    await store.create('s9', SESSION);
    assert.deepEqual(await other.http.sessionStore.load('s9'), wire(SESSION), 'any node reads it');
    await raw.pexpire(`${prefix}s:s9`, 5000);
    assert.equal(await store.touch('s9'), true);
    assert.ok((await raw.pttl(`${prefix}s:s9`)) > 5000, 'a use refreshes its lifetime');
    const changed = { ...SESSION, logLevel: 'error' as const, resourceSubscriptions: ['config://a'] };
    await store.update('s9', changed, 1);
    assert.deepEqual(await other.http.sessionStore.load('s9'), changed);
    other.http.sessionStore.publish({ session: 's9', from: 2, message: { type: 'push', frame: '{}' } });
    await store.delete('s9', 1);
    assert.equal(await other.http.sessionStore.load('s9'), undefined);
    await until(() => heard.length === 2, 'the update and the end');
    assert.deepEqual(heard, [
      { session: 's9', from: 1, message: { type: 'update', record: wire(changed) } },
      { session: 's9', from: 1, message: { type: 'end' } },
    ]);
    await store.update('gone', changed, 1);
    assert.equal(await store.load('gone'), undefined, 'an update does not bring back an ended session');
  });

  test('a node is alive for the others from joining until it leaves or stops renewing its lease', async (t) => {
    const other = await redisStores({ url: redis.url, prefix, sessions: { nodeLeaseMs: 200 } });
    t.after(() => other.close());
    const leave = other.http.sessionStore.join(41);
    assert.equal(await stores.http.sessionStore.isAlive(41), true);
    assert.ok((await raw.pttl(`${prefix}nl:41`)) <= 200, 'a lease, not a key for ever');
    leave();
    await until(async () => !(await stores.http.sessionStore.isAlive(41)), 'it left');
    other.http.sessionStore.join(42);
    assert.equal(await stores.http.sessionStore.isAlive(42), true);
    // A node that dies stops renewing (here: its connection goes away without leaving).
    await other.close();
    await until(async () => !(await stores.http.sessionStore.isAlive(42)), 'its lease ran out');
  });

  test("a task whose node died ends failed with a reason, not 'working' for ever", async () => {
    const dying = await redisStores({ url: redis.url, prefix, tasks: { leaseMs: 300 } });
    await dying.taskStore.create({
      taskId: 'orphan',
      owner: null,
      revision: '2026-07-28',
      method: 'tools/call',
      ttlMs: 60_000,
    });
    assert.equal((await stores.taskStore.get('orphan'))?.status, 'working', 'its node renews the lease');
    await dying.close(); // the node is gone: nobody renews its lease
    const heard: string[] = [];
    const stop = stores.taskStore.subscribe((id, record) => {
      if (id === 'orphan' && record) heard.push(record.status);
    });
    await until(async () => (await stores.taskStore.get('orphan'))?.status === 'failed', 'the orphan failed');
    const record = await stores.taskStore.get('orphan');
    assert.match(record!.statusMessage!, /node running this task stopped/);
    assert.match(record!.error!.message, /node running this task stopped/);
    // Its creation may still be on its way from the dead node; the failure is heard once.
    assert.deepEqual(
      heard.filter((status) => status !== 'working'),
      ['failed'],
    );
    stop();
  });

  test('a node waiting on a running task of another node hears its death without polling', async () => {
    const dying = await redisStores({ url: redis.url, prefix, tasks: { leaseMs: 300 } });
    await dying.taskStore.create({
      taskId: 'waited',
      owner: null,
      revision: '2026-07-28',
      method: 'tools/call',
      ttlMs: 60_000,
    });
    const heard: string[] = [];
    stores.taskStore.subscribe((id, record) => {
      if (id === 'waited' && record) heard.push(record.status);
    });
    // One look, as a tasks/result waiting for the task does; then only the store's own sweep.
    assert.equal((await stores.taskStore.get('waited'))?.status, 'working');
    await dying.close();
    await until(() => heard.includes('failed'), 'the waiter heard the failure');
  });

  test('Redis unreachable at start: a clear error naming it', async () => {
    const port = await freePort();
    await assert.rejects(redisStores({ url: `redis://127.0.0.1:${port}` }), (error: Error) => {
      assert.match(error.message, new RegExp(`Cannot reach Redis at 127\\.0\\.0\\.1:${port}`));
      return true;
    });
    await assert.rejects(redisStores({ url: 'not a url' }), /Invalid Redis url/);
  });
});

describe('in-memory defaults of the shared interfaces', () => {
  test('MemoryChangeBus: a member hears the others, never itself', () => {
    const bus = new MemoryChangeBus();
    const [a, b, c] = [bus.member(), bus.member(), bus.member()];
    const heard: string[] = [];
    a.subscribe((change) => heard.push(`a ${change.method}`));
    b.subscribe((change) => heard.push(`b ${change.method}`));
    c.subscribe((change) => heard.push(`c ${change.method}`));
    a.publish({ method: 'x' });
    assert.deepEqual(heard.sort(), ['b x', 'c x']);
  });

  test('MemoryChangeBus joins servers: a resource change on one reaches a subscriber of another', () => {
    const bus = new MemoryChangeBus();
    const one = new Server({ name: 'one', version: '1' }, { changeBus: bus.member() });
    const two = new Server({ name: 'two', version: '1' }, { changeBus: bus.member() });
    const heard: string[] = [];
    two.notifications.add({ deliver: (method, params) => heard.push(`${method} ${params?.uri}`) });
    one.notifyResourceUpdated('file:///a');
    assert.deepEqual(heard, ['notifications/resources/updated file:///a']);
  });

  test('registrations before a node serves its first request are not news to the other nodes', async () => {
    const bus = new MemoryChangeBus();
    const starting = new Server({ name: 'starting', version: '1' }, { changeBus: bus.member() });
    const serving = new Server({ name: 'serving', version: '1' }, { changeBus: bus.member() });
    const heard: string[] = [];
    serving.notifications.add({ deliver: (method) => heard.push(method) });
    starting.registerTool('t', {}, () => 'x');
    // The coalesced list_changed is flushed in a microtask: past it, nothing was sent.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(heard, []);
  });

  test('MemoryKeyring: the new key seals, the old one still opens until retained no longer', async () => {
    const keyring = new MemoryKeyring('first-secret-0123456789', { retainMs: 60_000 });
    const sealer = new RequestStateSealer(keyring);
    const before = await sealer.seal(PAYLOAD);
    keyring.rotate('second-secret-0123456789');
    const afterRotation = await sealer.seal(PAYLOAD);
    assert.deepEqual(await sealer.open(before), PAYLOAD, 'sealed before the rotation, still opens');
    const onlyNew = new RequestStateSealer('second-secret-0123456789');
    assert.deepEqual(await onlyNew.open(afterRotation), PAYLOAD, 'the new key sealed it');
    assert.equal(await onlyNew.open(before), undefined);
    const expired = new MemoryKeyring('first-secret-0123456789', { retainMs: -1 });
    expired.rotate('third');
    assert.equal(expired.keys().length, 1, 'a key retained no longer is dropped');
    assert.equal(await new RequestStateSealer(expired).open(before), undefined);
  });
});

/**
 * The task store: the status machine every store applies (`applyTaskPatch`) and the in-memory store
 * (lifetime, bounds, pagination per owner, change feed).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryTaskStore } from '../../src/extensions/tasks/memory-store.js';
import {
  applyTaskPatch,
  type NewTask,
  newTaskRecord,
  type TaskRecord,
} from '../../src/extensions/tasks/store.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';

const init = (taskId: string, extra: Partial<NewTask> = {}): NewTask => ({
  taskId,
  owner: null,
  revision: '2026-07-28',
  method: 'tools/call',
  name: 'tool',
  ttlMs: 60_000,
  ...extra,
});

describe('applyTaskPatch', () => {
  const fresh = newTaskRecord(init('t'), 1000);

  test('a new task is working, with both timestamps at creation', () => {
    assert.equal(fresh.status, 'working');
    assert.equal(fresh.createdAt, 1000);
    assert.equal(fresh.lastUpdatedAt, 1000);
    assert.deepEqual(fresh.inputRequests, {});
  });

  test('questions drive input_required ⇄ working; answers only for outstanding keys', () => {
    const asked = applyTaskPatch(fresh, { op: 'ask', key: '0', request: { method: 'roots/list' } }, 2000)!;
    assert.equal(asked.status, 'input_required');
    assert.equal(asked.lastUpdatedAt, 2000);
    assert.equal(
      applyTaskPatch(asked, { op: 'ask', key: '0', request: { method: 'roots/list' } }, 2001),
      undefined,
    );
    const two = applyTaskPatch(asked, { op: 'ask', key: '1', request: { method: 'roots/list' } }, 2002)!;
    assert.equal(applyTaskPatch(two, { op: 'answer', responses: { '9': { roots: [] } } }, 2003), undefined);
    const partly = applyTaskPatch(two, { op: 'answer', responses: { '0': { roots: [] } } }, 2004)!;
    assert.equal(partly.status, 'input_required', 'one question is still open');
    assert.deepEqual(Object.keys(partly.inputRequests), ['1']);
    assert.deepEqual(partly.inputResponses, { '0': { roots: [] } });
    const answered = applyTaskPatch(partly, { op: 'answer', responses: { '1': { roots: [] } } }, 2005)!;
    assert.equal(answered.status, 'working');
    const taken = applyTaskPatch(answered, { op: 'settle', key: '0' }, 2006)!;
    assert.deepEqual(taken.inputResponses, { '1': { roots: [] } });
    assert.equal(applyTaskPatch(taken, { op: 'settle', key: '0' }, 2007), undefined);
  });

  test('terminal statuses never change again', () => {
    const done = applyTaskPatch(fresh, { op: 'finish', status: 'completed', result: { content: [] } }, 3000)!;
    assert.equal(done.status, 'completed');
    for (const patch of [
      { op: 'cancel' },
      { op: 'finish', status: 'failed', error: { code: -32603, message: 'x' } },
      { op: 'message', statusMessage: 'again' },
      { op: 'ask', key: '0', request: { method: 'roots/list' } },
    ] as const) {
      assert.equal(applyTaskPatch(done, patch, 3001), undefined, patch.op);
    }
    const cancelled = applyTaskPatch(fresh, { op: 'cancel', statusMessage: 'stop' }, 3002)!;
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.statusMessage, 'stop');
    assert.equal(
      applyTaskPatch(cancelled, { op: 'finish', status: 'completed', result: {} }, 3003),
      undefined,
    );
  });

  test('finishing or cancelling drops the open questions', () => {
    const asked = applyTaskPatch(fresh, { op: 'ask', key: '0', request: { method: 'roots/list' } }, 2000)!;
    const failed = applyTaskPatch(
      asked,
      { op: 'finish', status: 'failed', error: { code: 1, message: 'm' } },
      2001,
    )!;
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.inputRequests, {});
    assert.deepEqual(failed.error, { code: 1, message: 'm' });
  });

  test('records stay JSON', () => {
    const record = applyTaskPatch(fresh, { op: 'message', statusMessage: 'half' }, 5)!;
    assert.deepEqual(JSON.parse(JSON.stringify(record)), record);
  });
});

describe('MemoryTaskStore', () => {
  test('create, get, update, delete; every change is heard', async () => {
    const store = new MemoryTaskStore();
    const heard: [string, string | undefined][] = [];
    const stop = store.subscribe((id, record) => heard.push([id, record?.status]));
    const created = await store.create(init('a'));
    assert.deepEqual(await store.get('a'), created);
    const { record, applied } = await store.update('a', { op: 'cancel' });
    assert.equal(applied, true);
    assert.equal(record?.status, 'cancelled');
    assert.deepEqual(await store.update('a', { op: 'cancel' }), { record, applied: false });
    assert.deepEqual(await store.update('nope', { op: 'cancel' }), { record: undefined, applied: false });
    assert.equal(await store.delete('a'), true);
    assert.equal(await store.delete('a'), false);
    assert.equal(await store.get('a'), undefined);
    stop();
    await store.create(init('b'));
    assert.deepEqual(heard, [
      ['a', 'working'],
      ['a', 'cancelled'],
      ['a', undefined],
    ]);
    await assert.rejects(store.create(init('b')), (error: unknown) => error instanceof ProtocolError);
  });

  test('a task is forgotten once its ttlMs has passed; null lives on', async () => {
    let now = 0;
    const store = new MemoryTaskStore({ now: () => now });
    const gone: string[] = [];
    store.subscribe((id, record) => {
      if (!record) gone.push(id);
    });
    await store.create(init('short', { ttlMs: 100 }));
    await store.create(init('forever', { ttlMs: null }));
    now = 99;
    assert.ok(await store.get('short'));
    now = 100;
    assert.equal(await store.get('short'), undefined);
    assert.deepEqual(await store.update('short', { op: 'cancel' }), { record: undefined, applied: false });
    now = 10 ** 12;
    assert.ok(await store.get('forever'));
    assert.deepEqual(gone, ['short']);
  });

  test('bounded: a full store sweeps expired tasks, then the oldest finished one, else refuses', async () => {
    let now = 0;
    const store = new MemoryTaskStore({ maxTasks: 3, now: () => now });
    await store.create(init('expiring', { ttlMs: 10 }));
    await store.create(init('done', { ttlMs: null }));
    await store.update('done', { op: 'finish', status: 'completed', result: {} });
    await store.create(init('running-1', { ttlMs: null }));
    now = 10;
    await store.create(init('running-2', { ttlMs: null }));
    assert.equal(store.size, 3);
    assert.equal(await store.get('expiring'), undefined);
    await store.create(init('running-3', { ttlMs: null }));
    assert.equal(await store.get('done'), undefined, 'the finished task made room');
    await assert.rejects(
      store.create(init('running-4', { ttlMs: null })),
      (error: unknown) =>
        error instanceof ProtocolError &&
        error.code === ErrorCode.InternalError &&
        /3 tasks, its limit/.test(error.message),
    );
    assert.throws(() => new MemoryTaskStore({ maxTasks: 0 }), SwitchboardError);
  });

  test('list: one owner’s live tasks, oldest first, a page at a time', async () => {
    let now = 0;
    const store = new MemoryTaskStore({ now: () => now });
    for (const [id, owner] of [
      ['a1', 'alice'],
      ['b1', 'bob'],
      ['a2', 'alice'],
      ['a3', 'alice'],
      ['a4', 'alice'],
    ] as const) {
      await store.create(init(id, { owner, ttlMs: id === 'a3' ? 5 : null }));
    }
    now = 5;
    const ids = async (cursor?: string) => {
      const page = await store.list({ owner: 'alice', cursor, limit: 2 });
      return { ids: page.tasks.map((t: TaskRecord) => t.taskId), next: page.nextCursor };
    };
    const first = await ids();
    assert.deepEqual(first.ids, ['a1', 'a2']);
    const second = await ids(first.next);
    assert.deepEqual(second, { ids: ['a4'], next: undefined });
    assert.deepEqual((await store.list({ owner: null, limit: 10 })).tasks, []);
    await assert.rejects(
      store.list({ owner: 'alice', cursor: 'bogus', limit: 2 }),
      (error: unknown) => error instanceof ProtocolError && error.code === ErrorCode.InvalidParams,
    );
  });
});

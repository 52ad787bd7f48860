/**
 * MemoryEventStore bounds: per session (events, bytes) and over every session (`maxBytes`, issue 15
 * finding 7): idle sessions cannot together hold more than the global budget; the oldest events of
 * any session go first, and a replay that needs them reports the gap.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryEventStore } from '../../../src/transports/http/server/event-store.js';

const event = (seq: number, size = 100) => ({ seq, data: String(seq % 10).repeat(size) });

describe('MemoryEventStore', () => {
  test('the global byte budget drops the oldest events of any session first', () => {
    const store = new MemoryEventStore({ maxBytes: 1000, maxBytesPerSession: 800 });
    for (let seq = 1; seq <= 5; seq++) store.append('a', 0, event(seq)); // a: 500
    for (let seq = 1; seq <= 5; seq++) store.append('b', 0, event(seq)); // b: 500, total 1000
    assert.equal(store.bytes, 1000);
    store.append('c', 3, event(1, 300)); // total 1300: a's three oldest go
    assert.equal(store.bytes, 1000);
    const a = store.replay('a', 0, 0);
    assert.deepEqual(
      a.events.map((e) => e.seq),
      [4, 5],
    );
    assert.equal(a.gap, true);
    assert.deepEqual(store.replay('a', 0, 3), { events: a.events, gap: false });
    assert.equal(store.replay('b', 0, 0).events.length, 5);
    assert.equal(store.replay('c', 3, 0).events.length, 1);
  });

  test('a deleted session gives its bytes back; per-session bounds still apply', () => {
    const store = new MemoryEventStore({ maxBytes: 1000, maxBytesPerSession: 300, maxEventsPerSession: 2 });
    for (let seq = 1; seq <= 4; seq++) store.append('a', 0, event(seq));
    assert.deepEqual(
      store.replay('a', 0, 0).events.map((e) => e.seq),
      [3, 4],
    );
    assert.equal(store.bytes, 200);
    store.deleteSession('a');
    assert.equal(store.bytes, 0);
    for (let s = 0; s < 10; s++) store.append(`s${s}`, 0, event(1));
    assert.equal(store.bytes, 1000);
    store.append('late', 0, event(1));
    assert.equal(store.bytes, 1000);
    assert.equal(store.replay('s0', 0, 0).gap, true, 'the oldest session lost its event');
    assert.equal(store.replay('late', 0, 0).events.length, 1);
  });

  test('300 idle sessions of 4 MiB each stay within the default 64 MiB budget', () => {
    const store = new MemoryEventStore();
    const chunk = 'x'.repeat(256 * 1024);
    for (let s = 0; s < 300; s++)
      for (let seq = 1; seq <= 16; seq++) store.append(`s${s}`, 0, { seq, data: chunk });
    assert.ok(store.bytes <= 64 * 1024 * 1024, `${store.bytes} bytes kept`);
    assert.equal(store.replay('s299', 0, 0).events.length, 16, 'the newest session keeps its events');
  });

  test('bad bounds are a CONFIG error', () => {
    assert.throws(() => new MemoryEventStore({ maxBytes: 0 }), /maxBytes must be a positive/);
    assert.throws(() => new MemoryEventStore({ maxEventsPerSession: -1 }), /maxEventsPerSession/);
  });
});

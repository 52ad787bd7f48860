import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Deadlined, DeadlineQueue } from '../../src/engine/deadlines.js';
import { controlClock } from '../helpers/clock.js';

interface Entry extends Deadlined<Entry> {
  name: string;
}

const entry = (name: string): Entry => ({
  name,
  deadline: 0,
  queue: undefined,
  newer: undefined,
  older: undefined,
});

describe('DeadlineQueue', () => {
  test('expires entries in the order they were armed, each at its own deadline, on one timer', (t) => {
    controlClock(t);
    const expired: string[] = [];
    const queue = new DeadlineQueue<Entry>(100, (e) => expired.push(e.name));
    const [a, b, c] = [entry('a'), entry('b'), entry('c')];
    queue.add(a);
    t.mock.timers.tick(30);
    queue.add(b);
    t.mock.timers.tick(30);
    queue.add(c);
    t.mock.timers.tick(39);
    assert.deepEqual(expired, [], 'nothing before the oldest deadline');
    t.mock.timers.tick(1);
    assert.deepEqual(expired, ['a']);
    assert.equal(a.queue, undefined, 'an expired entry has left the queue');
    t.mock.timers.tick(29);
    assert.deepEqual(expired, ['a']);
    t.mock.timers.tick(1);
    assert.deepEqual(expired, ['a', 'b']);
    t.mock.timers.tick(30);
    assert.deepEqual(expired, ['a', 'b', 'c']);
  });

  test('a removed entry never expires, wherever it was in the queue, and the others keep their deadlines', (t) => {
    controlClock(t);
    const expired: string[] = [];
    const queue = new DeadlineQueue<Entry>(100, (e) => expired.push(e.name));
    const entries = ['a', 'b', 'c', 'd'].map(entry);
    for (const e of entries) {
      queue.add(e);
      t.mock.timers.tick(10);
    }
    const [a, b, c, d] = entries as [Entry, Entry, Entry, Entry];
    queue.remove(a); // the oldest: the timer armed for it fires early and finds b not yet due
    queue.remove(c); // one in the middle
    t.mock.timers.tick(60); // a's deadline
    assert.deepEqual(expired, []);
    t.mock.timers.tick(10); // b's
    assert.deepEqual(expired, ['b']);
    t.mock.timers.tick(20); // d's (c's passed unseen)
    assert.deepEqual(expired, ['b', 'd']);
    assert.equal(d.queue, undefined);
    assert.equal(b.newer ?? b.older ?? c.newer ?? c.older, undefined, 'no links left behind');
  });

  test('an entry armed again from its expiry waits a whole duration more', (t) => {
    controlClock(t);
    let rounds = 0;
    const queue: DeadlineQueue<Entry> = new DeadlineQueue<Entry>(50, (e) => {
      if (++rounds < 3) queue.add(e);
    });
    queue.add(entry('a'));
    t.mock.timers.tick(50);
    assert.equal(rounds, 1);
    t.mock.timers.tick(49);
    assert.equal(rounds, 1);
    t.mock.timers.tick(1);
    assert.equal(rounds, 2);
    t.mock.timers.tick(50);
    assert.equal(rounds, 3);
    t.mock.timers.tick(500);
    assert.equal(rounds, 3);
  });

  test('an empty queue holds no timer: it keeps no process alive', async () => {
    // A real child process would wait the whole duration if the timer outlived its last entry.
    const { spawnSync } = await import('node:child_process');
    const module = new URL('../../src/engine/deadlines.js', import.meta.url).href;
    const script = `
      const { DeadlineQueue } = await import(${JSON.stringify(module)});
      const queue = new DeadlineQueue(60000, () => process.exit(3));
      const e = { deadline: 0, queue: undefined, newer: undefined, older: undefined };
      queue.add(e);
      queue.remove(e);
    `;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 50_000 });
    assert.equal(run.status, 0, String(run.stderr));
    assert.ok(Date.now() - started < 50_000);
  });
});

/**
 * The pool of sessions an upstream leases to single calls, with stand-in sessions: the cap holds
 * whatever the order of leases, give-backs and closes; waiters are served first come, first served,
 * give up at their wait time or cancellation, and fail when the pool closes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Cancellable } from '../../src/engine/peer.js';
import { LeasePool } from '../../src/gateway/lease-pool.js';

interface Fake {
  readonly id: number;
  close(): void;
}

function pool(cap: number, waitMs = 60_000) {
  let made = 0;
  const open = new Set<Fake>();
  let most = 0;
  const leases = new LeasePool<Fake>({
    cap,
    maxIdle: 1,
    waitMs,
    open: async (onClosed) => {
      await Promise.resolve();
      const fake: Fake = {
        id: ++made,
        close: () => {
          if (open.delete(fake)) queueMicrotask(onClosed);
        },
      };
      open.add(fake);
      most = Math.max(most, open.size);
      return fake;
    },
    close: (fake) => fake.close(),
    full: () => new Error(`all ${cap} in use`),
  });
  return { leases, open, most: () => most };
}

/** A cancellation the test fires. */
function cancellation() {
  const listeners = new Set<(reason: unknown) => void>();
  const cancellable: Cancellable = {
    onCancel(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const cancel = (reason: unknown) => {
    for (const listener of listeners) listener(reason);
  };
  return { cancellable, cancel };
}

const never = () => cancellation().cancellable;

test('beyond the cap calls wait in order and get the leases given back; a closed lease lets the next waiter open one', async () => {
  const { leases, open } = pool(2);
  const first = await leases.lease(never);
  const second = await leases.lease(never);
  const order: number[] = [];
  const waiters = [1, 2, 3].map((n) =>
    leases.lease(never).then((fake) => {
      order.push(n);
      return fake;
    }),
  );
  assert.equal(leases.waiting, 3);
  leases.giveBack(first);
  assert.equal(await waiters[0], first, 'handed on as it is');
  first.close();
  const opened = await waiters[1];
  assert.notEqual(opened, first, 'a new one in the closed one’s place');
  leases.giveBack(second);
  assert.equal(await waiters[2], second);
  assert.deepEqual(order, [1, 2, 3]);
  assert.equal(open.size, 2);
});

test('a waiter gives up at its wait time, naming the cap, and when cancelled; closing fails the rest', async () => {
  const { leases } = pool(1, 20);
  const held = await leases.lease(never);
  await assert.rejects(leases.lease(never), /all 1 in use/);
  const { cancellable, cancel } = cancellation();
  const { leases: slow } = pool(1);
  await slow.lease(never);
  const leaving = slow.lease(() => cancellable);
  cancel(new Error('the client left'));
  await assert.rejects(leaving, /the client left/);
  assert.equal(slow.waiting, 0);
  const stranded = slow.lease(never);
  slow.close(() => new Error('the upstream is stopped'));
  await assert.rejects(stranded, /stopped/);
  await assert.rejects(slow.lease(never), /stopped/);
  leases.giveBack(held);
});

test('whatever the order of leases, give-backs and closes, no more than the cap are open and every lease is served', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.array(fc.constantFrom('lease', 'give', 'close'), { maxLength: 30 }),
      async (cap, steps) => {
        const { leases, open, most } = pool(cap);
        const held: Fake[] = [];
        const pending: Promise<void>[] = [];
        for (const step of steps) {
          if (step === 'lease') pending.push(leases.lease(never).then((fake) => void held.push(fake)));
          else {
            const fake = held.shift();
            if (fake && step === 'give') leases.giveBack(fake);
            else fake?.close();
          }
          await Promise.resolve();
        }
        // Give every lease back until all calls were served: none is stranded.
        while (leases.waiting > 0 || held.length > 0) {
          const fake = held.shift();
          if (fake) leases.giveBack(fake);
          await new Promise((resolve) => setImmediate(resolve));
        }
        await Promise.all(pending);
        assert.ok(most() <= cap, `${most()} open with a cap of ${cap}`);
        assert.ok(open.size <= cap);
      },
    ),
  );
});

/**
 * A controlled clock for tests about timeouts: with `setTimeout` and `Date` mocked (node:test mock
 * timers), virtual time advances only when the test says so, so "progress every 25 ms keeps a 150 ms
 * timeout alive" and "this must not fire" hold however loaded the machine is.
 */
import type { TestContext } from 'node:test';

/** Turns the event loop (promises, I/O callbacks) without moving virtual time. */
export const flush = () => new Promise((resolve) => setImmediate(resolve));

/** Mocks `setTimeout` and `Date` for the rest of test `t` (Date starts at the real now). */
export function controlClock(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
}

/**
 * Advances virtual time in steps of `stepMs` until `promise` settles (at most `maxMs` of virtual
 * time), letting everything else run between steps. Returns how it settled.
 */
export async function settleOnClock<T>(
  t: TestContext,
  promise: Promise<T>,
  { stepMs = 5, maxMs = 60_000 }: { stepMs?: number; maxMs?: number } = {},
): Promise<{ value: T; elapsedMs: number } | { error: unknown; elapsedMs: number }> {
  let outcome: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => {
      outcome = { value };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  let elapsedMs = 0;
  for (;;) {
    for (let i = 0; i < 3; i++) await flush();
    if (outcome) return { ...outcome, elapsedMs };
    if (elapsedMs >= maxMs) throw new Error(`still pending after ${maxMs} ms of virtual time`);
    t.mock.timers.tick(stepMs);
    elapsedMs += stepMs;
  }
}

/** Advances virtual time by `ms`, in steps, letting everything else run between them. */
export async function advance(t: TestContext, ms: number, stepMs = 5): Promise<void> {
  for (let done = 0; done < ms; done += stepMs) {
    for (let i = 0; i < 3; i++) await flush();
    t.mock.timers.tick(Math.min(stepMs, ms - done));
  }
  await flush();
}

/**
 * Waiting in tests: a gate a handler waits on until the test opens it, and polling for an effect
 * that has no event of its own.
 */
import assert from 'node:assert/strict';

/** A gate a test opens when it wants a waiting handler to go on. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Gates by name, each made when first asked for (by the handler waiting or the test opening it). */
export function gates(): (name: string) => ReturnType<typeof gate> {
  const made = new Map<string, ReturnType<typeof gate>>();
  return (name) => {
    let found = made.get(name);
    if (!found) {
      found = gate();
      made.set(name, found);
    }
    return found;
  };
}

/** Counts events and lets a test wait until it has seen `n` of them (a hook instead of a sleep). */
export function counter(): { readonly count: number; fire(): void; reached(n: number): Promise<void> } {
  let count = 0;
  let waiters: { n: number; resolve: () => void }[] = [];
  return {
    get count() {
      return count;
    },
    fire() {
      count++;
      const ready = waiters.filter((w) => w.n <= count);
      waiters = waiters.filter((w) => w.n > count);
      for (const w of ready) w.resolve();
    },
    reached(n) {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/**
 * Polls `condition` (sync or async) every few milliseconds until it holds, for effects with no event
 * of their own; fails naming `what` after `ms`, a guard against a hang (wide: tests run on a loaded
 * 2-core machine), never a timing.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `${what} never happened (waited ${ms} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A promise and the function that resolves it: `Promise.withResolvers()`, which Node 20 lacks.
 * Used for "settles once X happened" promises made only when someone waits (requests and
 * connections all end, but almost none is awaited).
 */
export interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

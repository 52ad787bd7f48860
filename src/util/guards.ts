/**
 * The small type guards and coercions every layer needs, written once. They are on hot paths (the
 * envelope check of every frame, the tool call), so they stay plain functions with no allocation.
 */

/** A JSON object: an object that is neither `null` nor an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Anything with a `then` method: what `await` would wait for. */
export function isPromiseLike<T = unknown>(value: unknown): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** What was thrown, as an Error (a thrown string or object is wrapped). */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** The message of what was thrown, for text that names the failure. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

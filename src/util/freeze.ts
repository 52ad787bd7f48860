/**
 * Immutable JSON: what the server shares between requests (item descriptors, list pages, schemas)
 * is frozen, so no handler or middleware can change what every other caller gets.
 */

/** Deep-freezes a JSON tree in place. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A deep-frozen copy of a JSON value the caller keeps (a tool's annotations, a `_meta`), or it as is when absent. */
export function frozenCopy<T>(value: T): T {
  return value === undefined ? value : deepFreeze(structuredClone(value));
}

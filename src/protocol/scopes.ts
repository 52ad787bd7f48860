/**
 * OAuth scopes as both sides handle them: a space-separated string on the wire (RFC 6749 §3.3), a
 * set in code. Order is kept (first seen first) so the strings we send are stable.
 */

/** The scopes in a `scope` string (or an `scp` array claim), without duplicates or empty entries. */
export function parseScopes(value: unknown): string[] {
  const parts = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
  const seen = new Set<string>();
  for (const part of parts) if (typeof part === 'string' && part !== '') seen.add(part);
  return [...seen];
}

/** The union of scope lists, in first-seen order. */
export function unionScopes(...lists: readonly (readonly string[] | undefined)[]): string[] {
  const seen = new Set<string>();
  for (const list of lists) for (const scope of list ?? []) seen.add(scope);
  return [...seen];
}

/** The scopes of `needed` that `granted` lacks. */
export function missingScopes(granted: readonly string[] | undefined, needed: readonly string[]): string[] {
  if (needed.length === 0) return [];
  const have = new Set(granted);
  return needed.filter((scope) => !have.has(scope));
}

/** `scopes` as the wire carries them, or undefined when there are none. */
export function formatScopes(scopes: readonly string[]): string | undefined {
  return scopes.length === 0 ? undefined : scopes.join(' ');
}

/**
 * What a scope is valid as on the wire (RFC 6749 §3.3: `%x21 / %x23-5B / %x5D-7E`): no spaces,
 * quotes or backslashes, so it fits a `scope` parameter and a quoted challenge.
 */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

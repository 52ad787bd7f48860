/**
 * Who is calling the gateway, as its rules see it: the principal's name (an API key's name, or an
 * OAuth token's subject), its groups (the token's `groups` and `roles` claims) and its scopes. Made
 * from the `ctx.auth` the front door verified; `undefined` without `gateway.auth`.
 */
import type { AuthInfo } from '../engine/channel.js';

/** The `issuer` of the credentials an API key verified (so their principals never meet a token's). */
export const API_KEY_ISSUER = 'switchboard:api-key';

export interface Caller {
  readonly name: string;
  readonly groups: readonly string[];
  readonly scopes: readonly string[];
  /** The principal as counters count it: issuer and name (an API key's "alice" is not a token's). */
  readonly id: string;
  /** One string per distinct caller and grant (name, groups, scopes): a key for per-caller caches. */
  readonly key: string;
}

const callers = new WeakMap<AuthInfo, Caller>();

function claimList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((v) => v !== '');
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The caller of a request; the same object for the same credentials (computed once per `AuthInfo`). */
export function callerOf(auth: AuthInfo | undefined): Caller | undefined {
  if (auth === undefined) return undefined;
  const known = callers.get(auth);
  if (known) return known;
  const claims = (auth.extra?.claims ?? {}) as Record<string, unknown>;
  const name = auth.subject ?? auth.clientId ?? '';
  const groups = [...new Set([...claimList(claims.groups), ...claimList(claims.roles)])].sort();
  const scopes = [...(auth.scopes ?? [])].sort();
  const caller: Caller = {
    name,
    groups,
    scopes,
    id: JSON.stringify([auth.issuer ?? '', name]),
    key: JSON.stringify([auth.issuer ?? '', name, groups, scopes]),
  };
  callers.set(auth, caller);
  return caller;
}

/**
 * The memory of one caller (by {@link Caller.key}) in a map of callers, made when missing; past
 * `max` callers the whole map starts over (what is remembered can always be worked out again).
 */
export function memoryOf<V>(callers: Map<string, Map<string, V>>, key: string, max: number): Map<string, V> {
  let memory = callers.get(key);
  if (memory === undefined) {
    if (callers.size >= max) callers.clear();
    memory = new Map();
    callers.set(key, memory);
  }
  return memory;
}

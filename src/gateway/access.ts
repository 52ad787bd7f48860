/**
 * `gateway.access`: who may use what. An ordered list of rules, each naming principals (`alice`,
 * `group:ops`, `scope:tools.read`, `*`) and globs over downstream names (tools, prompts) and URIs
 * (resources, templates) to `allow` and to `deny`. A caller's item is decided by the first rule that
 * names the caller and one of whose globs matches the item: `deny` over `allow` within a rule. What
 * no rule allows is denied. Decisions are remembered per caller (rules change only with the config).
 */
import { type Caller, memoryOf } from './caller.js';
import { glob } from './glob.js';

export interface AccessRule {
  readonly principals: readonly string[];
  readonly allow: readonly string[];
  readonly deny: readonly string[];
}

/** Does the principal list name this caller? `*` names everyone, signed in or not. */
export function namesCaller(principals: readonly string[], caller: Caller | undefined): boolean {
  for (const principal of principals) {
    if (principal === '*') return true;
    if (caller === undefined) continue;
    if (principal.startsWith('group:')) {
      if (caller.groups.includes(principal.slice('group:'.length))) return true;
    } else if (principal.startsWith('scope:')) {
      if (caller.scopes.includes(principal.slice('scope:'.length))) return true;
    } else if (principal === caller.name) return true;
  }
  return false;
}

interface Compiled {
  readonly principals: readonly string[];
  readonly allow: readonly RegExp[];
  readonly deny: readonly RegExp[];
}

/** Callers whose decisions are remembered at once; past it the memory starts over. */
const MAX_CALLERS = 10_000;
const ANONYMOUS = '\0anonymous';

export class AccessPolicy {
  readonly #rules: readonly Compiled[];
  readonly #decided = new Map<string, Map<string, boolean>>();

  constructor(rules: readonly AccessRule[]) {
    this.#rules = rules.map((rule) => ({
      principals: rule.principals,
      allow: rule.allow.map(glob),
      deny: rule.deny.map(glob),
    }));
  }

  /** May `caller` (undefined: nobody signed in) see and use the item shown as `name`? */
  allows(caller: Caller | undefined, name: string): boolean {
    const key = caller?.key ?? ANONYMOUS;
    const decided = memoryOf(this.#decided, key, MAX_CALLERS);
    let allowed = decided.get(name);
    if (allowed === undefined) {
      allowed = this.#decide(caller, name);
      decided.set(name, allowed);
    }
    return allowed;
  }

  #decide(caller: Caller | undefined, name: string): boolean {
    for (const rule of this.#rules) {
      if (!namesCaller(rule.principals, caller)) continue;
      if (rule.deny.some((pattern) => pattern.test(name))) return false;
      if (rule.allow.some((pattern) => pattern.test(name))) return true;
    }
    return false;
  }
}

/**
 * OAuth scopes declared at registration (`scopes: ['files:write']` on a tool, prompt, resource or
 * template). A caller whose credentials (`ctx.auth`) lack them does not see the item in lists and
 * cannot use it; over HTTP with `bearer()` the call is refused earlier, with 403 and the scopes to
 * ask for (step-up). A request without credentials (stdio, an HTTP server without authorization)
 * is not subject to scopes: there is no authorization to check them against.
 */

import { SwitchboardError } from '../protocol/errors.js';
import { missingScopes, SCOPE_TOKEN } from '../protocol/scopes.js';
import type { RequestContext } from './context.js';

/** The registration option. */
export interface ScopedConfig {
  /** OAuth scopes a caller's token must hold to see and use this item (HTTP with `bearer()`). */
  scopes?: readonly string[];
}

/** The scopes of each registered item, by its descriptor (a descriptor is replaced on update). */
const declared = new WeakMap<object, readonly string[]>();

/** Records the scopes `config` declares for `descriptor`; true when there are any. */
export function declareScopes(descriptor: object, config: ScopedConfig, what: string): boolean {
  const scopes = config.scopes;
  if (scopes === undefined) return false;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw new SwitchboardError(
      'CONFIG',
      `The scopes of ${what} must be an array of scope tokens (no spaces, quotes or backslashes), got ${JSON.stringify(scopes)}.`,
    );
  }
  if (scopes.length === 0) return false;
  declared.set(descriptor, Object.freeze([...scopes]));
  return true;
}

/** The scopes declared for an item, or an empty list. */
export const scopesOf = (descriptor: object | undefined): readonly string[] =>
  (descriptor && declared.get(descriptor)) || [];

/** Whether the caller of `ctx` may see and use the item (always, for a caller without credentials). */
export function callerHolds(descriptor: object, ctx: RequestContext): boolean {
  const needed = declared.get(descriptor);
  const auth = ctx.auth;
  return needed === undefined || auth === undefined || missingScopes(auth.scopes, needed).length === 0;
}

/**
 * The 2026-07-28 `_meta` envelope every modern request carries: how to tell a modern request from a
 * legacy one, and the one check of the client capabilities it must declare (the server pipeline and
 * the HTTP handler both apply it, with the same message).
 */

import { isPlainObject } from '../util/guards.js';
import { invalidParams, type ProtocolError } from './errors.js';
import type { Params } from './jsonrpc.js';
import { META } from './meta.js';
import type { ClientCapabilities } from './types.js';

/** Whether `params` carry the modern envelope (a `_meta` naming a protocol version). */
export function hasModernEnvelope(params: Params): boolean {
  const meta = params._meta;
  // A `_meta` that is not an object is refused with -32602 by the params check.
  return isPlainObject(meta) && META.protocolVersion in meta;
}

/** The client capabilities an envelope declares, or the -32602 error saying they are missing. */
export function envelopeCapabilities(meta: Record<string, unknown>): ClientCapabilities | ProtocolError {
  const capabilities = meta[META.clientCapabilities];
  if (isPlainObject(capabilities)) return capabilities as ClientCapabilities;
  return invalidParams(
    `Missing _meta["${META.clientCapabilities}"]: every 2026-07-28 request must declare the client's capabilities ({} for none).`,
  );
}

/**
 * The one middleware shape (after go-sdk's `MethodHandler`/`Middleware`): a handler takes a method,
 * its params and a context and returns the result; a middleware wraps a handler. Server and client
 * use it on both the receiving and the sending side; typed per-method hooks are built on top of it.
 */
import type { Params } from '../protocol/jsonrpc.js';

export type MethodHandler<Ctx> = (method: string, params: Params, ctx: Ctx) => Promise<unknown>;
export type Middleware<Ctx> = (next: MethodHandler<Ctx>) => MethodHandler<Ctx>;

/** Wraps `handler` so the first middleware in the list is the outermost. */
export function compose<Ctx>(
  handler: MethodHandler<Ctx>,
  middleware: readonly Middleware<Ctx>[],
): MethodHandler<Ctx> {
  let composed = handler;
  for (let i = middleware.length - 1; i >= 0; i--) composed = middleware[i]!(composed);
  return composed;
}

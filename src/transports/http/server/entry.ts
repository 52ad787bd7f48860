/**
 * `createHttpHandler` as the `switchboard` entry point exports it, without importing the HTTP server.
 *
 * The HTTP server is a dozen modules that a stdio server never runs, and in Node every module loaded
 * lengthens a server's cold start (about half a millisecond each, which added up to a third of a stdio
 * server's spawn-to-first-answer time). So the root entry reaches the implementation lazily:
 * - once the implementation is loaded (`switchboard/node` imports it, as does any direct import of
 *   `handler.js`), handlers are built by it directly, with their core, so the Node adapter's fast
 *   path finds them;
 * - otherwise the returned handler loads it on its first request. Options are still checked at once,
 *   so a configuration error is thrown here and not on the first request. The Node adapter finds the
 *   real handler behind it through {@link loadedHandlerOf}, and serves it by its fast path too.
 */
import type { Server } from '../../../server/server.js';
import type { HttpHandler } from './handler.js';
import { type HttpHandlerOptions, resolveOptions } from './options.js';

type CreateHttpHandler = (server: Server, options?: HttpHandlerOptions) => HttpHandler;

let implementation: CreateHttpHandler | undefined;

/** Handlers built before the implementation was loaded, and how each gets its real handler. */
const deferredHandlers = new WeakMap<HttpHandler, () => Promise<HttpHandler>>();

/** @internal The real handler behind one built before the implementation was loaded (loading it). */
export const loadedHandlerOf = (handler: HttpHandler): Promise<HttpHandler> | undefined =>
  deferredHandlers.get(handler)?.();

/** @internal Called by handler.ts as it loads. */
export function provideHttpHandler(create: CreateHttpHandler): void {
  implementation = create;
}

/** Serves `server` over HTTP: see `handler.ts` for what the handler does. */
export function createHttpHandler(server: Server, options: HttpHandlerOptions = {}): HttpHandler {
  if (implementation) return implementation(server, options);
  resolveOptions(options);
  let closed = false;
  let loaded: Promise<HttpHandler> | undefined;
  const load = () =>
    (loaded ??= import('./handler.js').then(async ({ createHttpHandler: create }) => {
      const handler = create(server, options);
      // Closed before its first request: later requests get the closed handler's 503.
      if (closed) await handler.close();
      return handler;
    }));
  const handler: HttpHandler = {
    fetch: (request, fetchOptions) => load().then((real) => real.fetch(request, fetchOptions)),
    close: () => {
      closed = true;
      return loaded ? loaded.then((real) => real.close()) : Promise.resolve();
    },
  };
  deferredHandlers.set(handler, load);
  return handler;
}

/**
 * `createHttpHandler(server)`: one `fetch`-style handler that serves MCP over HTTP in both eras (what
 * it routes where: see handler-core.ts).
 *
 * A handler is this module's {@link McpHttpHandler}. It serves requests two ways, both explicit:
 * - `fetch(Request)`, for every runtime with the Fetch API;
 * - {@link McpHttpHandler.serveExchange}, the runtime-neutral {@link HttpExchange} in, its
 *   {@link HttpReply} out, for adapters that skip WHATWG objects: `toNodeListener` serves a handler
 *   that has it that way (reading `IncomingMessage` directly, and a body an upstream parser left in
 *   `req.body`), and any other `{ fetch }` handler through `Request`/`Response`.
 *
 * The routing itself (handler-core.ts and the dozen modules behind it) is loaded when the first handler is
 * made, with a dynamic import: a stdio server never runs it, and in Node every module loaded
 * lengthens its cold start. Options are checked here, at once, so a configuration error is thrown by
 * `createHttpHandler` and not by the first request. Requests that arrive before the core is loaded
 * wait for it; after that, each is served with no extra step.
 */
import type { AuthInfo } from '../../../engine/channel.js';
import type { ServerCore } from '../../../server/server.js';
import { type HttpExchange, type HttpReply, internalErrorReply } from './exchange.js';
import type { HandlerCore } from './handler-core.js';
import { type HttpHandlerOptions, resolveOptions } from './options.js';

/** What the code mounting a handler knows about a request that the request itself does not say. */
export interface HttpFetchOptions {
  /**
   * Credentials your authentication layer verified for this request (e.g. from its bearer token).
   * Handlers read them as `ctx.auth`; a 2026-07-28 `requestState` and a task are bound to them.
   */
  auth?: AuthInfo;
}

/** A web-standard request handler serving one MCP server. */
export interface HttpHandler {
  /** Serves one request. Never rejects: failures become error responses. */
  fetch(request: Request, options?: HttpFetchOptions): Promise<Response>;
  /** Ends every stream and session, aborts requests in flight; later requests get 503. */
  close(): Promise<void>;
}

/** Serves `server` over HTTP (see the module comment). */
export function createHttpHandler(server: ServerCore, options: HttpHandlerOptions = {}): HttpHandler {
  return new McpHttpHandler(server, options);
}

/** @internal Whether `handler` was made by {@link createHttpHandler} (and so serves exchanges). */
export const isMcpHttpHandler = (handler: HttpHandler): handler is McpHttpHandler =>
  typeof (handler as Partial<McpHttpHandler>).serveExchange === 'function';

/** @internal The handler {@link createHttpHandler} makes. */
export class McpHttpHandler implements HttpHandler {
  /** The MCP endpoint's path (`options.endpoint`). */
  readonly endpoint: string;
  #core: HandlerCore | undefined;
  readonly #loading: Promise<HandlerCore>;

  constructor(server: ServerCore, options: HttpHandlerOptions) {
    const resolved = resolveOptions(options, server.logger);
    this.endpoint = resolved.endpoint;
    this.#loading = import('./handler-core.js').then(({ HandlerCore }) => {
      this.#core = new HandlerCore(server, resolved);
      return this.#core;
    });
  }

  /** Open legacy sessions (both legacy transports); 0 until the core is loaded. */
  get sessionCount(): number {
    return this.#core?.sessionCount ?? 0;
  }

  fetch(request: Request, options?: HttpFetchOptions): Promise<Response> {
    const auth = options?.auth;
    const core = this.#core;
    return core ? core.fetch(request, auth) : this.#loading.then((loaded) => loaded.fetch(request, auth));
  }

  /**
   * Serves one exchange: its reply, or a promise of it when the body must be read or the request is
   * served asynchronously. The promise rejects only on a bug: answer with {@link failure} then (one
   * promise less per request than catching here).
   */
  serveExchange(exchange: HttpExchange): HttpReply | Promise<HttpReply> {
    const core = this.#core;
    return core ? core.handle(exchange) : this.#loading.then((loaded) => loaded.handle(exchange));
  }

  /** The 500 reply for an unexpected error while serving an exchange (reported to `onerror`). */
  failure(error: unknown): HttpReply {
    if (this.#core) return this.#core.failure(error);
    return internalErrorReply(error);
  }

  close(): Promise<void> {
    // Closed before the core was loaded: it closes as soon as it is, before any request reaches it
    // (those wait on the same promise, after this), so they get the closed core's 503.
    const core = this.#core;
    return core ? core.close() : this.#loading.then((loaded) => loaded.close());
  }
}

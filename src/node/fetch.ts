/**
 * `nodeFetch`: the {@link FetchLike} for the HTTP client channels on Node, over undici's `dispatch()`
 * (the `undici` package, the HTTP client Node's own fetch is built on, at its lowest public layer).
 *
 * Why not Node's global fetch: building WHATWG `Request`/`Response`/`Headers` objects and web streams
 * costs several times an MCP exchange. Why not a hand-written `node:http` client (what this was):
 * measured side by side, undici's dispatcher spends less CPU per request (docs/benchmarks.md), and it
 * brings what a client behind a corporate network needs: `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`,
 * keep-alive pools with a bound on connections per origin. The response is exactly the
 * {@link ResponseLike} slice the channels read, filled straight from undici's handler callbacks.
 *
 * What it does beyond a bare request:
 * - cancellation through `init.cancel` (no AbortSignal per request) or `init.signal`; errors shaped
 *   like fetch's (`TypeError('fetch failed', { cause })`, `AbortError`, `TypeError('terminated')`);
 * - redirects (`follow`, up to 5; `manual`; `error`); a redirect to another origin carries only the
 *   protocol's own headers ({@link CROSS_ORIGIN_HEADERS}): Authorization, Cookie, the session id and
 *   every header the caller added stay behind;
 * - at most `connections` sockets per origin (default 64), kept alive and reused: more requests wait.
 *   GET requests (a legacy session's standalone event stream, held open as long as the session)
 *   have a pool of their own without that bound: only the client opens them, one per session, and
 *   counted with the rest the 65th session of a process would wait forever for its `initialize`;
 * - proxies: `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` read at the first request (loopback stays direct),
 *   or one given explicitly; tunnelled with CONNECT.
 *
 * undici is loaded on the first request, so importing `switchboard/node` to serve HTTP costs nothing.
 */
import { STATUS_CODES } from 'node:http';
import type { Dispatcher } from 'undici';
import type {
  ByteReaderLike,
  FetchCancel,
  FetchLike,
  RequestInitLike,
  ResponseLike,
} from '../transports/http/client/fetch-like.js';
import { isLoopbackHostname } from '../transports/http/server/security.js';

export interface NodeFetchOptions {
  /**
   * Most connections open to one origin at once for requests other than GET; more wait for a free
   * one. Default 64. Every request whose answer streams holds one until it ends: set it above the
   * number of calls you keep in flight at once, so the short requests that answer the server still
   * get through. GET event streams (one per legacy session) are not counted: they have a pool of
   * their own, since a session's stream lives as long as the session.
   */
  connections?: number;
  /**
   * `'env'` (default): `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (or their lower-case forms), read
   * at the first request; `false`: connect directly; a URL (`http://user:pass@proxy:3128`): that
   * proxy for every request.
   */
  proxy?: 'env' | false | string;
  /** An undici `Dispatcher` of your own (TLS settings, another proxy...): `connections` and `proxy` then do not apply. */
  dispatcher?: Dispatcher;
}

const DEFAULT_CONNECTIONS = 64;
const MAX_REDIRECTS = 5;
/** A redirect's body is dropped; past this size its connection is dropped with it. */
const MAX_REDIRECT_BODY = 64 * 1024;

/**
 * The headers a redirect to another origin keeps: those the protocol derives from the request
 * itself. Everything else may be a credential (Authorization, Cookie, Mcp-Session-Id, an API key
 * header) and stays with the origin it was meant for.
 */
const CROSS_ORIGIN_HEADERS = new Set([
  'accept',
  'content-type',
  'user-agent',
  'last-event-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
]);
const keptAcrossOrigins = (name: string) => CROSS_ORIGIN_HEADERS.has(name) || name.startsWith('mcp-param-');

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
/** undici, loaded once for every fetch of the process. */
const loadUndici = (): Promise<Undici> => {
  undici ??= import('undici');
  return undici;
};

/** Which dispatcher serves a request: by its URL, and whether it opens an event stream (a GET). */
type Route = (url: URL, stream: boolean) => Dispatcher;

/** Creates a {@link FetchLike} over undici with its own connection pool (see {@link NodeFetchOptions}). */
export function createNodeFetch(options: NodeFetchOptions = {}): FetchLike {
  const connections = options.connections ?? DEFAULT_CONNECTIONS;
  if (!Number.isInteger(connections) || connections < 1) {
    throw new TypeError(`createNodeFetch: connections must be a positive integer, got ${connections}.`);
  }
  const own = options.dispatcher;
  let route: Route | undefined = own ? () => own : undefined;
  let loading: Promise<Route> | undefined;
  const load = (): Promise<Route> =>
    (loading ??= loadUndici().then((module) => {
      const proxy = options.proxy ?? 'env';
      const bounded = routeOf(module, connections, proxy);
      const streams = routeOf(module, undefined, proxy);
      route = (url, stream) => (stream ? streams : bounded)(url);
      return route;
    }));

  // The channels send every request of a connection to one URL: it is parsed once, not per request.
  let memo: { readonly input: string; readonly target: Target } | undefined;
  const targetFor = (input: string): Target => {
    if (memo?.input !== input) memo = { input, target: targetOf(new URL(input)) };
    return memo.target;
  };

  return (input, init) =>
    new Promise<ResponseLike>((resolve, reject) => {
      // A channel's `requestInit: { dispatcher }` reaches here as it reaches undici's own fetch.
      const given = (init as { dispatcher?: Dispatcher }).dispatcher;
      const start = (using: Route) => {
        try {
          new Hop(using, targetFor(input), init, 0, resolve, reject).send();
        } catch (error) {
          // An invalid URL or header: fetch rejects with a TypeError rather than throwing.
          reject(error instanceof TypeError ? error : new TypeError('fetch failed', { cause: error }));
        }
      };
      if (given) start(() => given);
      else if (route) start(route);
      else load().then(start, (error) => reject(new TypeError('fetch failed', { cause: error })));
    });
}

/** The default node fetch, with a connection pool of its own. */
export const nodeFetch: FetchLike = createNodeFetch();

/** The dispatchers of one pool (at most `connections` sockets per origin, or unbounded). */
function routeOf(
  module: Undici,
  connections: number | undefined,
  proxy: 'env' | false | string,
): (url: URL) => Dispatcher {
  const direct = new module.Agent({ connections });
  if (proxy === false) return () => direct;
  if (proxy !== 'env') {
    const proxied = new module.ProxyAgent({ uri: proxy, connections });
    return () => proxied;
  }
  const env = process.env;
  const set = (name: string) => Boolean(env[name] ?? env[name.toUpperCase()]);
  // Without a proxy, no per-request NO_PROXY check (EnvHttpProxyAgent parses every origin).
  if (!set('http_proxy') && !set('https_proxy')) return () => direct;
  // A proxy from the environment is for the outside world: loopback stays direct (as Go's
  // ProxyFromEnvironment does), since a local MCP server is the common case and a corporate proxy
  // cannot reach it. NO_PROXY applies to everything else.
  const proxied = new module.EnvHttpProxyAgent({ connections });
  return (url) => (isLoopbackHostname(url.hostname) ? direct : proxied);
}

/** Where a request goes, read off its URL once: the parts undici's `dispatch()` takes. */
interface Target {
  readonly url: URL;
  readonly origin: string;
  readonly path: string;
  /** `Basic` credentials from the URL's user and password (fetch, like undici, sends none itself). */
  readonly basic: string | undefined;
}

function targetOf(url: URL): Target {
  const basic = url.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    : undefined;
  return { url, origin: url.origin, path: url.pathname + url.search, basic };
}

const abortError = (reason: unknown): Error =>
  reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');

/**
 * One request of a fetch: a redirect to follow sends the next hop when this one's response is over,
 * resolving the same promise. It is the undici handler of its request, and watches its abort.
 */
class Hop implements Dispatcher.DispatchHandler {
  readonly #cancel: FetchCancel | undefined;
  readonly #signal: AbortSignal | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #response: NodeResponse | undefined;
  #settled = false;
  /** Set while the response is a redirect being followed: where to, its status, its body's bytes seen. */
  #next: URL | undefined;
  #redirectStatus = 0;
  #dropped = 0;

  constructor(
    private readonly route: Route,
    private readonly target: Target,
    private readonly init: RequestInitLike,
    private readonly hops: number,
    private readonly resolve: (response: ResponseLike) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    // The channels' cheap cancellation when there is one; a signal otherwise (read only then).
    this.#cancel = init.cancel;
    this.#signal = this.#cancel ? undefined : init.signal;
  }

  send(): void {
    if (this.#cancel ? this.#cancel.aborted : this.#signal?.aborted) {
      this.reject(abortError(this.#cancel ? this.#cancel.reason : this.#signal?.reason));
      return;
    }
    const { target, init } = this;
    if (this.#cancel) this.#cancel.onabort = this.#onAbort;
    else this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.route(target.url, init.method === 'GET').dispatch(
      {
        origin: target.origin,
        path: target.path,
        method: init.method as Dispatcher.HttpMethod,
        headers: requestHeaders(target, init),
        body: init.body,
      },
      this,
    );
  }

  /** Aborted by the caller: fail the request (or the reading of its response) with the reason. */
  readonly #onAbort = (): void => {
    const error = abortError(this.#cancel ? this.#cancel.reason : this.#signal?.reason);
    this.#detach();
    // Failed first: aborting the controller reports an error of undici's own, synchronously.
    this.#fail(error);
    this.#controller?.abort(error);
  };

  #detach(): void {
    if (this.#cancel) {
      if (this.#cancel.onabort === this.#onAbort) this.#cancel.onabort = undefined;
    } else this.#signal?.removeEventListener('abort', this.#onAbort);
  }

  #fail(error: Error): void {
    if (!this.#settled) {
      this.#settled = true;
      this.reject(error);
    }
    this.#response?.fail(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while it waited for a connection: the promise already rejected.
    if (this.#settled && !this.#response) controller.abort(abortError(undefined));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    statusText?: string,
  ): void {
    if (this.#settled) return;
    const location = headers.location;
    const redirect = this.init.redirect ?? 'follow';
    if (isRedirect(status) && typeof location === 'string' && redirect !== 'manual') {
      let next: URL | undefined;
      let problem: string | undefined;
      if (redirect === 'error') problem = `redirected to ${location}`;
      else if (this.hops === MAX_REDIRECTS) problem = 'too many redirects';
      else {
        try {
          next = new URL(location, this.target.url);
        } catch (error) {
          problem = `an invalid redirect location (${(error as Error).message})`;
        }
      }
      if (next === undefined) {
        this.#settled = true;
        this.#detach();
        controller.abort(new Error(problem));
        this.reject(new TypeError('fetch failed', { cause: new Error(problem) }));
        return;
      }
      // Its body is read and dropped, so the connection can serve the next request.
      this.#next = next;
      this.#redirectStatus = status;
      return;
    }
    this.#settled = true;
    this.#response = new NodeResponse(status, statusText || STATUS_CODES[status] || '', headers, controller);
    this.resolve(this.#response);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#next) {
      this.#dropped += chunk.length;
      if (this.#dropped > MAX_REDIRECT_BODY) controller.abort(new Error('redirect body too large'));
      return;
    }
    this.#response?.push(chunk, controller);
  }

  onResponseEnd(): void {
    this.#detach();
    const next = this.#next;
    if (next) {
      this.#next = undefined;
      this.#follow(next);
      return;
    }
    this.#response?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#detach();
    if (this.#next && this.#dropped > MAX_REDIRECT_BODY && !this.#settled) {
      // The redirect's body was too large to drain: follow it anyway, on another connection.
      const next = this.#next;
      this.#next = undefined;
      this.#follow(next);
      return;
    }
    if (!this.#settled) {
      this.#settled = true;
      const aborted = this.#cancel ? this.#cancel.aborted : this.#signal?.aborted;
      this.reject(aborted ? error : new TypeError('fetch failed', { cause: error }));
      return;
    }
    this.#response?.fail(new TypeError('terminated', { cause: error }));
  }

  #follow(next: URL): void {
    const init = redirected(this.init, this.#redirectStatus, this.target.url, next);
    new Hop(this.route, targetOf(next), init, this.hops + 1, this.resolve, this.reject).send();
  }
}

const isRedirect = (status: number) =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/**
 * The request's headers: the caller's, plus Basic credentials from the URL (undici, like fetch, takes
 * none from it). Host and Content-Length are undici's to set.
 */
function requestHeaders(target: Target, init: RequestInitLike): Record<string, string> {
  if (target.basic === undefined || 'authorization' in init.headers) return init.headers;
  return { ...init.headers, authorization: target.basic };
}

/** The request a redirect from `from` to `to` makes of `init`. */
function redirected(init: RequestInitLike, status: number, from: URL, to: URL): RequestInitLike {
  let headers = { ...init.headers };
  if (to.origin !== from.origin) {
    headers = {};
    for (const name in init.headers) if (keptAcrossOrigins(name)) headers[name] = init.headers[name]!;
  }
  // 303 (and 301/302 after a POST) turn into a GET without a body; 307/308 repeat the request.
  const toGet = status === 303 || ((status === 301 || status === 302) && init.method === 'POST');
  if (!toGet) return { ...init, headers };
  delete headers['content-type'];
  return { ...init, method: init.method === 'HEAD' ? 'HEAD' : 'GET', headers, body: undefined };
}

/** Response headers by name, case-insensitively; repeated headers joined with ', '. */
class NodeHeaders {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * A {@link ResponseLike} filled by undici's handler: read once, as text or as a byte stream. A
 * stream reader pauses the connection whenever it holds an unread chunk (backpressure).
 */
class NodeResponse implements ResponseLike {
  readonly headers: NodeHeaders;
  readonly #controller: Dispatcher.DispatchController;
  readonly #chunks: Buffer[] = [];
  #ended = false;
  #failure: Error | undefined;
  #streaming = false;
  /** The reader or text() waiting for more. */
  #waiter: (() => void) | undefined;

  constructor(
    readonly status: number,
    readonly statusText: string,
    headers: Record<string, string | string[] | undefined>,
    controller: Dispatcher.DispatchController,
  ) {
    this.headers = new NodeHeaders(headers);
    this.#controller = controller;
  }

  push(chunk: Buffer, controller: Dispatcher.DispatchController): void {
    // undici hands over an empty chunk each time a paused response resumes with nothing parsed yet:
    // queued, it would wake the reader with no bytes, which resumes again, forever, never yielding
    // to the event loop (an endless body then never reached the caller's size cap).
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    if (this.#streaming) {
      controller.pause();
      this.#wake();
    }
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** The request was aborted or the connection broke: reading fails with `error`. */
  fail(error: Error): void {
    this.#failure ??= error;
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  get body(): { getReader(): ByteReaderLike } {
    return { getReader: () => this.#reader() };
  }

  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      const settle = () => {
        if (this.#failure) reject(this.#failure);
        else if (!this.#ended) this.#waiter = settle;
        else {
          const chunks = this.#chunks;
          resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
        }
      };
      settle();
    });
  }

  #reader(): ByteReaderLike {
    this.#streaming = true;
    return {
      read: async () => {
        for (;;) {
          const chunk = this.#chunks.shift();
          if (chunk) return { done: false, value: chunk };
          if (this.#failure) throw this.#failure;
          if (this.#ended) return { done: true, value: undefined };
          await new Promise<void>((resolve) => {
            this.#waiter = resolve;
            this.#controller.resume();
          });
        }
      },
      cancel: async () => {
        if (this.#ended || this.#failure) return;
        this.#failure = new DOMException('The response was cancelled', 'AbortError');
        this.#controller.abort(this.#failure);
      },
    };
  }
}

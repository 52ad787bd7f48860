/**
 * A `fetch` for the HTTP client channels built on `node:http`/`node:https` with keep-alive
 * agents. Node's built-in fetch (undici) spends most of an MCP call's client CPU on the Fetch
 * machinery itself (Request/Response/Headers objects, WHATWG streams, transferable wrappers): on a
 * small JSON round trip it costs several times a bare `http.request`. The channels only need the
 * {@link ResponseLike} slice of a Response, so this answers with exactly that, straight from the
 * `IncomingMessage`.
 *
 * Pass it as `fetch: nodeFetch`. It supports what the channels use: string bodies, plain-object
 * headers, `AbortSignal`, redirects (`follow` up to 5, `manual`, `error`), and gives errors the
 * shape fetch gives (`TypeError('fetch failed', { cause })`, `AbortError` on abort). The channels
 * cancel their requests through an internal abort hook rather than a signal (see fetch-like.ts).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  ABORT_HOOK,
  type ByteReaderLike,
  type FetchLike,
  type HookedRequestInit,
  type RequestInitLike,
  type ResponseLike,
  takesAbortHook,
} from '../transports/http/client/fetch-like.js';

export interface NodeFetchOptions {
  /** Agent for http: URLs. Default: a keep-alive agent of this module. */
  httpAgent?: HttpAgent;
  /** Agent for https: URLs. Default: a keep-alive agent of this module. */
  httpsAgent?: HttpsAgent;
}

const MAX_REDIRECTS = 5;

/** Creates a {@link FetchLike} over `node:http(s)` with the given agents. */
export function createNodeFetch(options: NodeFetchOptions = {}): FetchLike {
  const httpAgent = options.httpAgent ?? new HttpAgent({ keepAlive: true });
  const httpsAgent = options.httpsAgent ?? new HttpsAgent({ keepAlive: true });

  /** One request; a redirect to follow sends the next from its response, on the same promise. */
  const send = (
    url: URL,
    init: HookedRequestInit,
    hops: number,
    resolve: (response: NodeResponse) => void,
    reject: (error: unknown) => void,
  ): void => {
    // The channels' cancellation: a hook to set (no AbortSignal listener per request) or a signal.
    const hook = init[ABORT_HOOK];
    const { signal } = init;
    if (hook ? hook.aborted : signal.aborted) {
      reject(abortError(hook ? hook.reason : signal.reason));
      return;
    }
    const https = url.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      // IPv6 literals come bracketed in URL.hostname; the socket wants them without.
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: init.method,
      headers: rawHeaders(url, init),
      agent: https ? httpsAgent : httpAgent,
    });
    let response: NodeResponse | undefined;
    const onAbort = () => {
      const error = abortError(hook ? hook.reason : signal.reason);
      req.destroy(error);
      response?.fail(error);
      reject(error);
    };
    let detach: () => void;
    if (hook) {
      hook.onabort = onAbort;
      detach = () => {
        if (hook.onabort === onAbort) hook.onabort = undefined;
      };
    } else {
      signal.addEventListener('abort', onAbort, { once: true });
      detach = () => signal.removeEventListener('abort', onAbort);
    }
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (!isRedirect(status) || location === undefined || init.redirect === 'manual') {
        response = new NodeResponse(res, detach);
        resolve(response);
        return;
      }
      // Drop the redirect's body so the socket can be reused, and follow it (or refuse to).
      detach();
      res.resume();
      if (init.redirect === 'error' || hops === MAX_REDIRECTS) {
        reject(
          new TypeError('fetch failed', {
            cause: new Error(init.redirect === 'error' ? `redirected to ${location}` : 'too many redirects'),
          }),
        );
        return;
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch (error) {
        reject(new TypeError('fetch failed', { cause: error }));
        return;
      }
      send(next, redirected(init, status, url, next), hops + 1, resolve, reject);
    });
    req.on('error', (error) => {
      detach();
      if (!(hook ? hook.aborted : signal.aborted)) reject(new TypeError('fetch failed', { cause: error }));
    });
    req.end(init.body);
  };

  const fetch: FetchLike = (input, init) =>
    new Promise((resolve, reject) => {
      try {
        send(parseUrl(input), init, 0, resolve, reject);
      } catch (error) {
        // An invalid URL or header: fetch rejects with a TypeError rather than throwing.
        reject(error instanceof TypeError ? error : new TypeError('fetch failed', { cause: error }));
      }
    });
  takesAbortHook.add(fetch);
  return fetch;
}

/** The default node fetch, with keep-alive agents of its own. */
export const nodeFetch: FetchLike = createNodeFetch();

/**
 * The request headers as a raw `[name, value, ...]` list: `node:http` then writes them as given,
 * where a headers object costs a `setHeader` (a validation and a map entry) per header. What it
 * would add to an object itself, we add: `Host`, `Content-Length` and Basic credentials from the URL.
 */
function rawHeaders(url: URL, init: RequestInitLike): string[] {
  const list: string[] = [];
  let host = false;
  let authorization = false;
  for (const name in init.headers) {
    const lower = name.toLowerCase();
    // A body's Content-Length is its own, whatever the caller said.
    if (lower === 'content-length' && init.body !== undefined) continue;
    if (lower === 'host') host = true;
    else if (lower === 'authorization') authorization = true;
    list.push(name, init.headers[name]!);
  }
  if (!host) list.push('host', url.host);
  if (init.body !== undefined) list.push('content-length', String(Buffer.byteLength(init.body)));
  if (url.username && !authorization) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    list.push('authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
  }
  return list;
}

/** The request a redirect from `from` to `to` makes of `init`. */
function redirected(init: HookedRequestInit, status: number, from: URL, to: URL): HookedRequestInit {
  const headers = { ...init.headers };
  // Like fetch: credentials do not follow a redirect to another origin.
  if (to.origin !== from.origin) delete headers.authorization;
  // 303 (and 301/302 after a POST) turn into a GET without a body; 307/308 repeat the request.
  const toGet = status === 303 || ((status === 301 || status === 302) && init.method === 'POST');
  if (!toGet) return { ...init, headers };
  delete headers['content-type'];
  return { ...init, method: init.method === 'HEAD' ? 'HEAD' : 'GET', headers, body: undefined };
}

/** The channels fetch the same few URLs over and over: parse each once. */
const parsed = new Map<string, URL>();
function parseUrl(input: string): URL {
  let url = parsed.get(input);
  if (url === undefined) {
    url = new URL(input);
    if (parsed.size >= 64) parsed.clear();
    parsed.set(input, url);
  }
  return url;
}

const isRedirect = (status: number) =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

function abortError(reason: unknown): Error {
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/** Response headers by name, case-insensitively; repeated headers joined with ', '. */
class NodeHeaders {
  constructor(private readonly raw: IncomingMessage['headers']) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * A {@link ResponseLike} over an `IncomingMessage`: read it once, as text or as a byte stream.
 * Listeners are added with `on`, not `once`: each event fires at most once per response anyway, and
 * `once` allocates a wrapper per listener (four per response on the hot path).
 */
class NodeResponse implements ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: NodeHeaders;
  readonly #res: IncomingMessage;
  #failure: Error | undefined;

  constructor(res: IncomingMessage, done: () => void) {
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.headers = new NodeHeaders(res.headers);
    res.on('close', done);
  }

  get body(): { getReader(): ByteReaderLike } {
    return { getReader: () => this.#reader() };
  }

  text(): Promise<string> {
    const res = this.#res;
    return new Promise((resolve, reject) => {
      if (this.#failure) return reject(this.#failure);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
      );
      res.on('error', (error) => reject(this.#failure ?? new TypeError('terminated', { cause: error })));
      res.on('close', () => {
        if (!res.complete) reject(this.#failure ?? new TypeError('terminated'));
      });
    });
  }

  /** The request was aborted: reading fails with the abort reason. */
  fail(error: Error): void {
    this.#failure = error;
    this.#res.destroy(error);
  }

  #reader(): ByteReaderLike {
    const res = this.#res;
    const chunks: Buffer[] = [];
    let ended = false;
    let error: Error | undefined;
    let waiter: (() => void) | undefined;
    const wake = () => {
      const w = waiter;
      waiter = undefined;
      w?.();
    };
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Back-pressure: hold the socket until the reader asks for more.
      res.pause();
      wake();
    });
    res.on('end', () => {
      ended = true;
      wake();
    });
    res.on('error', (e) => {
      error = this.#failure ?? new TypeError('terminated', { cause: e });
      wake();
    });
    res.on('close', () => {
      if (!res.complete && !error) error = this.#failure ?? new TypeError('terminated');
      ended = true;
      wake();
    });
    return {
      read: async () => {
        for (;;) {
          const chunk = chunks.shift();
          if (chunk) return { done: false, value: chunk };
          if (error) throw error;
          if (ended) return { done: true, value: undefined };
          await new Promise<void>((resolve) => {
            waiter = resolve;
            res.resume();
          });
        }
      },
      cancel: async () => {
        res.destroy();
      },
    };
  }
}

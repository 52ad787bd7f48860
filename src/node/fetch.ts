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
 * shape fetch gives (`TypeError('fetch failed', { cause })`, `AbortError` on abort).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type {
  ByteReaderLike,
  FetchLike,
  RequestInitLike,
  ResponseLike,
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
  const fetchOnce = (url: URL, init: RequestInitLike): Promise<NodeResponse> =>
    new Promise((resolve, reject) => {
      const { signal } = init;
      if (signal.aborted) return reject(abortError(signal));
      const https = url.protocol === 'https:';
      const headers: Record<string, string | number> = { ...init.headers };
      if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
      const req = (https ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        // IPv6 literals come bracketed in URL.hostname's sibling `host`; `hostname` is without them.
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        auth: url.username
          ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
          : undefined,
        method: init.method,
        headers,
        agent: https ? httpsAgent : httpAgent,
      });
      let response: NodeResponse | undefined;
      const onAbort = () => {
        const error = abortError(signal);
        req.destroy(error);
        response?.fail(error);
        reject(error);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const detach = () => signal.removeEventListener('abort', onAbort);
      req.once('response', (res) => {
        response = new NodeResponse(res, detach);
        resolve(response);
      });
      req.once('error', (error) => {
        detach();
        if (!signal.aborted) reject(new TypeError('fetch failed', { cause: error }));
      });
      req.end(init.body);
    });

  return async (input, init) => {
    let url = parseUrl(input);
    let current = init;
    for (let hops = 0; ; hops++) {
      const response = await fetchOnce(url, current);
      const location = response.headers.get('location');
      if (!isRedirect(response.status) || location === null || current.redirect === 'manual') return response;
      response.discard();
      if (current.redirect === 'error' || hops === MAX_REDIRECTS) {
        throw new TypeError('fetch failed', {
          cause: new Error(current.redirect === 'error' ? `redirected to ${location}` : 'too many redirects'),
        });
      }
      const next = new URL(location, url);
      const headers = { ...current.headers };
      // Like fetch: credentials do not follow a redirect to another origin.
      if (next.origin !== url.origin) delete headers.authorization;
      // 303 (and 301/302 after a POST) turn into a GET without a body; 307/308 repeat the request.
      const toGet =
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && current.method === 'POST');
      if (toGet) {
        delete headers['content-type'];
        current = {
          ...current,
          method: current.method === 'HEAD' ? 'HEAD' : 'GET',
          headers,
          body: undefined,
        };
      } else {
        current = { ...current, headers };
      }
      url = next;
    }
  };
}

/** The default node fetch, with keep-alive agents of its own. */
export const nodeFetch: FetchLike = createNodeFetch();

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

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/** A {@link ResponseLike} over an `IncomingMessage`: read it once, as text or as a byte stream. */
class NodeResponse implements ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly #res: IncomingMessage;
  #failure: Error | undefined;

  constructor(res: IncomingMessage, done: () => void) {
    this.#res = res;
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    const raw = res.headers;
    this.headers = {
      get: (name) => {
        const value = raw[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    };
    res.once('close', done);
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
      res.once('end', () =>
        resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8')),
      );
      res.once('error', (error) => reject(this.#failure ?? new TypeError('terminated', { cause: error })));
      res.once('close', () => {
        if (!res.complete) reject(this.#failure ?? new TypeError('terminated'));
      });
    });
  }

  /** Drops the body (after a redirect) so the socket can be reused. */
  discard(): void {
    this.#res.resume();
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
    res.once('end', () => {
      ended = true;
      wake();
    });
    res.once('error', (e) => {
      error = this.#failure ?? new TypeError('terminated', { cause: e });
      wake();
    });
    res.once('close', () => {
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

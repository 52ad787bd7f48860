/**
 * The HTTP requests of OAuth (metadata documents, JWKS, token, registration and introspection
 * endpoints), made the same way on both sides: with the `fetch` the caller gave (a WHATWG one:
 * `oauth4webapi` and `jose` need real `Response`s), a timeout, no redirects, and the transport rule
 * of OAuth 2.1 §1.5: https only, except on loopback hosts (development), unless told otherwise.
 */
import * as oauth from 'oauth4webapi';
import { SwitchboardError } from '../protocol/errors.js';
import { clip } from '../util/clip.js';
import { isLoopbackUrl } from './urls.js';

export type WebFetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface OAuthHttpOptions {
  /** The fetch for OAuth requests (a WHATWG fetch). Default: the global one. */
  fetch?: WebFetch;
  /**
   * Allow plain http to any host. Default false: OAuth endpoints must use https, except on
   * loopback hosts (`localhost`, `127.0.0.1`, `[::1]`), which development servers use.
   */
  allowInsecureHttp?: boolean;
  /** How long one request may take. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Largest metadata or JWKS document read, in bytes: reading stops there (the rest is not
 * downloaded) and the document counts as unavailable, as one that does not come in time.
 */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

export class OAuthHttp {
  readonly fetch: WebFetch;
  readonly #allowInsecure: boolean;
  readonly #timeoutMs: number;

  constructor(options: OAuthHttpOptions = {}) {
    const given = options.fetch;
    if (given === undefined && typeof globalThis.fetch !== 'function') {
      throw new SwitchboardError(
        'CONFIG',
        'OAuth needs a fetch: this runtime has none; pass one as `fetch`.',
      );
    }
    // Called unbound: browsers reject a fetch invoked with another object as `this`.
    this.fetch = given ?? ((input, init) => globalThis.fetch(input, init));
    this.#allowInsecure = options.allowInsecureHttp === true;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Refuses a URL the transport rule forbids; `what` names it in the message. */
  check(url: string | URL, what: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `${what} ${JSON.stringify(clip(String(url)))} is not a URL.`,
      );
    }
    if (parsed.protocol === 'https:') return parsed;
    if (parsed.protocol === 'http:' && (this.#allowInsecure || isLoopbackUrl(parsed))) return parsed;
    throw new SwitchboardError(
      'AUTHORIZATION',
      `${what} ${clip(parsed.origin + parsed.pathname)} must use https (plain http is accepted only on loopback hosts, or with allowInsecureHttp).`,
    );
  }

  /** A signal that aborts after the timeout. */
  signal(): AbortSignal {
    return AbortSignal.timeout(this.#timeoutMs);
  }

  /**
   * `fetch` for a document (metadata, JWKS): its body ends in an error once more than
   * {@link MAX_DOCUMENT_BYTES} arrive (or its Content-Length says more will), and the download stops.
   */
  readonly documentFetch: WebFetch = async (input, init) => capped(await this.fetch(input, init));

  /** Options for `oauth4webapi` calls: our fetch, our timeout; the transport rule is checked by us. */
  options<T extends object>(extra?: T): T & oauth.HttpRequestOptions<any, any> {
    return {
      ...(extra as T),
      signal: () => this.signal(),
      [oauth.customFetch]: (url: string, init: RequestInit) => this.fetch(url, init),
      [oauth.allowInsecureRequests]: true,
    } as T & oauth.HttpRequestOptions<any, any>;
  }

  /**
   * GETs a JSON document: `{ status, body }`, where `body` is the parsed object for a 200 JSON
   * object reply (undefined otherwise). Network failures throw a SwitchboardError naming `what`.
   */
  async getJson(
    url: string,
    what: string,
  ): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    const target = this.check(url, what);
    let response: Response;
    try {
      response = await this.documentFetch(target.href, {
        headers: { accept: 'application/json' },
        redirect: 'manual',
        signal: this.signal(),
      });
    } catch (error) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `Could not fetch ${what} from ${target.origin}${target.pathname}: ${(error as Error)?.message ?? error}.`,
        { cause: error },
      );
    }
    const text = await response.text().catch(() => undefined);
    if (response.status !== 200 || text === undefined) return { status: response.status, body: undefined };
    try {
      const value = JSON.parse(text) as unknown;
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      return { status: response.status, body: isObject ? (value as Record<string, unknown>) : undefined };
    } catch {
      return { status: response.status, body: undefined };
    }
  }
}

/** `response` with a body that errors past {@link MAX_DOCUMENT_BYTES}, cancelling the rest. */
function capped(response: Response): Response {
  const { body } = response;
  if (body === null) return response;
  const tooLarge = () =>
    new SwitchboardError(
      'MESSAGE_TOO_LARGE',
      `the document exceeds ${MAX_DOCUMENT_BYTES} bytes; it was not read`,
    );
  if (Number(response.headers.get('content-length')) > MAX_DOCUMENT_BYTES) {
    body.cancel().catch(() => undefined);
    return new Response(
      new ReadableStream({ start: (controller) => controller.error(tooLarge()) }),
      response,
    );
  }
  let size = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      // Erroring the transform cancels the source: the download stops here.
      if (size > MAX_DOCUMENT_BYTES) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
  return new Response(body.pipeThrough(limit), response);
}

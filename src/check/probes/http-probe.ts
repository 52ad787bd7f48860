/**
 * The HTTP requests the checker writes by hand and what it reads of their answers: shared by the
 * Streamable HTTP, HTTP+SSE and authorization probes (none of which imports another).
 */
import { nodeFetch } from '../../node/fetch.js';
import type { ResponseLike } from '../../transports/http/client/fetch-like.js';
import { brief, type Json } from '../wire.js';

/** Largest body read from one answer. */
const MAX_BODY = 256 * 1024;

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly headers: ResponseLike['headers'];
  /** The JSON-RPC message in the body (the first response of an event stream), if any. */
  readonly message?: Json;
  /** Every JSON-RPC response in the body (the items of a JSON array, the responses of an event stream). */
  readonly responses: readonly Json[];
}

export interface Target {
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
}

export class HttpProbe {
  readonly url: string;
  readonly local: boolean;
  constructor(
    readonly target: Target,
    readonly timeoutMs: number,
  ) {
    this.url = String(target.url);
    const host = new URL(this.url).hostname;
    this.local =
      host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
  }

  /**
   * One request. `body`: a value sent as JSON, or a string sent as is. `read: false` takes the
   * status and headers only (an event stream that stays open is not waited for); `anonymous`
   * leaves out the target's Authorization header; `url` asks another address (a metadata document).
   */
  async send(
    method: string,
    headers: Record<string, string>,
    body?: unknown,
    options: {
      readonly read?: boolean;
      readonly anonymous?: boolean;
      readonly url?: string;
      /** Responses an event stream is read for (default 1). */
      readonly responses?: number;
    } = {},
  ): Promise<Answer> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    try {
      const response = await nodeFetch(options.url ?? this.url, {
        method,
        headers: {
          ...(options.anonymous ? withoutAuthorization(this.target.headers) : this.target.headers),
          ...headers,
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        signal: controller.signal,
      });
      const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
      const responses =
        options.read === false ? [] : await readResponses(response, contentType, options.responses);
      return {
        status: response.status,
        contentType,
        headers: response.headers,
        ...(responses[0] ? { message: responses[0] } : {}),
        responses,
      };
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }
}

/** A GET that opens an event stream: its response, read by the caller, until `close` (or `timeoutMs`). */
export async function openStream(
  http: HttpProbe,
  headers: Record<string, string>,
): Promise<{ response: ResponseLike; close(): void }> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`the event stream did not deliver within ${http.timeoutMs} ms`)),
    http.timeoutMs,
  );
  const close = () => {
    clearTimeout(timer);
    controller.abort();
  };
  try {
    const response = await nodeFetch(http.url, {
      method: 'GET',
      headers: { ...http.target.headers, accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    return { response, close };
  } catch (error) {
    close();
    throw error;
  }
}

function withoutAuthorization(headers: Readonly<Record<string, string>> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
  );
}

/**
 * The body's JSON-RPC responses: a JSON body's object (or the items of its array), an event
 * stream's responses up to `expected` of them (read until the stream ends otherwise).
 */
async function readResponses(response: ResponseLike, contentType: string, expected = 1): Promise<Json[]> {
  if (!response.body) return [];
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const stream = contentType.startsWith('text/event-stream');
  const found = () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => parse(line.slice(5).trim()))
      .filter((m): m is Json => m !== undefined && ('result' in m || 'error' in m));
  try {
    while (text.length < MAX_BODY) {
      const { done, value } = await reader.read();
      if (value) text += decoder.decode(value, { stream: true });
      if (stream && found().length >= expected) break;
      if (done) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (stream) return found();
  try {
    const value: unknown = JSON.parse(text);
    const items = Array.isArray(value) ? value : [value];
    return items.filter((m): m is Json => typeof m === 'object' && m !== null && !Array.isArray(m));
  } catch {
    return [];
  }
}

export function parse(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

export const describe = (answer: Answer) =>
  `HTTP ${answer.status} (${answer.contentType || 'no Content-Type'})${answer.message ? ` ${brief(answer.message, 200)}` : ''}`;

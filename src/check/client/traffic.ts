/**
 * What a client did, as the scripted server saw it: every HTTP exchange (method, headers, the
 * JSON-RPC message it carried, the status) and, in order, every message either side sent (the
 * server's read from a copy of each response body, JSON or event stream). A scenario's trick may
 * answer an exchange itself (a 404 for an expired session) before the server sees it.
 */

import { messageData, readEventStream } from '../../transports/http/client/sse-reader.js';
import type { HttpHandler } from '../../transports/http/server/handler.js';
import { isPlainObject } from '../../util/guards.js';
import type { Json } from '../wire.js';

export interface Exchange {
  readonly seq: number;
  readonly httpMethod: string;
  /** Request headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON-RPC message (or batch) of a POST, when its body was JSON. */
  readonly message: unknown;
  status: number;
  /** Response headers, names in lower case. */
  responseHeaders: Record<string, string>;
  /** Set when the scenario's trick answered instead of the server. */
  trick?: string;
}

export interface TrafficEvent {
  readonly from: 'client' | 'server';
  readonly message: Json;
  readonly exchange: Exchange;
}

/** A trick answers an exchange in the server's place, or returns undefined to let it through. */
export type Trick = (
  exchange: Exchange,
  traffic: TrafficRecorder,
) => { response: Response; what: string } | undefined;

const MAX_EVENT_BYTES = 4 * 1024 * 1024;

const headerRecord = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
};

export class TrafficRecorder implements HttpHandler {
  readonly exchanges: Exchange[] = [];
  readonly events: TrafficEvent[] = [];
  readonly #reads: Promise<void>[] = [];

  constructor(
    readonly inner: HttpHandler,
    readonly trick?: Trick,
  ) {}

  readonly fetch = async (request: Request): Promise<Response> => {
    const text = request.method === 'POST' ? await request.text() : '';
    let message: unknown;
    try {
      message = text === '' ? undefined : JSON.parse(text);
    } catch {
      message = undefined;
    }
    const exchange: Exchange = {
      seq: this.exchanges.length,
      httpMethod: request.method,
      headers: headerRecord(request.headers),
      message,
      status: 0,
      responseHeaders: {},
    };
    this.exchanges.push(exchange);
    for (const m of Array.isArray(message) ? message : [message])
      if (isPlainObject(m)) this.events.push({ from: 'client', message: m, exchange });
    const tricked = this.trick?.(exchange, this);
    let response: Response;
    if (tricked) {
      exchange.trick = tricked.what;
      response = tricked.response;
    } else {
      response = await this.inner.fetch(
        new Request(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.method === 'POST' ? { body: text } : {}),
          signal: request.signal,
        }),
      );
    }
    exchange.status = response.status;
    exchange.responseHeaders = headerRecord(response.headers);
    if (!response.body) return response;
    const [toClient, toUs] = response.body.tee();
    this.#reads.push(this.#read(toUs, exchange).catch(() => {}));
    return new Response(toClient, { status: response.status, headers: response.headers });
  };

  async #read(body: ReadableStream<Uint8Array>, exchange: Exchange): Promise<void> {
    const record = (text: string) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return;
      }
      for (const m of Array.isArray(value) ? value : [value])
        if (isPlainObject(m)) this.events.push({ from: 'server', message: m as Json, exchange });
    };
    if ((exchange.responseHeaders['content-type'] ?? '').startsWith('text/event-stream')) {
      await readEventStream(
        body,
        {
          event: (event) => {
            const data = messageData(event);
            if (data !== undefined) record(data);
          },
        },
        MAX_EVENT_BYTES,
      );
    } else {
      record(await new Response(body).text());
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Waits for every response body copy to be read (call after the server closed its streams). */
  async settled(): Promise<void> {
    await Promise.all(this.#reads);
  }
}

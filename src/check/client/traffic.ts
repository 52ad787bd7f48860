/**
 * What a client did, as the scripted server saw it: every HTTP exchange (method, headers, the
 * JSON-RPC message it carried, the status) and, in order, every message either side sent (the
 * server's read from a copy of each response body, JSON or event stream). A scenario's trick may
 * answer an exchange itself (a 404 for an expired session, a stream closed early) before the
 * server sees it. Over stdio ({@link StdioTraffic}) every line the client writes is an exchange of
 * its own, and the server's response to a request joins the request's.
 */

import { messageData, readEventStream } from '../../transports/http/client/sse-reader.js';
import type { HttpHandler } from '../../transports/http/server/handler.js';
import { JsonLineDecoder } from '../../transports/stdio/framing.js';
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
  /** When it arrived and when its answer started, in `performance.now()` ms. */
  readonly at: number;
  answeredAt?: number;
}

/** What a client did: every exchange, and every message either side sent, in order. */
export interface Traffic {
  readonly exchanges: readonly Exchange[];
  readonly events: readonly TrafficEvent[];
}

export interface TrafficEvent {
  readonly from: 'client' | 'server';
  readonly message: Json;
  readonly exchange: Exchange;
}

/**
 * A trick answers an exchange in the server's place, or returns undefined to let it through;
 * `forward` hands the exchange to the server all the same (for a trick that delays its answer).
 */
export type Trick = (
  exchange: Exchange,
  forward: () => Promise<Response>,
) => { response: Response; what: string } | undefined;

const MAX_EVENT_BYTES = 4 * 1024 * 1024;

const headerRecord = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
};

export class TrafficRecorder implements HttpHandler, Traffic {
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
      at: performance.now(),
    };
    this.exchanges.push(exchange);
    for (const m of Array.isArray(message) ? message : [message])
      if (isPlainObject(m)) this.events.push({ from: 'client', message: m, exchange });
    const forward = () =>
      this.inner.fetch(
        new Request(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.method === 'POST' ? { body: text } : {}),
          signal: request.signal,
        }),
      );
    const tricked = this.trick?.(exchange, forward);
    let response: Response;
    if (tricked) {
      exchange.trick = tricked.what;
      response = tricked.response;
    } else {
      response = await forward();
    }
    exchange.answeredAt = performance.now();
    exchange.status = response.status;
    exchange.responseHeaders = headerRecord(response.headers);
    if (!response.body) return response;
    const [toClient, toUs] = response.body.tee();
    // A stream the client walked away from may never end: the copy stops being read with it.
    const copy = toUs.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), { signal: request.signal });
    this.#reads.push(this.#read(copy, exchange).catch(() => {}));
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

/**
 * The traffic of a client over stdio: `client` and `server` are given every chunk each side
 * writes, before the other side reads it, so the order is the order on the pipes.
 */
export class StdioTraffic implements Traffic {
  readonly exchanges: Exchange[] = [];
  readonly events: TrafficEvent[] = [];
  /** The exchange of each request the client sent, by id: its response joins it. */
  readonly #requests = new Map<unknown, Exchange>();
  readonly #client = new JsonLineDecoder({
    message: (value) => this.#record('client', value),
    malformed: () => {},
  });
  readonly #server = new JsonLineDecoder({
    message: (value) => this.#record('server', value),
    malformed: () => {},
  });

  client(chunk: Uint8Array): void {
    this.#client.push(chunk);
  }

  server(chunk: Uint8Array): void {
    this.#server.push(chunk);
  }

  #exchange(message: unknown): Exchange {
    const exchange: Exchange = {
      seq: this.exchanges.length,
      httpMethod: 'STDIO',
      headers: {},
      message,
      status: 0,
      responseHeaders: {},
      at: performance.now(),
    };
    this.exchanges.push(exchange);
    return exchange;
  }

  #record(from: 'client' | 'server', value: unknown): void {
    for (const m of Array.isArray(value) ? value : [value]) {
      if (!isPlainObject(m)) continue;
      const response = typeof m.method !== 'string' && 'id' in m;
      let exchange: Exchange;
      if (from === 'server') exchange = (response && this.#requests.get(m.id)) || this.#exchange(undefined);
      else {
        exchange = this.#exchange(m);
        if (!response && 'id' in m) this.#requests.set(m.id, exchange);
      }
      this.events.push({ from, message: m as Json, exchange });
    }
  }
}

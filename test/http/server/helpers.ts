/**
 * Helpers for the HTTP server tests: a Switchboard server on 127.0.0.1:0, raw requests (with every
 * message checked against its schema through a {@link WireCheck}), and an incremental SSE reader.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createParser } from 'eventsource-parser';
import { Server } from '../../../src/extensions/server.js';
import { type RunningServer, serve } from '../../../src/node/serve.js';
import { ErrorCode, ProtocolError } from '../../../src/protocol/errors.js';
import { jsonSchema } from '../../../src/schema/index.js';
import type { RequestContext } from '../../../src/server/context.js';
import { createHttpHandler, type HttpHandler } from '../../../src/transports/http/server/handler.js';
import type { HttpHandlerOptions } from '../../../src/transports/http/server/options.js';
import type { WireCheck } from './wire.js';

export const MODERN = '2026-07-28';
export const ENVELOPE = Object.freeze({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
});
export const ACCEPT_BOTH = 'application/json, text/event-stream';

/** Resolves when `ctx.signal` aborts (the client went away). */
export const aborted = (ctx: RequestContext): Promise<void> =>
  new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * A server with the tools the tests call. `hooks` observe the slow tools: `onStart` when `wait` or
 * `hang` begins (the request reached its handler), `onAbort` when it sees its signal abort.
 */
export function makeServer(
  hooks: { onAbort?: () => void; onStart?: () => void; release?: Promise<void> } = {},
): Server {
  const server = new Server({ name: 'http-test', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text',
      inputSchema: jsonSchema({
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      }),
    },
    ({ text }) => text as string,
  );
  server.registerTool(
    'route',
    {
      description: 'Has arguments mirrored in headers',
      inputSchema: jsonSchema({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          shard: { type: 'integer', 'x-mcp-header': 'Shard' },
          dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
          target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
          query: { type: 'string' },
        },
      }),
    },
    (args) => JSON.stringify(args),
  );
  server.registerTool(
    'progress',
    { description: 'Reports progress twice, then answers' },
    async (_args, ctx) => {
      ctx.progress(1, 2, 'half');
      await new Promise((resolve) => setTimeout(resolve, 5));
      ctx.progress(2, 2, 'done');
      return 'finished';
    },
  );
  server.registerTool(
    'wait',
    { description: 'Reports progress, then waits until released or cancelled' },
    async (_args, ctx) => {
      hooks.onStart?.();
      ctx.progress(1, undefined, 'started');
      await Promise.race([
        aborted(ctx).then(() => hooks.onAbort?.()),
        hooks.release ?? new Promise(() => {}),
      ]);
      ctx.progress(2, undefined, 'after');
      return 'released';
    },
  );
  server.registerTool(
    'hang',
    { description: 'Waits (without streaming) until cancelled' },
    async (_args, ctx) => {
      hooks.onStart?.();
      await aborted(ctx);
      hooks.onAbort?.();
      return 'never seen';
    },
  );
  server.registerTool('needs-elicitation', { description: 'Requires a capability' }, () => {
    throw new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      'This tool needs the elicitation capability; declare it in clientCapabilities.',
      { requiredCapabilities: { elicitation: {} } },
    );
  });
  server.registerResource('readme', 'file:///readme.md', { mimeType: 'text/markdown' }, () => '# hi');
  return server;
}

/**
 * Resolves once the server has seen the connection of the request tagged `tag` (header `x-test-tag`)
 * close: the hook for "the server noticed the client left", instead of a sleep.
 */
export function serverSawClose(server: TestServer, tag: string): Promise<void> {
  return new Promise((resolve) => {
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers['x-test-tag'] !== tag) return;
      server.running.server.off('request', onRequest);
      res.once('close', () => resolve());
    };
    server.running.server.on('request', onRequest);
  });
}

export interface TestServer {
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly handler: HttpHandler;
  readonly running: RunningServer;
  close(): Promise<void>;
}

export async function startServer(server: Server, options: HttpHandlerOptions = {}): Promise<TestServer> {
  const handler = createHttpHandler(server, options);
  const running = await serve(handler, { port: 0 });
  const url = new URL(running.url);
  return {
    url: running.url,
    origin: url.origin,
    port: Number(url.port),
    handler,
    running,
    close: () => running.close(),
  };
}

export function modernRequest(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } },
  };
}

/** The headers a conforming 2026-07-28 client sends for `method` (and `name`). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  return headers;
}

export interface SseEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** Reads SSE events from a response body as they arrive; also counts comments and `retry` fields. */
export class EventReader {
  readonly #queue: SseEvent[] = [];
  #waiting: (() => void) | undefined;
  #ended = false;
  comments = 0;
  retry: number | undefined;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly done: Promise<void>;

  constructor(response: Response) {
    assert.ok(response.body, 'an SSE response has a body');
    const reader = response.body.getReader();
    this.#reader = reader;
    const parser = createParser({
      onEvent: (event) => {
        this.#queue.push({ id: event.id, event: event.event, data: event.data });
        this.#wake();
      },
      onComment: () => {
        this.comments++;
        this.#wake();
      },
      onRetry: (ms) => {
        this.retry = ms;
      },
    });
    const decoder = new TextDecoder();
    this.done = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // Cancelled by the test.
      }
      this.#ended = true;
      this.#wake();
    })();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  /** The next event, or undefined once the stream ended. */
  async next(): Promise<SseEvent | undefined> {
    while (this.#queue.length === 0 && !this.#ended) {
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
    return this.#queue.shift();
  }

  /** The next event that carries data (skips priming events). */
  async nextMessage(): Promise<Record<string, any> | undefined> {
    for (;;) {
      const event = await this.next();
      if (!event) return undefined;
      if (event.data.length > 0) return JSON.parse(event.data);
    }
  }

  /** Waits until `count` comments arrived. */
  async comment(count: number): Promise<void> {
    while (this.comments < count && !this.#ended) {
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }

  /** Every remaining event, until the stream ends. */
  async rest(): Promise<SseEvent[]> {
    await this.done;
    return this.#queue.splice(0);
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
    await this.done;
  }
}

export interface Exchange {
  readonly status: number;
  readonly headers: Headers;
  /** The JSON body, if any. */
  readonly json?: any;
  /** The SSE events, if the reply was a stream (read to its end). */
  readonly events?: SseEvent[];
  /** The SSE messages (events with data), parsed. */
  readonly messages: any[];
}

/**
 * POSTs `body` (checked as a client message when `wire` is given) and reads the whole reply,
 * checking what the server sent.
 */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  wire?: WireCheck,
): Promise<Exchange> {
  if (wire && typeof body === 'object' && body !== null) wire.client(body);
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readReply(response, wire);
}

export async function readReply(response: Response, wire?: WireCheck): Promise<Exchange> {
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    const events = await new EventReader(response).rest();
    const messages = events.filter((e) => e.data.length > 0).map((e) => JSON.parse(e.data));
    for (const message of messages) wire?.server(message);
    return { status: response.status, headers: response.headers, events, messages };
  }
  const text = await response.text();
  const json = text.length > 0 ? JSON.parse(text) : undefined;
  if (json !== undefined) wire?.server(json);
  return {
    status: response.status,
    headers: response.headers,
    json,
    messages: json === undefined ? [] : [json],
  };
}

/** Asserts a JSON-RPC error reply: status, code, and a message that says what to do. */
export function assertError(reply: Exchange, status: number, code: number, pattern?: RegExp): void {
  assert.equal(reply.status, status, `status (body: ${JSON.stringify(reply.json)})`);
  assert.equal(reply.headers.get('content-type'), 'application/json');
  assert.equal(reply.json?.jsonrpc, '2.0');
  assert.equal(reply.json?.error?.code, code, JSON.stringify(reply.json));
  assert.equal(typeof reply.json.error.message, 'string');
  assert.ok(reply.json.error.message.length > 20, 'the message explains the problem');
  if (pattern) assert.match(reply.json.error.message, pattern);
}

/**
 * A raw `node:http` request, for what `fetch` will not send (a foreign Host header, a body larger
 * than it declares...).
 */
export function rawRequest(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A legacy `initialize` request at `revision`, from a client named `name`, with no capabilities. */
export function initializeRequest(id: number, revision: string, name = 'raw-legacy') {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: revision, capabilities: {}, clientInfo: { name, version: '1.0.0' } },
  };
}

/** Legacy initialize over raw fetch; returns the session id and the initialize reply. */
export async function initialize(
  url: string,
  revision: string,
  wire?: WireCheck,
): Promise<{ sessionId: string; reply: Exchange }> {
  const reply = await post(
    url,
    initializeRequest(0, revision),
    { 'content-type': 'application/json', accept: ACCEPT_BOTH },
    wire,
  );
  assert.equal(reply.status, 200, JSON.stringify(reply.json));
  const sessionId = reply.headers.get('mcp-session-id');
  assert.ok(sessionId, 'initialize returns a session id');
  const initialized = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      'content-type': 'application/json',
      accept: ACCEPT_BOTH,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': revision,
    },
    wire,
  );
  assert.equal(initialized.status, 202);
  return { sessionId, reply };
}

export function sessionHeaders(sessionId: string, revision: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: ACCEPT_BOTH,
    'mcp-session-id': sessionId,
    'mcp-protocol-version': revision,
  };
}

/**
 * `node:http` request → the handler core's {@link HttpExchange}, and its {@link HttpReply} → the
 * `ServerResponse`, with no WHATWG `Request`/`Response` in between: headers are read from
 * `IncomingMessage.headers`, the body is collected as Buffers and decoded once, and a JSON reply is
 * one `writeHead` + `end` with its Content-Length.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '../engine/channel.js';
import {
  type BodyRead,
  type HttpExchange,
  type HttpReply,
  isStreamReply,
} from '../transports/http/server/exchange.js';
import type { SseSink } from '../transports/http/server/sse.js';

/** What Express-style middleware may have attached to the request. */
export interface DecoratedRequest extends IncomingMessage {
  /** Express: the URL before a router stripped its mount path. */
  originalUrl?: string;
  /** A body parser's result (`express.json()`, Fastify...). */
  body?: unknown;
  /** Credentials a bearer-auth middleware verified. */
  auth?: AuthInfo;
}

export class NodeExchange implements HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;

  constructor(
    private readonly req: DecoratedRequest,
    private readonly res: ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    const url = req.originalUrl ?? req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this.query = q === -1 ? '' : url.slice(q + 1);
  }

  get localAddress(): string | undefined {
    return this.req.socket?.localAddress;
  }

  get auth(): AuthInfo | undefined {
    return this.req.auth;
  }

  set auth(value: AuthInfo | undefined) {
    this.req.auth = value;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name] ?? (name === 'host' ? this.req.headers[':authority'] : undefined);
    return value === undefined || typeof value === 'string' ? value : value.join(', ');
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.req.headers)) {
      if (value !== undefined) out[name] = typeof value === 'string' ? value : value.join(', ');
    }
    return out;
  }

  readBody(maxBytes: number): Promise<BodyRead> {
    const req = this.req;
    if (req.body !== undefined) return Promise.resolve(preParsed(req.body, maxBytes));
    const declared = Number(req.headers['content-length']);
    if (declared > maxBytes) {
      // Beyond what is worth reading to its end, the client gets the 413 and a closed connection.
      if (declared > DISCARD_LIMIT) return Promise.resolve({ kind: 'too-large' });
      return discardRest(req, 0);
    }
    return new Promise((resolve) => {
      // Three listeners, never removed (they go with the request): this runs on every POST.
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      req.on('data', (chunk: Buffer | string) => {
        if (settled) return;
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        size += buffer.length;
        if (size > maxBytes) {
          settled = true;
          chunks.length = 0;
          resolve(discardRest(req, size));
        } else chunks.push(buffer);
      });
      req.on('end', () => {
        if (settled) return;
        settled = true;
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        resolve({ kind: 'text', text: bytes.toString('utf8') });
      });
      // A connection that breaks mid-body errors the request ("aborted").
      req.on('error', (error: Error) => {
        if (settled) return;
        settled = true;
        resolve({ kind: 'failed', error });
      });
    });
  }

  onClientGone(listener: () => void): void {
    const res = this.res;
    // Registered late (when a handler first asks for its signal): the client may be gone already.
    if (res.closed) {
      if (!res.writableFinished) queueMicrotask(listener);
      return;
    }
    res.once('close', () => {
      if (!res.writableFinished) listener();
    });
  }
}

/**
 * A body over the cap is still read to its end (and dropped) when it is no larger than this, before
 * the 413 goes out: a client that writes its whole body before reading the answer (Python's urllib,
 * say) would otherwise see its upload cut (EPIPE) instead of the status. Beyond it, it is cut.
 */
const DISCARD_LIMIT = 64 * 1024 * 1024;

/** Reads and drops the rest of a body already `seen` bytes in; too-large once it ended (or the limit passed). */
function discardRest(req: IncomingMessage, seen: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    let size = seen;
    const done = () => {
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      resolve({ kind: 'too-large' });
    };
    const onData = (chunk: Buffer | string) => {
      size += chunk.length;
      if (size > DISCARD_LIMIT) done();
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('error', done);
    req.resume();
  });
}

function preParsed(body: unknown, maxBytes: number): BodyRead {
  if (typeof body === 'string') {
    return Buffer.byteLength(body) > maxBytes ? { kind: 'too-large' } : { kind: 'text', text: body };
  }
  if (Buffer.isBuffer(body)) {
    return body.length > maxBytes ? { kind: 'too-large' } : { kind: 'text', text: body.toString('utf8') };
  }
  return { kind: 'parsed', value: body };
}

/**
 * Where an SSE stream's text goes: the response. A class rather than an object of two closures,
 * since a legacy session's GET stream keeps it for as long as the session lives.
 */
class ResponseSink implements SseSink {
  constructor(private readonly res: ServerResponse) {}

  write(chunk: string): void {
    this.res.write(chunk);
  }

  end(): void {
    this.res.end();
  }

  buffered(): number {
    return this.res.writableLength;
  }

  abort(): void {
    this.res.destroy();
  }
}

/** Writes a reply: one writeHead + end for a body, or headers now and events as they come for SSE. */
export function writeReply(res: ServerResponse, reply: HttpReply): void {
  if (isStreamReply(reply)) {
    const stream = reply.stream;
    if (res.destroyed || res.writableEnded) {
      stream.clientGone();
      return;
    }
    res.writeHead(reply.status, reply.headers);
    res.flushHeaders();
    // Also fires after a normal end, when clientGone is a no-op.
    res.on('close', () => stream.clientGone());
    stream.attach(new ResponseSink(res));
    return;
  }
  if (res.destroyed || res.writableEnded) return;
  const body = reply.body;
  if (body === undefined) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  // A reply with a body owns its headers object (see HttpReply), so it can take the length.
  reply.headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(reply.status, reply.headers);
  res.end(body);
}

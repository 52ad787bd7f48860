/**
 * `toNodeListener(handler)`: mounts an MCP HTTP handler on `node:http` and the frameworks built on it
 * (Express, Fastify with `reply.hijack()`, Koa's `ctx.req`/`ctx.res`...).
 *
 * Two routes, chosen once when the listener is made: a handler made by `createHttpHandler` is served
 * through its `serveExchange` (the Node request read directly, no WHATWG objects, and a body an
 * upstream parser left in `req.body` taken as is); any other `{ fetch }` handler through a
 * `Request`/`Response` conversion.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type HttpReply, internalErrorReply } from '../transports/http/server/exchange.js';
import {
  type HttpHandler,
  isMcpHttpHandler,
  type McpHttpHandler,
} from '../transports/http/server/handler.js';
import { type DecoratedRequest, NodeExchange, writeReply } from './exchange.js';

/** A `node:http` request listener; Express may pass `next`, which is never called (every request is answered). */
export type NodeListener = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

export function toNodeListener(handler: HttpHandler): NodeListener {
  if (isMcpHttpHandler(handler)) return (req, res) => serveExchange(handler, req, res);
  return (req, res) => viaFetchOrFail(handler, req, res);
}

function serveExchange(handler: McpHttpHandler, req: IncomingMessage, res: ServerResponse): void {
  const reply = handler.serveExchange(new NodeExchange(req, res));
  if (reply instanceof Promise) {
    reply.then(
      (value) => writeReply(res, value),
      (error) => fail(res, handler.failure(error)),
    );
  } else {
    writeReply(res, reply);
  }
}

function viaFetchOrFail(handler: HttpHandler, req: IncomingMessage, res: ServerResponse): void {
  viaFetch(handler, req, res).catch((error) => fail(res, internalErrorReply(error)));
}

function fail(res: ServerResponse, reply: HttpReply): void {
  if (res.headersSent) res.destroy();
  else writeReply(res, reply);
}

/** Serves a handler that only offers `fetch`: IncomingMessage → Request, Response → ServerResponse. */
async function viaFetch(handler: HttpHandler, req: DecoratedRequest, res: ServerResponse): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, typeof value === 'string' ? value : value.join(', '));
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    signal: controller.signal,
    // Node's fetch requires this for a streamed request body.
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit);
  const response = await handler.fetch(request, req.auth ? { auth: req.auth } : undefined);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.once('close', () => {
    reader.cancel().catch(() => {});
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

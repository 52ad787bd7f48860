/**
 * The routes under `/api/` (listed in api-types.ts), for requests the guard already let through.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { ReadResourceResult } from '../protocol/types.js';
import { errorMessage } from '../util/guards.js';
import type { ApiAnswer, ApiError, ConnectRequest, OperationName } from './api-types.js';
import { serveView } from './app-view.js';
import { BadRequest } from './connection.js';
import type { FleetSource } from './fleet-types.js';
import { sendJson, sendText } from './responses.js';
import type { ConsoleService } from './service.js';

/** Tool arguments may carry files (images, documents) as base64. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** A comment line now and then keeps idle event streams from being cut by proxies and sleep. */
const HEARTBEAT_MS = 15_000;

export async function serveApi(
  service: ConsoleService,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  streams: Set<ServerResponse>,
  fleet?: FleetSource,
): Promise<void> {
  const parts = url.pathname.split('/').slice(2).map(decodeURIComponent); // after "/api"
  const method = req.method ?? 'GET';
  try {
    if (parts[0] === 'events' && parts.length === 1 && method === 'GET')
      return streamEvents(service, req, res, url, streams);
    if (parts[0] === 'fleet') {
      if (!fleet)
        return sendText(
          res,
          404,
          'This console has no fleet: start it with --config FILE, or connect it to a switchboard gateway.',
        );
      if (parts.length === 1 && method === 'GET') return sendJson(res, 200, await fleet.view());
      if (parts[1] === 'check' && method === 'POST') {
        const { server } = (await readJson(req)) as { server?: unknown };
        return sendJson(res, 200, await fleet.check(typeof server === 'string' ? server : undefined));
      }
      if (parts[1] === 'approve' && method === 'POST') {
        const { server, tool } = (await readJson(req)) as { server?: unknown; tool?: unknown };
        if (typeof server !== 'string' || typeof tool !== 'string')
          throw new BadRequest('Send { "server": "...", "tool": "..." }.');
        return sendJson(res, 200, await fleet.approve(server, tool));
      }
    }
    if (parts[0] === 'connections') {
      const [, id, op] = parts;
      if (id === undefined && method === 'GET')
        return sendJson(res, 200, { connections: service.list(), questions: service.questions() });
      if (id === undefined && method === 'POST')
        return sendJson(res, 200, await service.connect((await readJson(req)) as ConnectRequest));
      if (id !== undefined && op === undefined && method === 'DELETE') {
        await service.remove(id);
        return sendJson(res, 200, {});
      }
      if (id !== undefined && op === 'view' && parts.length === 3 && method === 'GET') {
        const uri = url.searchParams.get('uri') ?? '';
        if (!uri.startsWith('ui://')) throw new BadRequest('Give the view as ?uri=ui://...');
        return serveView(res, uri, (await service.run(id, 'read', { uri })) as ReadResourceResult);
      }
      if (id !== undefined && op !== undefined && parts.length === 3 && method === 'POST') {
        const body = await readJson(req);
        let answer: ApiAnswer<unknown>;
        try {
          answer = { ok: true, result: await service.run(id, op as OperationName, body) };
        } catch (error) {
          if (error instanceof BadRequest) throw error;
          answer = { ok: false, error: apiError(error) };
        }
        return sendJson(res, 200, answer);
      }
    }
    sendText(res, 404, `No console API route ${method} ${url.pathname}.`);
  } catch (error) {
    if (error instanceof BadRequest) return sendText(res, 400, error.message);
    sendText(res, 500, `The console failed: ${errorMessage(error)}`);
  }
}

function streamEvents(
  service: ConsoleService,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  streams: Set<ServerResponse>,
): void {
  // EventSource resumes with Last-Event-ID; a page's first stream names where to start.
  const resume = req.headers['last-event-id'] ?? url.searchParams.get('after') ?? '0';
  const after = Number(resume);
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  const write = (event: { seq: number }) => res.write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
  for (const event of service.events.since(Number.isFinite(after) ? after : 0)) write(event);
  const stop = service.events.subscribe(write);
  const heartbeat = setInterval(() => res.write(': still here\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  streams.add(res);
  res.on('close', () => {
    stop();
    clearInterval(heartbeat);
    streams.delete(res);
  });
}

/** Reads a JSON body; POSTs must say `application/json`, which a cross-site form or beacon cannot. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw new BadRequest(`Send the request body as application/json (got ${JSON.stringify(type)}).`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`The request body is over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequest(`The request body is not JSON: ${errorMessage(error)}`);
  }
}

function apiError(error: unknown): ApiError {
  if (error instanceof ProtocolError)
    return {
      message: error.message,
      code: error.code,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  if (error instanceof SwitchboardError) return { message: error.message, code: error.code };
  return { message: errorMessage(error) };
}

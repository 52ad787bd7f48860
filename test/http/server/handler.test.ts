/**
 * The handler `createHttpHandler` makes: it loads the HTTP server's core itself (a stdio server never
 * pays for it), checks its options at once, and serves both `fetch` and the Node adapter's exchanges,
 * also while the core is still loading.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import type { HttpExchange } from '../../../src/transports/http/server/exchange.js';
import {
  createHttpHandler,
  isMcpHttpHandler,
  type McpHttpHandler,
} from '../../../src/transports/http/server/handler.js';

function server(): Server {
  const s = new Server({ name: 'entry', version: '1.0.0' });
  s.registerTool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    ({ text }) => String(text),
  );
  s.registerTool('whoami', {}, (_args, ctx) => ctx.auth?.subject ?? 'nobody');
  return s;
}

// Made before anything loaded the core; the last test mounts it on Node.
const early = createHttpHandler(server());

const call = (tool = 'echo') =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      host: '127.0.0.1',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: tool === 'echo' ? { text: 'hi' } : {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });

test('options are checked at once; requests and close() made while the core loads wait for it', async () => {
  assert.throws(() => createHttpHandler(server(), { maxBodyBytes: -1 }), { code: 'CONFIG' });
  const handler = createHttpHandler(server());
  const closedEarly = createHttpHandler(server());
  const closing = closedEarly.close();
  const response = await handler.fetch(call());
  assert.equal(response.status, 200);
  const body = (await response.json()) as { result: { content: unknown } };
  assert.deepEqual(body.result.content, [{ type: 'text', text: 'hi' }]);
  assert.equal((await closedEarly.fetch(call())).status, 503, 'closed before its core was loaded');
  await closing;
  const who = await handler.fetch(call('whoami'), { auth: { subject: 'alice' } });
  const whoBody = (await who.json()) as { result: { content: unknown } };
  assert.deepEqual(
    whoBody.result.content,
    [{ type: 'text', text: 'alice' }],
    'fetch options reach the handler',
  );
  await handler.close();
});

test('a handler made by createHttpHandler serves exchanges, also before its core is loaded', async () => {
  const handler = createHttpHandler(server(), { endpoint: '/rpc' });
  assert.ok(isMcpHttpHandler(handler));
  assert.equal(isMcpHttpHandler({ fetch: async () => new Response(), close: async () => {} }), false);
  assert.equal((handler as McpHttpHandler).endpoint, '/rpc', 'known before the core is loaded');
  const exchange: HttpExchange = {
    method: 'GET',
    path: '/elsewhere',
    query: '',
    header: (name) => (name === 'host' ? '127.0.0.1' : undefined),
    headers: () => ({ host: '127.0.0.1' }),
    readBody: () => Promise.resolve({ kind: 'text', text: '' }),
    localAddress: '127.0.0.1',
    auth: undefined,
    onClientGone: () => {},
  };
  const first = handler.serveExchange(exchange);
  assert.ok(first instanceof Promise, 'the core is still loading: the reply waits for it');
  assert.equal((await first).status, 404);
  const second = handler.serveExchange(exchange);
  assert.ok(!(second instanceof Promise), 'loaded: served synchronously');
  assert.equal(second.status, 404);
  await handler.close();
});

test('mounted with toNodeListener, the handler is served by the Node path (an upstream req.body works)', async () => {
  const { toNodeListener } = await import('../../../src/node/listener.js');
  const listener = toNodeListener(early);
  // A body parser in front (express.json()) has read the stream: only the Node path, which takes
  // req.body, can serve this; the Request/Response path would find the stream empty.
  const http = createServer(async (req: IncomingMessage & { body?: unknown }, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    req.body = JSON.parse(text);
    listener(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = http.address() as AddressInfo;
    const request = call();
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: request.headers,
      body: await request.text(),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const body = (await response.json()) as { result: { content: unknown } };
    assert.deepEqual(body.result.content, [{ type: 'text', text: 'hi' }]);
  } finally {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await early.close();
  }
});

/**
 * `createHttpHandler` from the `switchboard` entry does not import the HTTP server (a stdio server
 * would pay for loading it): until something has loaded the implementation, the handler loads it on
 * its first request. This file must not import handler.js (nor the helpers, which do) before the
 * tests that need it not loaded.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Server } from '../../../src/server/server.js';
import { createHttpHandler } from '../../../src/transports/http/server/entry.js';

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

// Built before anything loaded the implementation; the last test mounts it on Node.
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

test('before the implementation is loaded: options are checked at once, the first request loads it', async () => {
  assert.throws(() => createHttpHandler(server(), { maxBodyBytes: -1 }), { code: 'CONFIG' });
  const handler = createHttpHandler(server());
  const closedEarly = createHttpHandler(server());
  await closedEarly.close();
  const response = await handler.fetch(call());
  assert.equal(response.status, 200);
  const body = (await response.json()) as { result: { content: unknown } };
  assert.deepEqual(body.result.content, [{ type: 'text', text: 'hi' }]);
  assert.equal((await closedEarly.fetch(call())).status, 503, 'closed before its first request');
  const who = await handler.fetch(call('whoami'), { auth: { subject: 'alice' } });
  const whoBody = (await who.json()) as { result: { content: unknown } };
  assert.deepEqual(
    whoBody.result.content,
    [{ type: 'text', text: 'alice' }],
    'fetch options reach the handler',
  );
  const { coreOf } = await import('../../../src/transports/http/server/handler.js');
  assert.equal(coreOf(handler), undefined, 'built before the implementation was loaded');
  await handler.close();
});

test('once loaded, handlers are built by the implementation itself (the Node fast path finds their core)', async () => {
  const { coreOf } = await import('../../../src/transports/http/server/handler.js');
  const handler = createHttpHandler(server());
  assert.ok(coreOf(handler), 'a real handler, with its core');
  assert.equal((await handler.fetch(call())).status, 200);
  await handler.close();
});

test('a handler built before the implementation, mounted with toNodeListener, is served by the fast path', async () => {
  // Importing the Node adapter loads the implementation.
  const { toNodeListener } = await import('../../../src/node/listener.js');
  const { coreOf } = await import('../../../src/transports/http/server/handler.js');
  assert.equal(coreOf(early), undefined, 'built before the implementation was loaded');
  const listener = toNodeListener(early);
  // A body parser in front (express.json()) has read the stream: only the Node fast path, which
  // takes req.body, can serve this; the Request/Response path would find the stream empty.
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

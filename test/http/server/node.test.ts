/**
 * The Node adapter: `serve()` (URL, loopback bind, graceful close that ends streams and sessions),
 * `toNodeListener()` behind body parsers and routers, and its fallback for handlers that only offer
 * `fetch`.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, test } from 'node:test';
import express from 'express';
import { toNodeListener } from '../../../src/node/listener.js';
import { serve } from '../../../src/node/serve.js';
import { createHttpHandler, type HttpHandler } from '../../../src/transports/http/server/handler.js';
import { EventReader, initialize, makeServer, modernHeaders, modernRequest, post } from './helpers.js';

async function listen(
  listener: Parameters<typeof createServer>[1],
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('serve()', () => {
  test('binds 127.0.0.1 on a free port and reports the endpoint URL', async () => {
    const running = await serve(createHttpHandler(makeServer(), { endpoint: '/api/mcp' }));
    try {
      assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
      assert.equal((running.server.address() as AddressInfo).address, '127.0.0.1');
      const reply = await post(running.url, modernRequest(1, 'tools/list'), modernHeaders('tools/list'));
      assert.equal(reply.status, 200);
    } finally {
      await running.close();
    }
  });

  test('close() ends SSE streams and sessions, then the server stops', async () => {
    const handler = createHttpHandler(makeServer());
    const running = await serve(handler);
    const { sessionId } = await initialize(running.url, '2025-06-18');
    const stream = new EventReader(
      await fetch(running.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } }),
    );
    const pending = fetch(running.url, {
      method: 'POST',
      headers: modernHeaders('tools/call', 'wait'),
      body: JSON.stringify(modernRequest(2, 'tools/call', { name: 'wait', _meta: { progressToken: 1 } })),
    });
    const inFlight = new EventReader(await pending);
    await inFlight.nextMessage();
    await running.close();
    await stream.done;
    await inFlight.done;
    await assert.rejects(fetch(running.url, { method: 'POST' }));
    await running.close(); // idempotent
  });

  test('a body that never finishes arriving is cut after requestTimeoutMs, with 408 (defaults: 30 s, headers 10 s)', async () => {
    const defaults = await serve(createHttpHandler(makeServer()));
    assert.equal(defaults.server.requestTimeout, 30_000);
    assert.equal(defaults.server.headersTimeout, 10_000);
    await defaults.close();

    const running = await serve(createHttpHandler(makeServer()), {
      requestTimeoutMs: 300,
      headersTimeoutMs: 200,
    });
    try {
      const { port } = running.server.address() as AddressInfo;
      const slow = async (head: string) => {
        const socket = connect(port, '127.0.0.1');
        socket.setEncoding('utf8');
        let received = '';
        socket.on('data', (text: string) => (received += text));
        socket.write(head);
        await once(socket, 'close');
        return received;
      };
      // Headers complete, 10 of 100 body bytes: a slowloris body.
      const body = await slow(
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"',
      );
      assert.match(body, /^HTTP\/1\.1 408 /);
      // Headers that never end.
      const headers = await slow('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      assert.match(headers, /^HTTP\/1\.1 408 /);
    } finally {
      await running.close();
    }
  });

  test('a port in use is reported as a transport error', async () => {
    const first = await serve(createHttpHandler(makeServer()));
    try {
      const port = Number(new URL(first.url).port);
      await assert.rejects(serve(createHttpHandler(makeServer()), { port }), {
        name: 'SwitchboardError',
        code: 'TRANSPORT',
      });
    } finally {
      await first.close();
    }
  });
});

describe('toNodeListener()', () => {
  test('behind express.json() the parsed body is used, and mount paths resolve through originalUrl', async () => {
    const handler = createHttpHandler(makeServer(), { endpoint: '/v1/mcp' });
    const app = express();
    app.use(express.json());
    // Mounted with app.use, Express strips "/v1" from req.url; the listener routes on originalUrl.
    app.use('/v1', toNodeListener(handler));
    const server = await listen(app);
    try {
      const reply = await post(
        `${server.origin}/v1/mcp`,
        modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'parsed' } }),
        modernHeaders('tools/call', 'echo'),
      );
      assert.equal(reply.status, 200, JSON.stringify(reply.json));
      assert.equal(reply.json.result.content[0].text, 'parsed');
    } finally {
      await handler.close();
      await server.close();
    }
  });

  test('a handler that only offers fetch is served through Request/Response', async () => {
    const inner = createHttpHandler(makeServer());
    const seen: string[] = [];
    const wrapped: HttpHandler = {
      fetch: (request) => {
        seen.push(request.method);
        return inner.fetch(request);
      },
      close: () => inner.close(),
    };
    const server = await listen(toNodeListener(wrapped));
    try {
      const json = await post(
        `${server.origin}/mcp`,
        modernRequest(1, 'tools/list'),
        modernHeaders('tools/list'),
      );
      assert.equal(json.status, 200);
      const sse = await post(
        `${server.origin}/mcp`,
        modernRequest(2, 'tools/call', { name: 'progress', _meta: { progressToken: 1 } }),
        modernHeaders('tools/call', 'progress'),
      );
      assert.equal(sse.headers.get('content-type'), 'text/event-stream');
      assert.equal(sse.messages.at(-1).result.content[0].text, 'finished');
      assert.deepEqual(seen, ['POST', 'POST']);
    } finally {
      await wrapped.close();
      await server.close();
    }
  });

  test('a bug while serving is the same 500 (-32603, its message) on every path', async () => {
    const bug = new Error('the handler broke');
    const fetchOnly: HttpHandler = { fetch: () => Promise.reject(bug), close: async () => {} };
    const errors: Error[] = [];
    const mcp = createHttpHandler(makeServer(), { onerror: (error) => errors.push(error) });
    // The exchange path: serving rejects, so the listener answers with the handler's own failure reply.
    Object.assign(mcp, { serveExchange: () => Promise.reject(bug) });
    const replies: { status: number; body: unknown }[] = [];
    for (const handler of [fetchOnly, mcp]) {
      const server = await listen(toNodeListener(handler));
      try {
        const response = await fetch(`${server.origin}/mcp`, { method: 'POST', body: '{}' });
        replies.push({ status: response.status, body: await response.json() });
      } finally {
        await server.close();
      }
    }
    await mcp.close();
    const expected = {
      status: 500,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32603, message: 'Internal error while serving the request: the handler broke' },
      },
    };
    assert.deepEqual(replies, [expected, expected]);
    assert.deepEqual(errors, [bug], 'the MCP handler reports the bug to onerror');
  });
});

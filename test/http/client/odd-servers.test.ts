/**
 * The client channels against bare `node:http` servers that behave in ways the official SDKs do
 * not: tools with invalid `x-mcp-header` annotations, HTTP failures with and without JSON-RPC
 * bodies, event streams with comments and early ends, bodies over the size cap, stale remembered
 * eras, hostile endpoints.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, test } from 'node:test';
import { Client } from '../../../src/extensions/client.js';
import { nodeFetch } from '../../../src/node/fetch.js';
import { ProtocolError } from '../../../src/protocol/errors.js';
import {
  defaultHttpEraStore,
  forgetHttpEras,
  MemoryHttpEraStore,
} from '../../../src/transports/http/client/era-store.js';
import { SseClientChannel } from '../../../src/transports/http/client/sse-channel.js';
import { StreamableHttpClientChannel } from '../../../src/transports/http/client/streamable-channel.js';
import {
  discoverResult,
  json,
  modernResult,
  type RawRequest,
  type RawServer,
  startRaw,
} from '../../fixtures/http-raw.js';
import { until } from '../../helpers/wait.js';
import { connectHttp } from './helpers.js';

const servers: RawServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function raw(
  handler: (request: RawRequest, res: ServerResponse) => void | Promise<void>,
  path?: string,
) {
  const server = await startRaw(handler, path);
  servers.push(server);
  return server;
}

/** A modern server: discover, then whatever `answer` says for the rest. */
function modern(answer: (request: RawRequest, res: ServerResponse) => void) {
  return (request: RawRequest, res: ServerResponse) => {
    if (request.body?.method === 'server/discover') json(res, 200, discoverResult(request.body.id));
    else answer(request, res);
  };
}

const header = (name: string, type = 'string') => ({ type, 'x-mcp-header': name });
const TOOLS = [
  {
    name: 'good',
    inputSchema: { type: 'object', properties: { region: header('Region'), q: { type: 'string' } } },
  },
  {
    name: 'nested',
    inputSchema: {
      type: 'object',
      properties: { where: { type: 'object', properties: { zone: header('Zone', 'integer') } } },
    },
  },
  { name: 'plain', inputSchema: { type: 'object' } },
  { name: 'number-typed', inputSchema: { type: 'object', properties: { n: header('N', 'number') } } },
  {
    name: 'under-items',
    inputSchema: { type: 'object', properties: { list: { type: 'array', items: header('Item') } } },
  },
  {
    name: 'in-anyOf',
    inputSchema: { type: 'object', anyOf: [{ properties: { a: header('A') } }] },
  },
  {
    name: 'duplicate',
    inputSchema: { type: 'object', properties: { a: header('Tenant'), b: header('tenant') } },
  },
  { name: 'bad-token', inputSchema: { type: 'object', properties: { a: header('Re gion') } } },
  { name: 'on-root', inputSchema: { type: 'object', 'x-mcp-header': 'Root' } },
];

describe('x-mcp-header on a modern server', () => {
  test('tools breaking the rules are dropped from tools/list, with a warning naming each', async () => {
    const server = await raw(
      modern((request, res) => {
        if (request.body?.method === 'tools/list') {
          json(
            res,
            200,
            modernResult(request.body.id, { tools: TOOLS, ttlMs: 60_000, cacheScope: 'public' }),
          );
        } else {
          json(res, 200, modernResult(request.body.id, { content: [{ type: 'text', text: 'ok' }] }));
        }
      }),
    );
    const conn = await connectHttp(server.url);
    const { tools } = await conn.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['good', 'nested', 'plain'],
    );
    assert.equal(conn.warnings.length, 6);
    for (const name of ['number-typed', 'under-items', 'in-anyOf', 'duplicate', 'bad-token', 'on-root']) {
      assert.ok(
        conn.warnings.some((w) => w.startsWith(`Tool "${name}" was dropped`)),
        name,
      );
    }
    // The cached copy the client serves next time is the filtered one.
    assert.deepEqual(
      (await conn.client.listTools()).tools.map((t) => t.name),
      ['good', 'nested', 'plain'],
    );

    await conn.client.callTool('good', { region: ' padded ', q: 'x' });
    let call = server.seen.at(-1)!;
    assert.equal(call.headers['mcp-param-region'], '=?base64?IHBhZGRlZCA=?=');
    assert.equal(call.headers['mcp-name'], 'good');
    await conn.client.callTool('nested', { where: { zone: -7 } });
    call = server.seen.at(-1)!;
    assert.equal(call.headers['mcp-param-zone'], '-7');
    await conn.client.callTool('good', { region: null, q: 'x' });
    assert.equal(server.seen.at(-1)!.headers['mcp-param-region'], undefined, 'null: no header');
    conn.assertClean();
    await conn.close();
  });

  test("the dropped tools' warnings reach the Client's logger when the channel has none", async () => {
    const server = await raw(
      modern((request, res) => {
        json(res, 200, modernResult(request.body.id, { tools: TOOLS, ttlMs: 60_000, cacheScope: 'public' }));
      }),
    );
    const warnings: string[] = [];
    const conn = await connectHttp(
      server.url,
      { logger: { error: () => {}, warn: (message) => warnings.push(message) } },
      { onwarning: undefined },
    );
    await conn.client.listTools();
    assert.equal(warnings.length, 6);
    assert.deepEqual(conn.warnings, []);
    await conn.close();
  });

  test('Mcp-Name of a non-ASCII tool name or URI is Base64-encoded', async () => {
    const server = await raw(
      modern((request, res) => json(res, 200, modernResult(request.body.id, { content: [] }))),
    );
    const conn = await connectHttp(server.url);
    await conn.client.callTool('résumé', {});
    assert.equal(
      server.seen.at(-1)!.headers['mcp-name'],
      `=?base64?${Buffer.from('résumé').toString('base64')}?=`,
    );
    await conn.close();
  });
});

describe('HTTP failures become errors of the request', () => {
  test('401 without a body: status, URL and WWW-Authenticate in the error', async () => {
    const server = await raw(
      modern((_request, res) => {
        res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://x/.well-known"' });
        res.end();
      }),
    );
    const conn = await connectHttp(`${server.url}?secret=1`);
    const error = await conn.client.callTool('echo', {}).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ProtocolError);
    assert.match(
      error.message,
      /^HTTP 401 Unauthorized from POST http:\/\/127\.0\.0\.1:\d+\/mcp\. .*bearerToken/,
    );
    assert.doesNotMatch(error.message, /secret/, 'the query string stays out of messages');
    assert.deepEqual(error.data, {
      httpStatus: 401,
      url: server.url,
      wwwAuthenticate: 'Bearer resource_metadata="http://x/.well-known"',
    });
    await conn.close();
  });

  test('a 4xx with a JSON-RPC error body delivers that error (its null id replaced)', async () => {
    const server = await raw(
      modern((_request, res) =>
        json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32602, message: 'Unknown tool: nope' } }),
      ),
    );
    const conn = await connectHttp(server.url);
    await assert.rejects(conn.client.callTool('nope', {}), {
      name: 'ProtocolError',
      code: -32602,
      message: 'Unknown tool: nope',
    });
    await conn.close();
  });

  test('nothing listening: connect fails naming the URL', async () => {
    const server = await raw(() => undefined);
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const client = new Client({ name: 't', version: '1' }, { probeTimeoutMs: 2000 });
    await assert.rejects(
      client.connect(new StreamableHttpClientChannel(url, { transport: 'streamable' })),
      (error: Error) => {
        assert.match(error.message, new RegExp(`Could not POST to ${url.replaceAll('.', '\\.')}`));
        return true;
      },
    );
  });

  test('a request answered with 202, with a non-JSON body, or with a stream that ends early', async () => {
    const server = await raw(
      modern((request, res) => {
        const name = request.body?.params?.name;
        if (name === 'accepted') {
          res.writeHead(202);
          res.end();
        } else if (name === 'html') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html></html>');
        } else {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(': just a comment\n\n');
        }
      }),
    );
    const conn = await connectHttp(server.url);
    await assert.rejects(
      conn.client.callTool('accepted', {}),
      /accepted 'tools\/call' \(HTTP 202\) without answering it/,
    );
    await assert.rejects(conn.client.callTool('html', {}), /with a body that is not JSON/);
    await assert.rejects(
      conn.client.callTool('short', {}),
      /sent no answer to 'tools\/call' on its event stream before it ended/,
    );
    await conn.close();
  });
});

describe('response bodies over maxMessageBytes', () => {
  // One cap on every body, whichever fetch reads it: nodeFetch once buffered an endless body whole.
  for (const [fetchName, fetch] of [
    ['the global fetch', undefined],
    ['nodeFetch', nodeFetch],
  ] as const)
    test(`are refused, whether their Content-Length says so or they just keep coming; the next call works (${fetchName})`, async () => {
      const max = 64 * 1024;
      let streamedClosed: Promise<boolean> | undefined;
      const server = await raw(
        modern((request, res) => {
          const id = request.body?.id;
          const name = request.body?.params?.name;
          if (name === 'declared') {
            json(res, 200, modernResult(id, { content: [{ type: 'text', text: 'x'.repeat(2 * max) }] }));
          } else if (name === 'streamed') {
            // No Content-Length, and no end: only a cap on what the client reads stops this.
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write(
              `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`,
            );
            // Whether the response was cut before its end: the client stopped downloading.
            streamedClosed = new Promise((resolve) =>
              res.once('close', () => resolve(!res.writableFinished)),
            );
            let sent = 0;
            const more = () => {
              // A safety stop far past the cap: without one, a client that never stops reading
              // would hang the test instead of failing it.
              while (!res.destroyed && sent < 64 * max) {
                sent += 16 * 1024;
                if (!res.write('y'.repeat(16 * 1024))) {
                  res.once('drain', more);
                  return;
                }
              }
              if (!res.destroyed) res.end('"}]}}');
            };
            more();
          } else {
            json(res, 200, modernResult(id, { content: [{ type: 'text', text: 'small' }] }));
          }
        }),
      );
      const conn = await connectHttp(server.url, {}, { maxMessageBytes: max, ...(fetch ? { fetch } : {}) });
      await assert.rejects(
        conn.client.callTool('declared', {}),
        /answered 'tools\/call' with a body too large to take: the response body exceeds 65536 bytes \(it declares Content-Length \d+\); raise maxMessageBytes/,
      );
      await assert.rejects(
        conn.client.callTool('streamed', {}),
        /the response body exceeds 65536 bytes \(more than 65536 bytes arrived\)/,
      );
      assert.equal(await streamedClosed, true, 'the client hung up instead of reading on');
      const result = await conn.client.callTool('small', {});
      assert.deepEqual(result.content, [{ type: 'text', text: 'small' }]);
      await conn.close();
    });
});

describe('event streams', () => {
  test('comments, keep-alives and retry hints are skipped; progress arrives before the result', async () => {
    const server = await raw(
      modern((request, res) => {
        const { id, params } = request.body;
        const token = params._meta.progressToken;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(':\n\n');
        res.write('retry: 1000\n\n');
        res.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } })}\n\n`,
        );
        res.write(': keep-alive\r\n\r\n');
        const result = JSON.stringify(modernResult(id, { content: [{ type: 'text', text: 'done' }] }));
        // Split across writes, mid-line, to exercise the streaming decoder.
        res.write(`data: ${result.slice(0, 10)}`);
        setTimeout(() => res.end(`${result.slice(10)}\n\n`), 5);
      }),
    );
    const conn = await connectHttp(server.url);
    const progress: number[] = [];
    const result = await conn.client.callTool('slow', {}, { onprogress: (p) => progress.push(p.progress) });
    assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    assert.deepEqual(progress, [1]);
    conn.assertClean();
    await conn.close();
  });
});

describe('event streams kept open', () => {
  test('a stream left open after its answer is closed by the client shortly after', async () => {
    let closed = false;
    const server = await raw(
      modern((request, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(modernResult(request.body.id, { content: [] }))}\n\n`);
        res.on('close', () => {
          closed = true;
        });
      }),
    );
    const conn = await connectHttp(server.url);
    await conn.client.callTool('t', {});
    await until(() => closed, 'the client to hang up');
    await conn.close();
  });
});

describe('credentials and extra headers', () => {
  test('bearerToken (a function) and headers are sent on every request, never in the URL', async () => {
    const server = await raw(
      modern((request, res) => json(res, 200, modernResult(request.body.id, { content: [] }))),
    );
    let n = 0;
    const conn = await connectHttp(
      server.url,
      {},
      {
        bearerToken: async () => `token-${++n}`,
        headers: () => ({ 'X-Trace': 'abc', 'Mcp-Method': 'overridden by the channel' }),
      },
    );
    await conn.client.callTool('t', {});
    const [discover, call] = server.seen;
    assert.equal(discover?.headers.authorization, 'Bearer token-1');
    assert.equal(call?.headers.authorization, 'Bearer token-2');
    assert.equal(call?.headers['x-trace'], 'abc');
    assert.equal(call?.headers['mcp-method'], 'tools/call');
    assert.ok(server.seen.every((s) => s.path === '/mcp'));
    await conn.close();
  });
});

describe('remembered eras', () => {
  test("a store of the channel's own is read and written instead of the process-wide one; false keeps none", async () => {
    const server = await raw(modern((request, res) => json(res, 200, modernResult(request.body.id, {}))));
    const key = new URL(server.url).href;
    const store = new MemoryHttpEraStore();
    const conn = await connectHttp(server.url, {}, { rememberEra: store });
    assert.equal(conn.client.revision, '2026-07-28');
    await conn.close();
    assert.equal(store.get(key), 'modern');
    assert.equal(defaultHttpEraStore.get(key), undefined, 'the process-wide store is left alone');
    assert.equal(new StreamableHttpClientChannel(server.url, { rememberEra: store }).preferredEra, 'modern');
    assert.equal(new StreamableHttpClientChannel(server.url).preferredEra, undefined);

    defaultHttpEraStore.set(key, 'sse');
    assert.equal(new StreamableHttpClientChannel(server.url, { rememberEra: false }).preferredEra, undefined);
    const plain = await connectHttp(server.url, {}, { rememberEra: false, transport: 'streamable' });
    await plain.close();
    assert.equal(defaultHttpEraStore.get(key), 'sse', 'rememberEra: false records nothing');
    forgetHttpEras(server.url);
    assert.equal(defaultHttpEraStore.get(key), undefined);

    const bounded = new MemoryHttpEraStore(2);
    bounded.set('a', 'modern');
    bounded.set('b', 'sse');
    bounded.get('a');
    bounded.set('c', 'streamable-legacy');
    assert.deepEqual(
      [bounded.get('a'), bounded.get('b'), bounded.get('c'), bounded.size],
      ['modern', undefined, 'streamable-legacy', 2],
    );
  });

  test('a stale "sse" verdict: the GET fails, the channel forgets it and the client ends up modern', async () => {
    const server = await raw((request, res) => {
      if (request.method !== 'POST') {
        res.writeHead(405);
        res.end();
      } else if (request.body?.method === 'initialize') {
        json(res, 400, {
          jsonrpc: '2.0',
          id: request.body.id,
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported: ['2026-07-28'], requested: '2025-11-25' },
          },
        });
      } else if (request.body?.method === 'server/discover') {
        json(res, 200, discoverResult(request.body.id));
      } else {
        json(res, 200, modernResult(request.body.id, { content: [] }));
      }
    });
    defaultHttpEraStore.set(server.url, 'sse');
    const conn = await connectHttp(server.url);
    assert.equal(conn.client.revision, '2026-07-28');
    assert.deepEqual(
      server.seen.map((s) => `${s.method} ${s.body?.method ?? ''}`),
      ['GET ', 'POST initialize', 'POST server/discover'],
    );
    assert.equal(defaultHttpEraStore.get(server.url), 'modern');
    conn.assertClean();
    await conn.close();
  });
});

describe('legacy sessions on a bare server', () => {
  /** 2025-06-18, session "s-1"; pings the client from inside a tools/call stream; no GET stream, no DELETE. */
  function legacyServer(sessionId: string) {
    return (request: RawRequest, res: ServerResponse) => {
      if (request.method !== 'POST') {
        res.writeHead(405);
        res.end();
        return;
      }
      const { body } = request;
      if (body?.method === 'initialize') {
        const result = {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '1' },
        };
        json(res, 200, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': sessionId });
      } else if (body?.method === 'tools/call') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'ping-1', method: 'ping' })}\n\n`);
        const result = { content: [{ type: 'text', text: 'pong seen' }] };
        setTimeout(() => res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: body.id, result })}\n\n`), 20);
      } else if (body?.id === 'ping-1' || body?.method?.startsWith('notifications/')) {
        res.writeHead(202);
        res.end();
      } else {
        json(res, 400, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: 'Bad Request: Server not initialized' },
        });
      }
    };
  }

  test('answers to server requests are POSTed with the session; GET and DELETE 405 are fine', async () => {
    const server = await raw(legacyServer('s-1'));
    const conn = await connectHttp(server.url, { version: 'legacy' });
    assert.equal(conn.client.revision, '2025-06-18');
    assert.equal(conn.channel.sessionId, 's-1');
    const result = await conn.client.callTool('t', {});
    assert.deepEqual(result.content, [{ type: 'text', text: 'pong seen' }]);
    await until(() => server.seen.some((s) => s.body?.id === 'ping-1'), 'the ping answer');
    const answer = server.seen.find((s) => s.body?.id === 'ping-1')!;
    assert.deepEqual(answer.body, { jsonrpc: '2.0', id: 'ping-1', result: {} });
    assert.equal(answer.headers['mcp-session-id'], 's-1');
    assert.equal(answer.headers['mcp-protocol-version'], '2025-06-18');
    await conn.close();
    assert.deepEqual(
      server.seen.filter((s) => s.method !== 'POST').map((s) => [s.method, s.headers['mcp-session-id']]),
      [
        ['GET', 's-1'],
        ['DELETE', 's-1'],
      ],
    );
    assert.deepEqual(conn.warnings, []);
    conn.assertClean();
  });

  test('requests wait for the GET stream to open: a server request sent on it is not lost', async () => {
    let stream: ServerResponse | undefined;
    let answered!: () => void;
    const pingAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const text = (id: unknown, value: string) => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: value }] },
    });
    const server = await raw(async (request, res) => {
      const { body } = request;
      if (request.method === 'GET') {
        // A slow stream: a request that does not wait for it overtakes it.
        await new Promise((resolve) => setTimeout(resolve, 50));
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(':\n\n');
        stream = res;
      } else if (request.method === 'DELETE') {
        res.writeHead(200);
        res.end();
      } else if (body?.method === 'initialize') {
        const result = {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '1' },
        };
        json(res, 200, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': 's-2' });
      } else if (body?.method === 'tools/call') {
        // Like the official SDKs' server.request(): on the GET stream, or nowhere.
        if (!stream) return json(res, 200, text(body.id, 'the ping was lost'));
        stream.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'ping-2', method: 'ping' })}\n\n`);
        await pingAnswered;
        json(res, 200, text(body.id, 'pong seen'));
      } else {
        if (body?.id === 'ping-2') answered();
        res.writeHead(202);
        res.end();
      }
    });
    const conn = await connectHttp(server.url, { version: 'legacy' });
    const result = await conn.client.callTool('t', {});
    assert.deepEqual(result.content, [{ type: 'text', text: 'pong seen' }]);
    await conn.close();
    conn.assertClean();
  });

  test('a session id that is not visible ASCII is refused with a warning', async () => {
    const server = await raw(legacyServer('bad id'));
    const conn = await connectHttp(server.url, { version: 'legacy' });
    assert.equal(conn.channel.sessionId, undefined);
    assert.match(conn.warnings[0] ?? '', /session id that is not visible ASCII/);
    await conn.close();
  });
});

describe('HTTP+SSE edge cases', () => {
  test('an endpoint on another origin is refused', async () => {
    const server = await raw((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: http://evil.example/messages\n\n');
    }, '/sse');
    const client = new Client({ name: 't', version: '1' });
    await assert.rejects(
      client.connect(new SseClientChannel(server.url)),
      /named an endpoint on another origin \(http:\/\/evil\.example\)/,
    );
  });

  test('no endpoint event within connectTimeoutMs', async () => {
    const server = await raw((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': waiting\n\n');
    }, '/sse');
    const client = new Client({ name: 't', version: '1' });
    await assert.rejects(
      client.connect(new SseClientChannel(server.url, { connectTimeoutMs: 50 })),
      /sent no endpoint event within 50 ms/,
    );
  });

  test('a relative endpoint is resolved against the stream URL and messages are POSTed there', async () => {
    const server = await raw((request, res) => {
      if (request.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: messages?session=1\n\n');
        (server as RawServer & { stream?: ServerResponse }).stream = res;
        return;
      }
      res.writeHead(202);
      res.end();
      const stream = (server as RawServer & { stream?: ServerResponse }).stream!;
      if (request.body?.method === 'initialize') {
        const result = {
          protocolVersion: '2024-11-05',
          capabilities: {},
          serverInfo: { name: 'raw-sse', version: '1' },
        };
        stream.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: request.body.id, result })}\n\n`,
        );
      }
    }, '/base/sse');
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new SseClientChannel(server.url));
    assert.equal(client.revision, '2024-11-05');
    await until(() => server.seen.length === 3, 'notifications/initialized');
    const posts = server.seen.filter((s) => s.method === 'POST');
    assert.deepEqual(
      posts.map((s) => [s.path, s.body?.method]),
      [
        ['/base/messages?session=1', 'initialize'],
        ['/base/messages?session=1', 'notifications/initialized'],
      ],
    );
    assert.equal(posts[1]?.headers['mcp-protocol-version'], '2024-11-05');
    await client.close();
  });
});

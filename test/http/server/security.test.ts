/**
 * Secure by default: DNS-rebinding Host and foreign Origin → 403, body cap → 413, wrong content
 * type → 415, Accept without the needed types → 406; every refusal has a JSON-RPC error body that
 * says what to do. Checked on the Node adapter (real loopback) and on the bare fetch handler.
 */
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createHttpHandler } from '../../../src/transports/http/server/handler.js';
import {
  ACCEPT_BOTH,
  assertError,
  initialize,
  makeServer,
  modernHeaders,
  modernRequest,
  post,
  rawRequest,
  sessionHeaders,
  startServer,
  type TestServer,
} from './helpers.js';

const listBody = JSON.stringify(modernRequest(1, 'tools/list'));

function parse(body: string): { error: { code: number; message: string } } {
  const parsed = JSON.parse(body);
  assert.equal(parsed.jsonrpc, '2.0');
  assert.equal(typeof parsed.error.message, 'string');
  return parsed;
}

describe('defaults on a loopback server', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(makeServer(), { maxBodyBytes: 1024 });
  });
  after(() => server.close());

  test('loopback Host names are accepted', async () => {
    for (const host of [
      `127.0.0.1:${server.port}`,
      `localhost:${server.port}`,
      'localhost',
      `[::1]:${server.port}`,
      'app.localhost',
    ]) {
      const reply = await rawRequest(server.port, {
        headers: { ...modernHeaders('tools/list'), host },
        body: listBody,
      });
      assert.equal(reply.status, 200, `${host}: ${reply.body}`);
    }
  });

  test('a rebinding Host → 403 on every endpoint (GET streams carry no Origin)', async () => {
    for (const [method, path] of [
      ['POST', '/mcp'],
      ['GET', '/mcp'],
      ['GET', '/sse'],
      ['POST', '/messages?sessionId=x'],
    ] as const) {
      const reply = await rawRequest(server.port, {
        method,
        path,
        headers: { ...modernHeaders('tools/list'), host: `evil.example:${server.port}` },
        body: method === 'POST' ? listBody : undefined,
      });
      assert.equal(reply.status, 403, `${method} ${path}`);
      const { error } = parse(reply.body);
      assert.match(error.message, /DNS rebinding/);
      assert.match(error.message, /allowedHosts/);
    }
  });

  test('a foreign Origin → 403; same-origin and loopback origins pass; "null" is refused', async () => {
    const cases: [string, number][] = [
      ['https://evil.example', 403],
      ['null', 403],
      [server.origin, 200],
      ['http://localhost:6274', 200],
      [`http://127.0.0.1:${server.port}`, 200],
    ];
    for (const [origin, status] of cases) {
      const reply = await rawRequest(server.port, {
        headers: { ...modernHeaders('tools/list'), origin },
        body: listBody,
      });
      assert.equal(reply.status, status, `Origin ${origin}: ${reply.body}`);
      if (status === 403) assert.match(parse(reply.body).error.message, /allowedOrigins/);
    }
  });

  test('a body over the cap → 413, declared or streamed', async () => {
    const big = JSON.stringify(
      modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(2000) } }),
    );
    const declared = await post(server.url, big, modernHeaders('tools/call', 'echo'));
    assertError(declared, 413, -32600, /1024 bytes/);
    // Chunked: no Content-Length, the cap applies while reading.
    const streamed = await rawRequest(server.port, {
      headers: { ...modernHeaders('tools/call', 'echo'), 'transfer-encoding': 'chunked' },
      body: big,
    });
    assert.equal(streamed.status, 413);
    assert.match(parse(streamed.body).error.message, /maxBodyBytes/);
  });

  test('a large body gets its 413 while the client is still sending (no EPIPE), declared or chunked', async () => {
    const big = await startServer(makeServer(), { maxBodyBytes: 64 * 1024 });
    try {
      for (const chunked of [false, true]) {
        // What a blocking client does (Python's urllib, say): the whole 16 MiB body in one write,
        // the answer read only after it. Closing on it mid-upload is an EPIPE, not a 413.
        const size = 16 * 1024 * 1024;
        const socket = connect(big.port, '127.0.0.1');
        const head = [
          'POST /mcp HTTP/1.1',
          'Host: 127.0.0.1',
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`,
          '',
          '',
        ].join('\r\n');
        const body = Buffer.alloc(size, 'x');
        const framed = chunked
          ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
          : body;
        let received = '';
        let failure: string | undefined;
        socket.setEncoding('utf8');
        socket.on('data', (text: string) => (received += text));
        socket.on('error', (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message));
        socket.write(Buffer.concat([Buffer.from(head), framed]));
        await new Promise((resolve) => socket.once('close', resolve));
        assert.equal(
          failure,
          undefined,
          `chunked=${chunked}: the client got ${failure} (received ${JSON.stringify(received.slice(0, 60))})`,
        );
        assert.match(received, /^HTTP\/1\.1 413 /);
        assert.match(received, /65536 bytes/);
      }
    } finally {
      await big.close();
    }
  });

  test('a body that is not JSON by Content-Type → 415', async () => {
    const reply = await post(server.url, listBody, {
      ...modernHeaders('tools/list'),
      'content-type': 'text/plain',
    });
    assertError(reply, 415, -32600, /application\/json/);
    const charset = await post(server.url, listBody, {
      ...modernHeaders('tools/list'),
      'content-type': 'application/json; charset=utf-8',
    });
    assert.equal(charset.status, 200);
  });

  test('an Accept header without both reply types → 406 (wildcards count)', async () => {
    for (const accept of ['application/json', 'text/event-stream', 'text/html']) {
      const reply = await post(server.url, listBody, { ...modernHeaders('tools/list'), accept });
      assertError(reply, 406, -32600, /application\/json and text\/event-stream/);
    }
    const { accept: _accept, ...noAccept } = modernHeaders('tools/list');
    const absent = await rawRequest(server.port, { headers: noAccept, body: listBody });
    assert.equal(absent.status, 406);
    for (const accept of ['*/*', 'application/*, text/*', `${ACCEPT_BOTH};q=0.9`]) {
      const reply = await post(server.url, listBody, { ...modernHeaders('tools/list'), accept });
      assert.equal(reply.status, 200, accept);
    }
  });
});

describe('every body path: modern POST, legacy session POST, HTTP+SSE /messages', () => {
  let server: TestServer;
  /** Each path: where it POSTs, the headers of a valid request there, and a valid body. */
  let paths: {
    name: string;
    path: string;
    headers: Record<string, string>;
    body: string;
    replies: boolean;
  }[];
  let sse: { destroy(): void };
  before(async () => {
    server = await startServer(makeServer(), { maxBodyBytes: 1024 });
    const { sessionId } = await initialize(server.url, '2025-11-25');
    const stream = await openSse(server.port);
    sse = stream;
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' });
    paths = [
      {
        name: 'modern POST',
        path: '/mcp',
        headers: modernHeaders('tools/list'),
        body: listBody,
        replies: true,
      },
      {
        name: 'legacy session POST',
        path: '/mcp',
        headers: sessionHeaders(sessionId, '2025-11-25'),
        body: ping,
        replies: true,
      },
      {
        name: 'HTTP+SSE /messages',
        path: stream.postPath,
        headers: { 'content-type': 'application/json' },
        body: ping,
        replies: false,
      },
    ];
  });
  after(async () => {
    sse.destroy();
    await server.close();
  });

  const send = (path: string, headers: Record<string, string>, body: string) =>
    rawRequest(server.port, { path, headers: { host: `127.0.0.1:${server.port}`, ...headers }, body });

  test('each path serves a valid request (the baseline the refusals below differ from)', async () => {
    for (const p of paths) {
      const reply = await send(p.path, p.headers, p.body);
      assert.equal(reply.status, p.replies ? 200 : 202, `${p.name}: ${reply.body}`);
    }
  });

  test('413 for a body over the cap, declared or chunked', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2000) } });
    for (const p of paths) {
      for (const headers of [p.headers, { ...p.headers, 'transfer-encoding': 'chunked' }]) {
        const reply = await send(p.path, headers, big);
        assert.equal(reply.status, 413, `${p.name}: ${reply.body}`);
        assert.match(parse(reply.body).error.message, /maxBodyBytes/);
      }
    }
  });

  test('415 for a body that is not JSON by Content-Type', async () => {
    for (const p of paths) {
      const reply = await send(p.path, { ...p.headers, 'content-type': 'text/plain' }, p.body);
      assert.equal(reply.status, 415, p.name);
      assert.match(parse(reply.body).error.message, /application\/json/);
    }
  });

  test('406 where a reply is negotiated; /messages answers on the stream, whatever Accept says', async () => {
    for (const p of paths) {
      const reply = await send(p.path, { ...p.headers, accept: 'text/html' }, p.body);
      if (p.replies) {
        assert.equal(reply.status, 406, p.name);
        assert.match(parse(reply.body).error.message, /application\/json and text\/event-stream/);
      } else assert.equal(reply.status, 202, p.name);
    }
  });

  test('403 for a foreign Origin or a rebinding Host, on each path', async () => {
    for (const p of paths) {
      const origin = await send(p.path, { ...p.headers, origin: 'https://evil.example' }, p.body);
      assert.equal(origin.status, 403, p.name);
      assert.match(parse(origin.body).error.message, /allowedOrigins/);
      const host = await send(p.path, { ...p.headers, host: `evil.example:${server.port}` }, p.body);
      assert.equal(host.status, 403, p.name);
      assert.match(parse(host.body).error.message, /allowedHosts/);
    }
  });
});

/** Opens GET /sse and reads its endpoint event; the stream stays open until `destroy()`. */
async function openSse(port: number): Promise<{ postPath: string; destroy(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(
      { host: '127.0.0.1', port, path: '/sse', headers: { accept: 'text/event-stream' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          const match = /data: (\/messages\?sessionId=\w+)/.exec(text);
          if (match) resolve({ postPath: match[1]!, destroy: () => res.destroy() });
        });
      },
    );
    req.on('error', reject);
  });
}

describe('configured allowlists', () => {
  test('allowedHosts and allowedOrigins replace the defaults', async () => {
    const server = await startServer(makeServer(), {
      allowedHosts: ['mcp.example.com', `127.0.0.1:${0}`],
      allowedOrigins: ['https://app.example.com'],
    });
    try {
      const send = (headers: Record<string, string>) =>
        rawRequest(server.port, { headers: { ...modernHeaders('tools/list'), ...headers }, body: listBody });
      assert.equal((await send({ host: 'mcp.example.com' })).status, 200);
      assert.equal(
        (await send({ host: 'mcp.example.com:8443' })).status,
        200,
        'an entry without port allows any port',
      );
      assert.equal((await send({ host: `127.0.0.1:${server.port}` })).status, 403, 'only the listed port');
      assert.equal((await send({ host: 'mcp.example.com', origin: 'https://app.example.com' })).status, 200);
      assert.equal((await send({ host: 'mcp.example.com', origin: 'https://mcp.example.com' })).status, 403);
    } finally {
      await server.close();
    }
  });

  test("'any' turns a check off", async () => {
    const server = await startServer(makeServer(), { allowedHosts: 'any', allowedOrigins: 'any' });
    try {
      const reply = await rawRequest(server.port, {
        headers: {
          ...modernHeaders('tools/list'),
          host: 'whatever.example',
          origin: 'https://elsewhere.example',
        },
        body: listBody,
      });
      assert.equal(reply.status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('the bare fetch handler (no socket: the local address is unknown)', () => {
  const handler = createHttpHandler(makeServer());
  after(() => handler.close());

  const request = (url: string, headers: Record<string, string> = {}) =>
    new Request(url, {
      method: 'POST',
      headers: { ...modernHeaders('tools/list'), ...headers },
      body: listBody,
    });

  test('accepts loopback hosts only unless configured', async () => {
    const ok = await handler.fetch(request('http://localhost:3000/mcp'));
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as any).result.tools.length > 0, true);
    const public_ = await handler.fetch(request('https://mcp.example.com/mcp'));
    assert.equal(public_.status, 403);
    assert.match(((await public_.json()) as any).error.message, /allowedHosts/);
  });

  test('refuses a foreign Origin and oversized bodies', async () => {
    const foreign = await handler.fetch(
      request('http://localhost:3000/mcp', { origin: 'https://evil.example' }),
    );
    assert.equal(foreign.status, 403);
    const small = createHttpHandler(makeServer(), { maxBodyBytes: 16 });
    const tooBig = await small.fetch(request('http://localhost:3000/mcp'));
    assert.equal(tooBig.status, 413);
    assert.equal(((await tooBig.json()) as any).error.code, -32600);
    await small.close();
  });
});

/**
 * `nodeFetch`: the fetch for the HTTP client channels on Node behaves like fetch where they rely on
 * it, keeps credentials on their origin, honours proxies and bounds its connections.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { createNodeFetch, nodeFetch } from '../../../src/node/fetch.js';
import type { FetchLike } from '../../../src/transports/http/client/fetch-like.js';
import { StreamableHttpClientChannel } from '../../../src/transports/http/client/streamable-channel.js';
import { json, type RawRequest, type RawServer, startRaw } from '../../fixtures/http-raw.js';

const servers: RawServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});
async function raw(handler: (request: RawRequest, res: ServerResponse) => void) {
  const server = await startRaw(handler);
  servers.push(server);
  return server;
}
const init = (extra: Partial<Parameters<typeof nodeFetch>[1]> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"héllo":1}',
  signal: new AbortController().signal,
  ...extra,
});

describe('nodeFetch', () => {
  test('a POST with a string body; status, headers (joined) and text', async () => {
    const server = await raw((request, res) => {
      res.setHeader('x-multi', ['a', 'b']);
      json(res, 201, { got: request.body, length: request.headers['content-length'] });
    });
    const response = await nodeFetch(server.url, init());
    assert.equal(response.status, 201);
    assert.equal(response.statusText, 'Created');
    assert.equal(response.headers.get('X-Multi'), 'a, b');
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(response.headers.get('nope'), null);
    assert.deepEqual(JSON.parse(await response.text()), { got: { héllo: 1 }, length: '12' });
  });

  test('the body as a byte stream, chunk by chunk', async () => {
    const server = await raw((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.end('data: 2\n\n'), 10);
    });
    const response = await nodeFetch(server.url, init());
    const reader = response.body!.getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    assert.equal(text, 'data: 1\n\ndata: 2\n\n');
  });

  test('an endless body: every chunk read holds bytes, so a reader with a cap reaches it and stops the download', async () => {
    // Issue 25: undici's empty chunk at each resume once woke the reader with nothing, which resumed
    // again, forever, without yielding to the event loop: the channels' size cap was never reached.
    let closed: Promise<boolean> | undefined;
    const server = await raw((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      closed = new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished)));
      let sent = 0;
      const more = () => {
        // A safety stop far past the cap, so a broken reader fails the test rather than hanging it.
        while (!res.destroyed && sent < 256 * 1024 * 1024) {
          sent += 64 * 1024;
          if (!res.write('y'.repeat(64 * 1024))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const response = await nodeFetch(server.url, init());
    const reader = response.body!.getReader();
    const cap = 8 * 1024 * 1024;
    let size = 0;
    let reads = 0;
    while (size <= cap) {
      const { done, value } = await reader.read();
      assert.equal(done, false, 'the body ended before the cap');
      assert.ok(value && value.byteLength > 0, `read ${reads} gave no bytes (${size} so far)`);
      size += value.byteLength;
      reads++;
    }
    await reader.cancel();
    assert.equal(await closed, true, 'the download stopped');
  });

  test('abort before the answer rejects with the reason; abort while reading fails the read', async () => {
    const server = await raw((request, res) => {
      if (request.path === '/mcp?stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n');
      }
      // Otherwise never answer.
    });
    const early = new AbortController();
    const pending = nodeFetch(server.url, init({ signal: early.signal }));
    setTimeout(() => early.abort(), 20);
    await assert.rejects(pending, { name: 'AbortError' });

    const late = new AbortController();
    const response = await nodeFetch(`${server.url}?stream`, init({ signal: late.signal }));
    const reader = response.body!.getReader();
    await reader.read();
    const next = reader.read();
    late.abort(new Error('stop'));
    await assert.rejects(next, { message: 'stop' });
    await assert.rejects(nodeFetch(server.url, init({ signal: late.signal })), { message: 'stop' });
  });

  test('redirects: 307 repeats the POST, 303 becomes a GET, credentials stay on their origin', async () => {
    const other = await raw((request, res) =>
      json(res, 200, { method: request.method, auth: request.headers.authorization ?? null }),
    );
    const server = await raw((request, res) => {
      if (request.path === '/mcp') {
        res.writeHead(307, { location: '/moved' });
        res.end();
      } else if (request.path === '/moved') {
        res.writeHead(303, { location: `${other.url}?x` });
        res.end();
      }
    });
    const response = await nodeFetch(
      server.url,
      init({ headers: { authorization: 'Bearer t', 'content-type': 'application/json' } }),
    );
    assert.deepEqual(JSON.parse(await response.text()), { method: 'GET', auth: null });
    assert.deepEqual(
      server.seen.map((s) => [s.method, s.path, s.text, s.headers.authorization]),
      [
        ['POST', '/mcp', '{"héllo":1}', 'Bearer t'],
        ['POST', '/moved', '{"héllo":1}', 'Bearer t'],
      ],
    );
    const manual = await nodeFetch(server.url, init({ redirect: 'manual' }));
    assert.equal(manual.status, 307);
    await manual.text();
    await assert.rejects(nodeFetch(server.url, init({ redirect: 'error' })), {
      name: 'TypeError',
      message: 'fetch failed',
    });
  });

  test('endless redirects and refused connections fail like fetch', async () => {
    const loop = await raw((_request, res) => {
      res.writeHead(308, { location: '/mcp' });
      res.end();
    });
    await assert.rejects(nodeFetch(loop.url, init()), (error: TypeError) => {
      assert.equal(error.message, 'fetch failed');
      assert.match(String((error.cause as Error).message), /too many redirects/);
      return true;
    });
    const gone = await raw(() => undefined);
    const url = gone.url;
    await gone.close();
    servers.splice(servers.indexOf(gone), 1);
    await assert.rejects(createNodeFetch()(url, init()), (error: TypeError) => {
      assert.equal(error.message, 'fetch failed');
      assert.equal((error.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
  });

  test('each URL is its own target: its path, query and credentials (as Basic), whichever came before it', async () => {
    const server = await raw((request, res) => {
      json(res, 200, { url: request.path, authorization: request.headers.authorization ?? null });
    });
    const fetch = createNodeFetch();
    const at = (url: string, extra = {}) =>
      fetch(url, init(extra)).then(async (r) => JSON.parse(await r.text()) as Record<string, unknown>);
    const withUser = server.url.replace('http://', 'http://al%20ice:s%3Acret@');
    const basic = `Basic ${Buffer.from('al ice:s:cret').toString('base64')}`;
    // The same URL twice (parsed once), then others, then the first again.
    assert.deepEqual(await at(withUser), { url: '/mcp', authorization: basic });
    assert.deepEqual(await at(withUser), { url: '/mcp', authorization: basic });
    assert.deepEqual(await at(`${server.url}?a=1`), { url: '/mcp?a=1', authorization: null });
    // The caller's own Authorization wins over the URL's.
    assert.deepEqual(await at(withUser, { headers: { authorization: 'Bearer t' } }), {
      url: '/mcp',
      authorization: 'Bearer t',
    });
    // An invalid URL fails like fetch and leaves the next request alone.
    await assert.rejects(fetch('not a url', init()), TypeError);
    assert.deepEqual(await at(withUser), { url: '/mcp', authorization: basic });
    assert.deepEqual(await at(server.url), { url: '/mcp', authorization: null });
  });

  test('a connection dropped mid-body fails text()', async () => {
    const server = await raw((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      // Dropped once the half body has left (the request was read whole, so no reset overtakes it).
      res.write('{"partial":', () => res.socket?.destroy());
    });
    const response = await nodeFetch(server.url, init());
    await assert.rejects(response.text(), { name: 'TypeError', message: 'terminated' });
  });
});

describe('nodeFetch: credentials, proxies, connections', () => {
  test('a redirect to another origin carries only the protocol headers; the same origin keeps them all', async () => {
    const other = await raw((_request, res) => json(res, 200, { ok: true }));
    const server = await raw((request, res) => {
      res.writeHead(307, { location: request.path === '/mcp' ? '/same' : `${other.url}?moved` });
      res.end();
    });
    const headers = {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      authorization: 'Bearer secret',
      cookie: 'session=secret',
      'x-api-key': 'secret',
      'mcp-session-id': 'secret-session',
      'mcp-protocol-version': '2025-11-25',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
      'mcp-param-region': 'eu',
    };
    const response = await nodeFetch(server.url, init({ headers }));
    assert.equal(response.status, 200);
    await response.text();
    const names = (request: RawRequest) =>
      Object.keys(request.headers)
        .filter((name) => !['host', 'connection', 'content-length'].includes(name))
        .sort();
    assert.deepEqual(
      server.seen.map((s) => [s.path, names(s)]),
      [
        ['/mcp', Object.keys(headers).sort()],
        ['/same', Object.keys(headers).sort()],
      ],
      'same origin: every header follows',
    );
    assert.equal(other.seen.length, 1);
    assert.deepEqual(
      names(other.seen[0]!),
      ['accept', 'content-type', 'mcp-method', 'mcp-name', 'mcp-param-region', 'mcp-protocol-version'],
      'another origin: no Authorization, Cookie, session id or custom header',
    );
    assert.equal(other.seen[0]!.text, '{"héllo":1}', '307 repeats the body');
  });

  test('the channel sends no credentials across origins: bearer token and headers stay behind', async () => {
    const other = await raw((request, res) =>
      json(res, 200, { jsonrpc: '2.0', id: request.body?.id, result: { resultType: 'complete' } }),
    );
    const server = await raw((_request, res) => {
      res.writeHead(308, { location: other.url });
      res.end();
    });
    const channel = new StreamableHttpClientChannel(server.url, {
      fetch: nodeFetch,
      bearerToken: 'secret-token',
      headers: { 'x-api-key': 'secret-key' },
      rememberEra: false,
    });
    const answered = new Promise<unknown>((resolve) =>
      channel.start({ message: resolve, malformed: () => {}, closed: () => {} }),
    );
    const frame = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    });
    channel.send(frame);
    assert.deepEqual(await answered, { jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } });
    await channel.close();
    assert.equal(server.seen[0]!.headers.authorization, 'Bearer secret-token');
    assert.equal(server.seen[0]!.headers['x-api-key'], 'secret-key');
    assert.equal(other.seen[0]!.headers.authorization, undefined);
    assert.equal(other.seen[0]!.headers['x-api-key'], undefined);
    assert.equal(other.seen[0]!.headers['mcp-protocol-version'], '2026-07-28');
  });

  test('a proxy URL: every request goes through it (CONNECT), loopback too, with its credentials', async () => {
    const target = await raw((_request, res) => json(res, 200, { via: 'target' }));
    const proxy = await startProxy();
    try {
      const fetch = createNodeFetch({ proxy: `http://user:p%40ss@127.0.0.1:${proxy.port}` });
      const response = await fetch(target.url, init());
      assert.deepEqual(JSON.parse(await response.text()), { via: 'target' });
      assert.deepEqual(proxy.tunnels, [new URL(target.url).host]);
      assert.equal(proxy.authorizations[0], `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    } finally {
      await proxy.close();
    }
  });

  test('HTTP_PROXY, HTTPS_PROXY and NO_PROXY from the environment, read at the first request; loopback stays direct', async () => {
    const target = await raw((_request, res) => json(res, 200, { via: 'target' }));
    const proxy = await startProxy();
    const saved = { ...process.env };
    const withEnv = async (env: Record<string, string>, run: () => Promise<void>) => {
      for (const name of ['http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY']) {
        delete process.env[name];
      }
      Object.assign(process.env, env);
      try {
        await run();
      } finally {
        process.env = { ...saved };
      }
    };
    const ok = async (fetch: FetchLike, url: string) => {
      const response = await fetch(url, init());
      assert.deepEqual(JSON.parse(await response.text()), { via: 'target' });
    };
    const proxyUrl = `http://127.0.0.1:${proxy.port}`;
    const { port } = new URL(target.url);
    // 0.0.0.0 is not loopback by name, and on Linux a connection to it reaches 127.0.0.1: a host
    // that must go through the proxy, yet is reachable directly, with no DNS involved.
    const outside = `http://0.0.0.0:${port}/mcp`;
    try {
      await withEnv({ HTTP_PROXY: proxyUrl }, () => ok(createNodeFetch(), outside));
      assert.deepEqual(proxy.tunnels, [`0.0.0.0:${port}`], 'HTTP_PROXY');

      await withEnv({ http_proxy: proxyUrl, NO_PROXY: `localhost, 0.0.0.0:${port}` }, () =>
        ok(createNodeFetch(), outside),
      );
      assert.equal(proxy.tunnels.length, 1, 'NO_PROXY naming host:port: direct');

      await withEnv({ HTTP_PROXY: proxyUrl }, () => ok(createNodeFetch(), target.url));
      assert.equal(proxy.tunnels.length, 1, 'loopback: direct');

      await withEnv({ HTTP_PROXY: proxyUrl }, () => ok(createNodeFetch({ proxy: false }), outside));
      assert.equal(proxy.tunnels.length, 1, 'proxy: false ignores the environment');

      // An https: URL goes to HTTPS_PROXY; the proxy refuses the tunnel, which is all this checks.
      await withEnv({ HTTPS_PROXY: proxyUrl }, async () => {
        await assert.rejects(createNodeFetch()('https://mcp.example.test/mcp', init()), {
          name: 'TypeError',
          message: 'fetch failed',
        });
      });
      assert.deepEqual(proxy.tunnels.slice(1), ['mcp.example.test:443'], 'HTTPS_PROXY');
    } finally {
      await proxy.close();
    }
  });

  test('at most `connections` sockets per origin, reused: requests beyond them wait', async () => {
    let open = 0;
    let peak = 0;
    const sockets = new Set<unknown>();
    const server = await raw((request, res) => {
      sockets.add(request.socket);
      // Answer once a few are waiting, so that requests overlap.
      setTimeout(() => json(res, 200, { ok: true }), 5);
    });
    server.http.on('connection', (socket) => {
      peak = Math.max(peak, ++open);
      socket.on('close', () => open--);
    });
    const fetch = createNodeFetch({ connections: 4 });
    const responses = await Promise.all(
      Array.from({ length: 60 }, () => fetch(server.url, init()).then((r) => r.text())),
    );
    assert.equal(responses.length, 60);
    assert.ok(peak <= 4, `at most 4 connections at once, saw ${peak}`);
    assert.ok(sockets.size <= 4, `kept alive and reused: ${sockets.size} sockets for 60 requests`);
    assert.throws(() => createNodeFetch({ connections: 0 }), /connections must be a positive integer/);
  });
});

/**
 * A forward proxy that only tunnels (CONNECT), as undici's proxy agents use. Every host leads to
 * 127.0.0.1 (so tests need no DNS); port 443 is refused with 502.
 */
async function startProxy() {
  const tunnels: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const server = createServer((_req, res) => {
    res.writeHead(405).end();
  });
  const open = new Set<Socket>();
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    authorizations.push(req.headers['proxy-authorization']);
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    const port = Number((req.url ?? '').split(':').pop());
    if (port === 443) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    tunnels,
    authorizations,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

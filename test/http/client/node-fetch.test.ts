/** `nodeFetch`: the node:http fetch for the HTTP client channels behaves like fetch where they rely on it. */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, test } from 'node:test';
import { createNodeFetch, nodeFetch } from '../../../src/node/fetch.js';
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

  test('a connection dropped mid-body fails text()', async () => {
    const server = await raw((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const response = await nodeFetch(server.url, init());
    await assert.rejects(response.text(), { name: 'TypeError', message: 'terminated' });
  });
});

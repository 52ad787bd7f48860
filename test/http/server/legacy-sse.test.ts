/**
 * The deprecated HTTP+SSE transport (2024-11-05) on its own paths: the endpoint event, 202 for
 * every POST, responses on the stream, the session ending with the stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '../../helpers/wait.js';
import {
  ACCEPT_BOTH,
  assertError,
  EventReader,
  makeServer,
  post,
  readReply,
  startServer,
  type TestServer,
} from './helpers.js';
import { WireCheck } from './wire.js';

describe('HTTP+SSE (2024-11-05)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(makeServer());
  });
  after(() => server.close());

  const json = { 'content-type': 'application/json', accept: ACCEPT_BOTH };

  test('GET /sse announces the POST endpoint; messages are answered on the stream', async () => {
    const wire = await WireCheck.create();
    const response = await fetch(`${server.origin}/sse`, { headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const reader = new EventReader(response);
    const endpoint = await reader.next();
    assert.equal(endpoint?.event, 'endpoint');
    assert.match(endpoint!.data, /^\/messages\?sessionId=[0-9a-f]{32}$/);
    const postUrl = new URL(endpoint!.data, server.origin).href;

    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'sse', version: '1' } },
    };
    const accepted = await post(postUrl, init, json, wire);
    assert.equal(accepted.status, 202);
    const initialized = await reader.next();
    assert.equal(initialized?.event, 'message');
    const result = JSON.parse(initialized!.data);
    wire.server(result);
    assert.equal(result.result.protocolVersion, '2024-11-05');
    assert.equal(
      (await post(postUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, json, wire)).status,
      202,
    );
    assert.equal(
      (
        await post(
          postUrl,
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: 'sse' } },
          },
          json,
          wire,
        )
      ).status,
      202,
    );
    const answer = JSON.parse((await reader.next())!.data);
    wire.server(answer);
    assert.deepEqual(answer.result.content, [{ type: 'text', text: 'sse' }]);

    // The stream is the session: once it closes, the POST endpoint forgets it.
    await reader.cancel();
    await until(
      async () => (await post(postUrl, { jsonrpc: '2.0', id: 3, method: 'ping' }, json)).status === 404,
      'the session ended with its stream',
    );
    wire.assertClean();
  });

  test('refusals: no or unknown sessionId, wrong methods, Accept, and a Streamable id on /messages', async () => {
    assertError(
      await post(`${server.origin}/messages`, { jsonrpc: '2.0', id: 1, method: 'ping' }, json),
      400,
      -32600,
      /sessionId/,
    );
    assertError(
      await post(`${server.origin}/messages?sessionId=nope`, { jsonrpc: '2.0', id: 1, method: 'ping' }, json),
      404,
      -32600,
      /GET \/sse/,
    );
    assert.equal((await fetch(`${server.origin}/sse`, { method: 'POST' })).status, 405);
    assert.equal((await fetch(`${server.origin}/messages`)).status, 405);
    assertError(
      await readReply(await fetch(`${server.origin}/sse`, { headers: { accept: 'application/json' } })),
      406,
      -32600,
    );
    // Session kinds do not mix: a Streamable HTTP session id is unknown to /messages.
    const init = await post(
      server.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      json,
    );
    const sessionId = init.headers.get('mcp-session-id')!;
    assertError(
      await post(
        `${server.origin}/messages?sessionId=${sessionId}`,
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        json,
      ),
      404,
      -32600,
    );
  });

  test('sseEndpoint: false turns the transport off', async () => {
    const off = await startServer(makeServer(), { sseEndpoint: false });
    try {
      assert.equal(
        (await fetch(`${off.origin}/sse`, { headers: { accept: 'text/event-stream' } })).status,
        404,
      );
    } finally {
      await off.close();
    }
  });
});

/**
 * A Switchboard server's HTTP+SSE URL (`/sse`) answers POST with 405 and a JSON-RPC error body. The
 * streamable channel must still read that as "no Streamable HTTP here" and fall back to HTTP+SSE,
 * as it does for servers whose 404/405 carry no JSON-RPC body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import { type RunningServer, serve } from '../../../src/node/serve.js';
import { createHttpHandler } from '../../../src/transports/http/server/handler.js';
import { connectHttp } from './helpers.js';

describe('a Switchboard server reached at its /sse URL', () => {
  let running: RunningServer;
  before(async () => {
    const server = new Server({ name: 'sse-only-url', version: '1.0.0' });
    server.registerTool('echo', {}, () => 'over HTTP+SSE');
    running = await serve(createHttpHandler(server));
  });
  after(() => running.close());

  test('auto: the 405 to POST sends the channel to HTTP+SSE', async () => {
    const url = running.url.replace(/\/mcp$/, '/sse');
    const conn = await connectHttp(url, {}, { rememberEra: false });
    assert.equal(conn.client.era, 'legacy');
    assert.match(conn.channel.label, /^HTTP\+SSE http:\/\/127\.0\.0\.1:\d+\/sse$/);
    assert.deepEqual((await conn.client.callTool('echo')).content, [{ type: 'text', text: 'over HTTP+SSE' }]);
    conn.assertClean();
    await conn.close();
  });

  test('transport: "streamable" still refuses, naming the 405', async () => {
    const url = running.url.replace(/\/mcp$/, '/sse');
    await assert.rejects(
      connectHttp(url, {}, { transport: 'streamable', rememberEra: false }),
      /Method Not Allowed: POST is not served here/,
    );
  });
});

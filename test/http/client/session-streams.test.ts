/**
 * Each legacy session holds its standalone event stream (a GET) open for as long as it lives. Those
 * streams must not use up nodeFetch's bounded pool: counted with the requests, a process with as many
 * sessions as `connections` (64 by default) could not send the next session's `initialize` at all.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import { createNodeFetch } from '../../../src/node/fetch.js';
import { type RunningServer, serve } from '../../../src/node/serve.js';
import { createHttpHandler } from '../../../src/transports/http/server/handler.js';
import { connectHttp, type HttpConnection } from './helpers.js';

const CONNECTIONS = 2;
const SESSIONS = 5;

let running: RunningServer;
before(async () => {
  const server = new Server({ name: 'many-sessions', version: '1.0.0' });
  server.registerTool('echo', {}, () => 'still answering');
  running = await serve(createHttpHandler(server));
});
after(() => running.close());

for (const [transport, path] of [
  ['Streamable HTTP', '/mcp'],
  ['HTTP+SSE', '/sse'],
] as const) {
  test(`${SESSIONS} ${transport} sessions over a pool of ${CONNECTIONS} connections: each opens its stream and calls`, async () => {
    const fetch = createNodeFetch({ connections: CONNECTIONS });
    const url = running.url.replace(/\/mcp$/, path);
    const conns: HttpConnection[] = [];
    try {
      for (let i = 0; i < SESSIONS; i++) {
        conns.push(await connectHttp(url, { version: 'legacy' }, { fetch, rememberEra: false }));
      }
      const results = await Promise.all(conns.map((conn) => conn.client.callTool('echo')));
      for (const result of results)
        assert.deepEqual(result.content, [{ type: 'text', text: 'still answering' }]);
      for (const conn of conns) conn.assertClean();
    } finally {
      await Promise.all(conns.map((conn) => conn.close()));
    }
  });
}

/**
 * A legacy session across a server restart (issue 15): the server goes away for longer than the
 * GET stream's backoff allows, then comes back on the same port knowing nothing of the session. The
 * channel must not give up the stream (the old "Gave up the standalone event stream" warning), and
 * must start a new session from the GET stream's 404 alone, so a client that only listens hears the
 * new server without having sent a request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import { nodeFetch } from '../../../src/node/fetch.js';
import { serve } from '../../../src/node/serve.js';
import type { FetchLike } from '../../../src/transports/http/client/fetch-like.js';
import { createHttpHandler } from '../../../src/transports/http/server/handler.js';
import { counter } from '../../helpers/wait.js';
import { connectHttp } from './helpers.js';

const MAX_ATTEMPTS = 2;

function generation(n: number): Server {
  const server = new Server({ name: 'restarting', version: `${n}.0.0` });
  server.registerTool('which', {}, () => `generation ${n}`);
  return server;
}

describe('a legacy session across a server restart', () => {
  test('the GET stream outlives the outage; its 404 starts a new session; no warning', async () => {
    // Counts the GETs that found nobody listening (the outage the old code gave up on), and the GET
    // streams opened for a session other than the first.
    const unreachable = counter();
    const renewed = counter();
    let first: string | undefined;
    const fetch: FetchLike = async (url, init) => {
      if (init.method !== 'GET') return nodeFetch(url, init);
      try {
        const response = await nodeFetch(url, init);
        const session = init.headers['mcp-session-id'];
        if (response.status === 200 && first !== undefined && session !== first) renewed.fire();
        return response;
      } catch (error) {
        unreachable.fire();
        throw error;
      }
    };
    const handlerOptions = { retryMs: 10 };
    let running = await serve(createHttpHandler(generation(1), handlerOptions));
    const port = Number(new URL(running.url).port);
    const conn = await connectHttp(
      running.url,
      { version: 'legacy' },
      {
        fetch,
        rememberEra: false,
        reconnect: { initialDelayMs: 10, maxDelayMs: 50, maxAttempts: MAX_ATTEMPTS },
      },
    );
    try {
      first = conn.channel.sessionId;
      assert.ok(first, 'a legacy session');
      assert.deepEqual((await conn.client.callTool('which')).content, [
        { type: 'text', text: 'generation 1' },
      ]);

      await running.close();
      // Well past maxAttempts: the stream is still being tried, not given up.
      await unreachable.reached(MAX_ATTEMPTS * 3);
      const changed = new Promise<void>((resolve) => {
        conn.client.on('notifications/tools/list_changed', () => resolve());
      });
      const second = generation(2);
      running = await serve(createHttpHandler(second, handlerOptions), { port });

      // No request from the client: the GET's 404 alone renews the session and reopens the stream.
      await renewed.reached(1);
      assert.notEqual(conn.channel.sessionId, first);
      second.registerTool('later', {}, () => 'x');
      await changed;
      assert.deepEqual((await conn.client.callTool('which')).content, [
        { type: 'text', text: 'generation 2' },
      ]);
      assert.deepEqual(conn.warnings, []);
      conn.assertClean();
    } finally {
      await conn.close();
      await running.close();
    }
  });
});

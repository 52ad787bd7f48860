/**
 * A legacy server that floods the client with requests from inside one call (issue 15, finding 5):
 * the client answers every one, over a bounded number of kept-alive connections, instead of opening
 * a connection per answer (20k requests once left the client with 20k sockets, EMFILE and seconds of
 * event-loop lag). Issue 25: 3,000 pings still opened 2,582 connections, so the channel itself bounds
 * the answers it POSTs at once (`maxConcurrentPosts`, 16), whatever the fetch: the global one (no
 * bound of its own per origin) and nodeFetch (64) alike.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { nodeFetch } from '../../../src/node/fetch.js';
import type { FetchLike } from '../../../src/transports/http/client/fetch-like.js';
import { json, type RawRequest, startRaw } from '../../fixtures/http-raw.js';
import { connectHttp } from './helpers.js';

const FLOOD = 1500;
/** The channel's default `maxConcurrentPosts`. */
const POSTS = 16;
/**
 * Connections the answers may use: each of the 16 turns keeps one, and a turn passed on before the
 * fetch has freed its connection (it frees it a tick after the response ends; later under load) may
 * take a new one. What matters is that the count does not grow with the flood (2,582 for 3,000).
 */
const CONNECTIONS = 2 * POSTS;

const fetches: [string, FetchLike | undefined][] = [
  ['the global fetch', undefined],
  ['nodeFetch', nodeFetch],
];
for (const [fetchName, fetch] of fetches)
  test(`${FLOOD} server requests inside one call: every one answered, ${POSTS} answers at a time over at most ${CONNECTIONS} connections (${fetchName})`, async () => {
    let answered = 0;
    let stream: ServerResponse | undefined;
    let callId: unknown;
    const sockets = new Set<unknown>();
    // The session's GET stream has a pool of its own (session-streams.test.ts): POSTs are what a flood
    // multiplies, so their sockets are what is bounded.
    const posts = new Set<unknown>();
    const server = await startRaw((request: RawRequest, res: ServerResponse) => {
      sockets.add(request.socket);
      if (request.method === 'POST') posts.add(request.socket);
      const { body } = request;
      if (request.method !== 'POST') {
        res.writeHead(405).end();
      } else if (body?.method === 'initialize') {
        const result = {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'flood', version: '1' },
        };
        json(res, 200, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': 's-1' });
      } else if (body?.method === 'tools/call') {
        stream = res;
        callId = body.id;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < FLOOD; i++) {
          res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: `ping-${i}`, method: 'ping' })}\n\n`);
        }
      } else if (typeof body?.id === 'string' && body.id.startsWith('ping-')) {
        res.writeHead(202).end();
        if (++answered === FLOOD) {
          const result = { content: [{ type: 'text', text: `${answered} answered` }] };
          stream?.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result })}\n\n`);
        }
      } else {
        res.writeHead(202).end();
      }
    });
    let open = 0;
    let peak = 0;
    server.http.on('connection', (socket) => {
      peak = Math.max(peak, ++open);
      socket.on('close', () => open--);
    });
    const conn = await connectHttp(
      server.url,
      // Wide: 1,500 answers 16 at a time take seconds on a loaded machine.
      { version: 'legacy', timeoutMs: 150_000 },
      { ...(fetch ? { fetch } : {}), rememberEra: false },
    );
    try {
      const result = await conn.client.callTool('anything');
      assert.deepEqual(result.content, [{ type: 'text', text: `${FLOOD} answered` }]);
      // The answers' connections, plus the call's own POST and the session's GET stream.
      assert.ok(
        peak <= CONNECTIONS + 2,
        `at most ${CONNECTIONS} connections (+ the call, the GET) at once, saw ${peak}`,
      );
      assert.ok(posts.size <= CONNECTIONS + 1, `${posts.size} connections for ${FLOOD + 2} POSTs`);
      assert.ok(sockets.size <= CONNECTIONS + 2, `${sockets.size} connections in all`);
      conn.assertClean();
    } finally {
      await conn.close();
      await server.close();
    }
  });

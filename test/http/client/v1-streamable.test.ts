/**
 * Against the official v1 server over Streamable HTTP with stateful sessions (the 2025 shape): the
 * client falls back from the modern probe to `initialize`, keeps the session, opens the standalone
 * GET stream, resumes interrupted streams with Last-Event-ID, re-initializes an expired session
 * transparently, and DELETEs the session on close.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Params } from '../../../src/protocol/jsonrpc.js';
import {
  type SeenRequest,
  startV1Streamable,
  type V1StreamableServer,
} from '../../fixtures/http-official.js';
import { until } from '../../helpers/wait.js';
import { connectHttp, FETCHES } from './helpers.js';

const FAST_RECONNECT = { reconnect: { initialDelayMs: 10, maxDelayMs: 50 } };
const rpc = (seen: SeenRequest[], method: string) => seen.filter((s) => s.rpcMethod === method);

for (const [fetchName, fetch] of FETCHES) {
  for (const json of [false, true]) {
    describe(`v1 StreamableHTTPServerTransport, ${json ? 'JSON' : 'SSE'} answers (${fetchName})`, () => {
      let server: V1StreamableServer;
      before(async () => {
        server = await startV1Streamable({ json });
      });
      after(() => server.close());

      test('auto: the probe fails, initialize opens a session; everything after carries it', async () => {
        const conn = await connectHttp(server.url, {}, { fetch });
        const { client, channel } = conn;
        assert.equal(client.revision, '2025-11-25');
        assert.equal(client.serverInfo?.name, 'v1-fixture');
        const session = channel.sessionId;
        assert.ok(session && server.sessions.has(session));

        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'echo'));
        assert.deepEqual((await client.callTool('echo', { text: 'hi' })).content, [
          { type: 'text', text: 'hi' },
        ]);
        const read = await client.readResource('file:///readme.md');
        assert.equal((read.contents[0] as { text?: string }).text, '# hi');
        const prompt = await client.getPrompt('greet', { who: 'Ada' });
        assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello Ada' });

        const [probe] = rpc(server.seen, 'server/discover');
        assert.equal(probe?.headers['mcp-protocol-version'], '2026-07-28');
        const [init] = rpc(server.seen, 'initialize');
        assert.equal(init?.headers['mcp-session-id'], undefined);
        assert.equal(init?.headers['mcp-protocol-version'], undefined);
        const afterInit = server.seen.slice(server.seen.indexOf(init!) + 1);
        assert.ok(afterInit.length >= 5);
        for (const s of afterInit) {
          assert.equal(
            s.headers['mcp-session-id'],
            session,
            `${s.method} ${s.rpcMethod ?? ''} carries the session`,
          );
          assert.equal(s.headers['mcp-protocol-version'], '2025-11-25');
        }
        await until(() => afterInit.some((s) => s.method === 'GET'), 'the standalone GET stream');
        assert.equal(server.seen.find((s) => s.method === 'GET')?.headers.accept, 'text/event-stream');

        await conn.close();
        const deleted = server.seen.at(-1)!;
        assert.equal(deleted.method, 'DELETE');
        assert.equal(deleted.headers['mcp-session-id'], session);
        assert.equal(server.sessions.has(session), false);
        conn.assertClean();
      });
    });
  }

  describe(`v1 sessions (${fetchName})`, () => {
    let server: V1StreamableServer;
    before(async () => {
      server = await startV1Streamable({ eventStore: true, retryInterval: 10 });
    });
    after(() => server.close());

    test('the remembered era skips the probe on the next connection', async () => {
      const first = await connectHttp(server.url, {}, { fetch });
      assert.equal(first.channel.preferredEra, 'legacy');
      await first.close();
      const from = server.seen.length;
      const second = await connectHttp(server.url, {}, { fetch });
      assert.equal(second.client.revision, '2025-11-25');
      assert.equal(server.seen[from]?.rpcMethod, 'initialize', 'no server/discover this time');
      second.assertClean();
      await second.close();
    });

    test('an expired session (404) is re-initialized transparently and the call retried', async () => {
      const conn = await connectHttp(server.url, {}, { ...FAST_RECONNECT, fetch });
      const old = conn.channel.sessionId!;
      // connect() does not wait for `notifications/initialized` to arrive; expire the session after it.
      await until(
        () => rpc(server.seen, 'notifications/initialized').some((s) => s.headers['mcp-session-id'] === old),
        'notifications/initialized',
      );
      await server.expire(old);
      const from = server.seen.length;
      const result = await conn.client.callTool('echo', { text: 'again' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'again' }]);
      const fresh = conn.channel.sessionId!;
      assert.notEqual(fresh, old);
      assert.ok(server.sessions.has(fresh));
      const posts = server.seen.slice(from).filter((s) => s.method === 'POST');
      assert.deepEqual(
        posts.map((s) => [
          s.rpcMethod,
          s.headers['mcp-session-id'] === old ? 'old' : s.headers['mcp-session-id'] ? 'new' : 'none',
        ]),
        [
          ['tools/call', 'old'],
          ['initialize', 'none'],
          ['notifications/initialized', 'new'],
          ['tools/call', 'new'],
        ],
      );
      assert.equal(conn.client.revision, '2025-11-25');
      conn.assertClean();
      await conn.close();
    });

    test('cancelling a call POSTs notifications/cancelled and the server stops the tool', async () => {
      const conn = await connectHttp(server.url, {}, { fetch });
      const waits = server.waits.length;
      const aborts = server.aborts.length;
      const controller = new AbortController();
      const call = conn.client.callTool('wait', {}, { signal: controller.signal });
      await until(() => server.waits.length > waits, 'the tool to start');
      controller.abort('changed my mind');
      await assert.rejects(call, { code: 'ABORTED' });
      await until(() => server.aborts.length > aborts, 'the server to cancel the tool');
      const cancelled = rpc(server.seen, 'notifications/cancelled').at(-1);
      assert.equal(cancelled?.headers['mcp-session-id'], conn.channel.sessionId);
      conn.assertClean();
      await conn.close();
    });

    test('a POST stream the server closes early (SSE polling) resumes with Last-Event-ID', async () => {
      const conn = await connectHttp(server.url, {}, { ...FAST_RECONNECT, fetch });
      const logs: Params[] = [];
      conn.client.on('notifications/message', (params) => logs.push(params));
      const from = server.seen.length;
      const result = await conn.client.callTool('poll', {});
      assert.deepEqual(result.content, [{ type: 'text', text: 'after the reconnect' }]);
      assert.deepEqual(
        logs.map((p) => p.data),
        ['before'],
      );
      const resumed = server.seen.slice(from).find((s) => s.method === 'GET' && s.headers['last-event-id']);
      assert.ok(resumed, 'a GET with Last-Event-ID');
      assert.equal(resumed.headers['mcp-session-id'], conn.channel.sessionId);
      conn.assertClean();
      await conn.close();
    });

    test('the standalone GET stream reconnects with Last-Event-ID and gets what it missed', async () => {
      const conn = await connectHttp(server.url, {}, { ...FAST_RECONNECT, fetch });
      const logs: unknown[] = [];
      conn.client.on('notifications/message', (params) => logs.push(params.data));
      await until(
        () =>
          server.seen.some(
            (s) => s.method === 'GET' && s.headers['mcp-session-id'] === conn.channel.sessionId,
          ),
        'the standalone stream',
      );
      // The server only writes to a stream it has registered; give it the round trip to do so.
      await conn.client.callTool('echo', { text: 'sync' });
      await conn.client.callTool('drop-listen-stream', {});
      await until(() => logs.length === 2, 'both notifications');
      assert.deepEqual(logs, ['one', 'two']);
      const reconnect = server.seen.filter((s) => s.method === 'GET' && s.headers['last-event-id']).at(-1);
      assert.ok(reconnect, 'the GET stream reconnected with Last-Event-ID');
      conn.assertClean();
      await conn.close();
    });
  });
}

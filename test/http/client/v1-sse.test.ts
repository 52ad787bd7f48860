/**
 * Against the official v1 server on the 2024-11-05 HTTP+SSE transport: the streamable channel falls
 * back to it when neither the modern probe nor `initialize` finds Streamable HTTP, remembers that,
 * and goes straight to the event stream next time; the SSE channel speaks it directly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../../src/extensions/client.js';
import { SseClientChannel } from '../../../src/transports/http/client/sse-channel.js';
import { type RunningServer, startV1Sse } from '../../fixtures/http-official.js';
import { until } from '../../helpers/wait.js';
import { checkedChannel, connectHttp, FETCHES } from './helpers.js';

async function exercise(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'echo'));
  assert.deepEqual((await client.callTool('echo', { text: 'sse' })).content, [{ type: 'text', text: 'sse' }]);
  const read = await client.readResource('file:///readme.md');
  assert.equal((read.contents[0] as { text?: string }).text, '# hi');
  const prompt = await client.getPrompt('greet', { who: 'Ada' });
  assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello Ada' });
}

for (const [fetchName, fetch] of FETCHES) {
  describe(`v1 SSEServerTransport (2024-11-05 HTTP+SSE) (${fetchName})`, () => {
    let server: RunningServer;
    before(async () => {
      server = await startV1Sse();
    });
    after(() => server.close());

    test('auto: probe and initialize both get 404, the channel falls back to HTTP+SSE', async () => {
      const conn = await connectHttp(server.url, {}, { fetch });
      assert.equal(conn.client.revision, '2025-11-25');
      assert.match(conn.channel.label, /^HTTP\+SSE http:\/\/127\.0\.0\.1:\d+\/sse$/);
      await exercise(conn.client);
      assert.deepEqual(
        server.seen.slice(0, 4).map((s) => `${s.method} ${s.path.split('?')[0]}`),
        ['POST /sse', 'POST /sse', 'GET /sse', 'POST /messages'],
      );
      assert.equal(server.seen[3]?.rpcMethod, 'initialize');
      assert.equal(conn.channel.preferredEra, 'legacy');
      conn.assertClean();
      await conn.close();
    });

    test('the remembered verdict goes straight to the event stream', async () => {
      const from = server.seen.length;
      const conn = await connectHttp(server.url, {}, { fetch });
      assert.equal(conn.client.revision, '2025-11-25');
      assert.deepEqual(
        server.seen
          .slice(from, from + 2)
          .map((s) => `${s.method} ${s.path.split('?')[0]} ${s.rpcMethod ?? ''}`),
        ['GET /sse ', 'POST /messages initialize'],
      );
      await exercise(conn.client);
      conn.assertClean();
      await conn.close();
    });

    test('transport: "streamable" does not fall back to HTTP+SSE', async () => {
      await assert.rejects(
        connectHttp(server.url, {}, { transport: 'streamable', rememberEra: false, fetch }),
        /^SwitchboardError: The server refused initialize .*HTTP 404 Not Found from POST http:\/\/127\.0\.0\.1:\d+\/sse\. Nothing answers there.*neither server\/discover nor initialize/,
      );
    });

    test('transport: "sse" never POSTs to the stream URL', async () => {
      const from = server.seen.length;
      const conn = await connectHttp(server.url, {}, { transport: 'sse', rememberEra: false, fetch });
      await exercise(conn.client);
      assert.ok(server.seen.slice(from).every((s) => !(s.method === 'POST' && s.path === '/sse')));
      conn.assertClean();
      await conn.close();
    });

    test('SseClientChannel on its own; cancellation is POSTed; the server ending the stream closes it', async () => {
      const channel = new SseClientChannel(server.url, { fetch });
      assert.equal(channel.preferredEra, 'legacy');
      const checked = await checkedChannel(channel);
      const client = new Client({ name: 'sse-test', version: '1.0.0' });
      const from = server.seen.length;
      await client.connect(checked);
      assert.equal(server.seen[from]?.method, 'GET', 'no probe: the channel says legacy');
      await exercise(client);

      const waits = server.waits.length;
      const aborts = server.aborts.length;
      const controller = new AbortController();
      const call = client.callTool('wait', {}, { signal: controller.signal });
      await until(() => server.waits.length > waits, 'the tool to start');
      controller.abort();
      await assert.rejects(call, { code: 'ABORTED' });
      await until(() => server.aborts.length > aborts, 'the server to cancel the tool');
      checked.assertClean();

      await server.close();
      const disconnected = () => {
        try {
          return client.revision === undefined;
        } catch {
          return true;
        }
      };
      await until(disconnected, 'the client to see the stream end');
      await assert.rejects(client.callTool('echo', { text: 'x' }), { code: 'NOT_CONNECTED' });
      await client.close();
    });
  });
}

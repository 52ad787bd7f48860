/**
 * Against the official v2 server (`createMcpHandler` + `toNodeHandler`), which serves both eras on
 * one endpoint: the client negotiates modern by default and legacy when asked, and on the modern
 * path sends the standard headers (the server validates them, so a call that succeeds proves them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FetchLike, RequestInitLike } from '../../../src/transports/http/client/fetch-like.js';
import { type RunningServer, type SeenRequest, startV2 } from '../../fixtures/http-official.js';
import { until } from '../../helpers/wait.js';
import { connectHttp, FETCHES } from './helpers.js';

/** A fetch that records what the channel asked for. */
function recordingFetch(inner: FetchLike = globalThis.fetch): {
  fetch: FetchLike;
  sent: { url: string; init: RequestInitLike }[];
} {
  const sent: { url: string; init: RequestInitLike }[] = [];
  return {
    sent,
    fetch: (url, init) => {
      sent.push({ url, init });
      return inner(url, init);
    },
  };
}

const posts = (seen: SeenRequest[], method: string) =>
  seen.filter((s) => s.method === 'POST' && s.headers['mcp-method'] === method);

for (const [fetchName, fetch] of FETCHES) {
  for (const responseMode of ['auto', 'sse', 'json'] as const) {
    describe(`v2 createMcpHandler, responseMode ${responseMode} (${fetchName})`, () => {
      let server: RunningServer;
      before(async () => {
        server = await startV2({ responseMode });
      });
      after(() => server.close());

      test('auto negotiation lands on 2026-07-28; list, call, read, get', async () => {
        const conn = await connectHttp(server.url, {}, { fetch });
        const { client } = conn;
        assert.equal(client.revision, '2026-07-28');
        assert.equal(client.serverInfo?.name, 'v2-fixture');
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['echo', 'route', 'wait']);
        const echoed = await client.callTool('echo', { text: 'hello' });
        assert.deepEqual(echoed.content, [{ type: 'text', text: 'hello' }]);
        const read = await client.readResource('file:///readme.md');
        assert.equal((read.contents[0] as { text?: string }).text, '# hi');
        const prompt = await client.getPrompt('greet', { who: 'Ada' });
        assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello Ada' });
        assert.deepEqual(conn.warnings, []);
        conn.assertClean();
        await conn.close();
      });

      test('pinned to 2025-11-25: the stateless legacy leg answers', async () => {
        const conn = await connectHttp(server.url, { version: { pin: '2025-11-25' } }, { fetch });
        assert.equal(conn.client.revision, '2025-11-25');
        const echoed = await conn.client.callTool('echo', { text: 'legacy' });
        assert.deepEqual(echoed.content, [{ type: 'text', text: 'legacy' }]);
        conn.assertClean();
        await conn.close();
      });
    });
  }

  describe(`v2: modern request headers (${fetchName})`, () => {
    let server: RunningServer;
    before(async () => {
      server = await startV2();
    });
    after(() => server.close());

    test('MCP-Protocol-Version, Mcp-Method, Mcp-Name, Accept on every POST; no session', async () => {
      const conn = await connectHttp(server.url, {}, { fetch });
      const from = server.seen.length;
      await conn.client.callTool('echo', { text: 'x' });
      await conn.client.readResource('file:///readme.md');
      await conn.client.getPrompt('greet', { who: 'Ada' });
      const seen = server.seen.slice(from);
      assert.deepEqual(
        seen.map((s) => [s.method, s.headers['mcp-method'], s.headers['mcp-name']]),
        [
          ['POST', 'tools/call', 'echo'],
          ['POST', 'resources/read', 'file:///readme.md'],
          ['POST', 'prompts/get', 'greet'],
        ],
      );
      for (const s of seen) {
        assert.equal(s.headers['mcp-protocol-version'], '2026-07-28');
        assert.equal(s.headers.accept, 'application/json, text/event-stream');
        assert.equal(s.headers['content-type'], 'application/json');
        assert.equal(s.headers['mcp-session-id'], undefined);
      }
      const discover = posts(server.seen, 'server/discover')[0];
      assert.equal(discover?.headers['mcp-name'], undefined, 'server/discover has no Mcp-Name');
      conn.assertClean();
      await conn.close();
    });

    test('x-mcp-header arguments travel as Mcp-Param-*, Base64-encoded when not plain ASCII', async () => {
      const conn = await connectHttp(server.url, {}, { fetch });
      await conn.client.listTools();
      const result = await conn.client.callTool('route', { region: 'Zürich', tier: 3, query: 'q' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'Zürich/3: q' }]);
      const call = posts(server.seen, 'tools/call').at(-1)!;
      assert.equal(
        call.headers['mcp-param-region'],
        `=?base64?${Buffer.from('Zürich').toString('base64')}?=`,
      );
      assert.equal(call.headers['mcp-param-tier'], '3');
      assert.equal(call.headers['mcp-param-verbose'], undefined, 'absent argument, no header');
      await conn.client.callTool('route', { region: 'eu-west1', verbose: true, query: 'q' });
      const second = posts(server.seen, 'tools/call').at(-1)!;
      assert.equal(second.headers['mcp-param-region'], 'eu-west1');
      assert.equal(second.headers['mcp-param-verbose'], 'true');
      conn.assertClean();
      await conn.close();
    });

    test('a call before any tools/list: HeaderMismatch, the channel re-lists and retries', async () => {
      const conn = await connectHttp(server.url, {}, { fetch });
      const from = server.seen.length;
      const result = await conn.client.callTool('route', { region: 'us', query: 'q' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'us/-: q' }]);
      assert.deepEqual(
        server.seen.slice(from).map((s) => s.headers['mcp-method']),
        ['tools/call', 'tools/list', 'tools/call'],
      );
      assert.equal(server.seen.at(-1)?.headers['mcp-param-region'], 'us');
      conn.assertClean();
      await conn.close();
    });

    test('cancelling a call closes its response stream and POSTs nothing', async () => {
      const recorder = recordingFetch(fetch);
      const conn = await connectHttp(server.url, {}, { fetch: recorder.fetch });
      const aborts = server.aborts.length;
      const waits = server.waits.length;
      const controller = new AbortController();
      const call = conn.client.callTool('wait', {}, { signal: controller.signal });
      await until(() => server.waits.length > waits, 'the tool to start');
      controller.abort('enough');
      await assert.rejects(call, { code: 'ABORTED' });
      await until(() => server.aborts.length > aborts, 'the server to see the cancellation');
      assert.ok(
        recorder.sent.every((s) => !String(s.init.body).includes('notifications/cancelled')),
        'no notifications/cancelled is sent on modern HTTP',
      );
      conn.assertClean();
      await conn.close();
    });
  });
}

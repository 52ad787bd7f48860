/**
 * The official clients against a Switchboard HTTP server: SDK v1 (Streamable HTTP and the 2024-11-05
 * HTTP+SSE transport) and SDK v2 (legacy negotiation, a 2026-07-28 pin, and auto negotiation).
 * Every message crossing the wire is checked against its revision's schema (WireCheck's fetch).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client as ClientV2,
  SSEClientTransport as SSEClientTransportV2,
  StreamableHTTPClientTransport as StreamableV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '../../../src/extensions/server.js';
import { until } from '../../helpers/wait.js';
import { MODERN, makeServer, startServer, type TestServer } from './helpers.js';
import { WireCheck } from './wire.js';

/**
 * SDK v1 runs notification handlers a microtask later than response handlers, so a progress
 * notification that arrives in the same chunk as the response is dropped by the client (the call
 * already settled). The server sent both, in order (see the raw tests); accept what v1 kept.
 */
/**
 * Our server put both progress notifications on the wire before the result; the official v1 client
 * hands notifications to their handler a microtask after it settles the call, so the ones that
 * arrive in the same chunk as the response can be lost on its side: it sees a prefix, possibly empty.
 */
function assertV1Progress(progress: number[], wire: WireCheck): void {
  // The check reads each chunk before handing it to the client, so it has seen the whole answer.
  const onWire = wire.sent
    .filter(
      (m): m is { method: string; params: { progress: number } } =>
        (m as { method?: string }).method === 'notifications/progress',
    )
    .map((m) => m.params.progress);
  assert.deepEqual(onWire.slice(-2), [1, 2], 'the server sent progress 1 and 2');
  assert.deepEqual(progress, [1, 2].slice(0, progress.length));
}

const text = (result: unknown) => (result as { content: { type: string; text: string }[] }).content[0]?.text;

describe('official clients against a Switchboard server', () => {
  let sdk: Server;
  let server: TestServer;
  before(async () => {
    sdk = makeServer();
    server = await startServer(sdk);
  });
  after(() => server.close());

  test('SDK v1 over Streamable HTTP (2025-11-25): calls, progress, the GET stream, session end', async () => {
    const wire = await WireCheck.create('v1 streamable');
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: wire.fetch });
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(transport);
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.ok(transport.sessionId);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'echo'));
    assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'v1' } })), 'v1');
    const progress: number[] = [];
    const slow = await client.callTool({ name: 'progress', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.equal(text(slow), 'finished');
    assertV1Progress(progress, wire);
    const read = await client.readResource({ uri: 'file:///readme.md' });
    assert.equal((read.contents[0] as { text: string }).text, '# hi');

    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    // The client opens its GET stream after `initialized`; a change reaches it there.
    await until(() => {
      if (changed === 0)
        sdk.registerTool(`late-${Date.now()}-${Math.random()}`, { description: 'x' }, () => 'x');
      return changed > 0;
    }, 'the v1 client received tools/list_changed on its GET stream');

    await transport.terminateSession();
    await client.close();
    await wire.assertCleanWhenSettled();
  });

  test('SDK v1 over HTTP+SSE (2024-11-05 transport)', async () => {
    const wire = await WireCheck.create('v1 sse');
    const transport = new SSEClientTransport(new URL('/sse', server.origin), { fetch: wire.fetch });
    const client = new ClientV1({ name: 'v1-sse', version: '1.0.0' });
    await client.connect(transport);
    assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'over sse' } })), 'over sse');
    const progress: number[] = [];
    await client.callTool({ name: 'progress', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assertV1Progress(progress, wire);
    await client.close();
    await wire.assertCleanWhenSettled();
  });

  test('SDK v2, legacy negotiation over Streamable HTTP', async () => {
    const wire = await WireCheck.create('v2 legacy');
    const client = new ClientV2({ name: 'v2', version: '1.0.0' });
    await client.connect(new StreamableV2(new URL(server.url), { fetch: wire.fetch }));
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'route'));
    assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'v2' } })), 'v2');
    await client.close();
    await wire.assertCleanWhenSettled();
  });

  test('SDK v2 over HTTP+SSE', async () => {
    const wire = await WireCheck.create('v2 sse');
    const client = new ClientV2({ name: 'v2-sse', version: '1.0.0' });
    await client.connect(new SSEClientTransportV2(new URL('/sse', server.origin), { fetch: wire.fetch }));
    assert.equal(text(await client.callTool({ name: 'echo', arguments: { text: 'v2 sse' } })), 'v2 sse');
    await client.close();
    await wire.assertCleanWhenSettled();
  });

  for (const mode of [{ pin: MODERN }, 'auto'] as const) {
    test(`SDK v2 on 2026-07-28 (${typeof mode === 'string' ? mode : 'pinned'}): discover, headers, progress`, async () => {
      const wire = await WireCheck.create(`v2 modern ${JSON.stringify(mode)}`);
      const client = new ClientV2({ name: 'v2-modern', version: '1.0.0' }, { versionNegotiation: { mode } });
      const transport = new StreamableV2(new URL(server.url), { fetch: wire.fetch });
      await client.connect(transport);
      assert.equal(transport.sessionId, undefined, 'no session in the modern era');
      const { tools } = await client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'route'),
        'the x-mcp-header tool passes the client validation',
      );
      // The client mirrors x-mcp-header arguments in Mcp-Param-* headers; the server checks them.
      const routed = await client.callTool({
        name: 'route',
        arguments: { region: 'Zürich', shard: 7, dry: true, target: { zone: 'z' } },
      });
      assert.deepEqual(JSON.parse(text(routed)!), {
        region: 'Zürich',
        shard: 7,
        dry: true,
        target: { zone: 'z' },
      });
      const progress: number[] = [];
      const slow = await client.callTool(
        { name: 'progress', arguments: {} },
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.equal(text(slow), 'finished');
      assert.deepEqual(progress, [1, 2]);
      await client.close();
      await wire.assertCleanWhenSettled();
    });
  }
});

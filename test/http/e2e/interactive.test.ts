/**
 * Switchboard client ↔ Switchboard server over real loopback HTTP, in both eras: the interactive
 * features that cross a transport (input requests, progress, change notifications, graceful end of a
 * listen stream) work over Streamable HTTP as they do over stdio. Every frame the client sends and
 * receives is checked against its revision's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { Client } from '../../../src/extensions/client.js';
import { Server } from '../../../src/extensions/server.js';
import { nodeFetch } from '../../../src/node/fetch.js';
import { type RunningServer, serve } from '../../../src/node/serve.js';
import { loadSchemaCatalog } from '../../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../../src/testing/schema-checked-channel.js';
import { StreamableHttpClientChannel } from '../../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../../src/transports/http/server/handler.js';

function makeServer(): Server {
  const server = new Server({ name: 'e2e', version: '1.0.0' });
  server.registerTool(
    'greet',
    { description: 'Asks for a name, then greets', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'No name given.';
    },
  );
  server.registerTool(
    'count',
    { description: 'Reports progress', inputSchema: z.object({ n: z.number().int() }) },
    async ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) ctx.progress(i, n, `step ${i}`);
      return `counted to ${n}`;
    },
  );
  server.registerResource('note', 'notes://one', { mimeType: 'text/plain' }, () => 'one');
  return server;
}

const ERAS = [
  { label: '2026-07-28', version: { pin: '2026-07-28' } as const },
  { label: '2025-11-25 session', version: { pin: '2025-11-25' } as const },
];

for (const era of ERAS) {
  describe(`HTTP, ${era.label}`, () => {
    let server: Server;
    let running: RunningServer;
    before(async () => {
      server = makeServer();
      running = await serve(createHttpHandler(server));
    });
    after(() => running.close());

    async function connect(): Promise<{ client: Client; assertClean(): void }> {
      const catalog = await loadSchemaCatalog();
      const channel = new SchemaCheckedChannel(
        new StreamableHttpClientChannel(running.url, { fetch: nodeFetch, rememberEra: false }),
        { catalog, side: 'client', peer: 'assert' },
      );
      const client = new Client({ name: 'e2e-client', version: '1.0.0' }, { version: era.version });
      client.onElicitation(() => ({ action: 'accept', content: { name: 'Ada' } }));
      await client.connect(channel);
      return { client, assertClean: () => channel.assertClean() };
    }

    test('ctx.elicit reaches the client and the tool gets the answer', async () => {
      const { client, assertClean } = await connect();
      const result = await client.callTool('greet', {});
      assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
      assertClean();
      await client.close();
    });

    test('progress arrives in order on the request stream', async () => {
      const { client, assertClean } = await connect();
      const seen: number[] = [];
      const result = await client.callTool('count', { n: 3 }, { onprogress: (p) => seen.push(p.progress) });
      assert.deepEqual(result.content, [{ type: 'text', text: 'counted to 3' }]);
      assert.deepEqual(seen, [1, 2, 3]);
      assertClean();
      await client.close();
    });

    test('change notifications reach a listener; a tool added later shows up', async () => {
      const { client, assertClean } = await connect();
      let onChanged!: () => void;
      const changed = new Promise<void>((resolve) => {
        onChanged = resolve;
      });
      let onUpdated!: (uri: string) => void;
      const updated = new Promise<string>((resolve) => {
        onUpdated = resolve;
      });
      const subscription = client.listen(
        { toolsListChanged: true, resourceSubscriptions: ['notes://one'] },
        { onToolsListChanged: () => onChanged(), onResourceUpdated: (uri) => onUpdated(uri) },
      );
      await subscription.acknowledged;
      const handle = server.registerTool('late', { description: 'added later' }, () => 'late');
      await changed;
      server.notifyResourceUpdated('notes://one');
      assert.equal(await updated, 'notes://one');
      const { tools } = await client.listTools({ fresh: true });
      assert.ok(tools.some((t) => t.name === 'late'));
      handle.remove();
      await subscription.close();
      assertClean();
      await client.close();
    });
  });
}

test('HTTP 2026-07-28: closing the server ends a listen stream gracefully', async () => {
  const server = makeServer();
  const running = await serve(createHttpHandler(server));
  const client = new Client({ name: 'e2e-client', version: '1.0.0' }, { version: { pin: '2026-07-28' } });
  await client.connect(
    new StreamableHttpClientChannel(running.url, { fetch: nodeFetch, rememberEra: false }),
  );
  const subscription = client.listen({ toolsListChanged: true }, {});
  await subscription.acknowledged;
  await running.close();
  const end = await subscription.closed;
  assert.equal(end.reason, 'ended');
  await client.close();
});

test("HTTP 2026-07-28, responseMode 'json': a listen stream still streams (SSE), ordinary calls answer JSON", async () => {
  const server = makeServer();
  const running = await serve(createHttpHandler(server, { responseMode: 'json' }));
  const client = new Client({ name: 'e2e-client', version: '1.0.0' }, { version: { pin: '2026-07-28' } });
  await client.connect(
    new StreamableHttpClientChannel(running.url, { fetch: nodeFetch, rememberEra: false }),
  );
  let onChanged!: () => void;
  const changed = new Promise<void>((resolve) => {
    onChanged = resolve;
  });
  const subscription = client.listen({ toolsListChanged: true }, { onToolsListChanged: () => onChanged() });
  assert.deepEqual(await subscription.acknowledged, { toolsListChanged: true });
  server.registerTool('later', { description: 'added later' }, () => 'later');
  await changed;
  const seen: number[] = [];
  await client.callTool('count', { n: 2 }, { onprogress: (p) => seen.push(p.progress) });
  assert.deepEqual(seen, [], 'json mode: no stream for an ordinary call, so no progress');
  await subscription.close();
  await client.close();
  await running.close();
});

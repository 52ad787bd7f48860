/**
 * The gateway end to end: real upstreams (a Switchboard server and an official v1 SDK server over
 * stdio, the official v2 SDK over HTTP in the 2026-07-28 era), real downstream clients over loopback
 * HTTP (Switchboard's in both eras, the official v1 SDK's), each client in its own upstream sessions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../src/extensions/client.js';
import { parseGatewayConfig } from '../../src/gateway/config.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { type RunningServer, serve } from '../../src/node/serve.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { type RunningServer as OfficialServer, startV2 } from '../fixtures/http-official.js';
import { checkedChannel } from '../http/client/helpers.js';
import { assertExited } from '../interop/helpers/processes.js';

const UPSTREAM = fileURLToPath(new URL('../fixtures/gateway-upstream.js', import.meta.url));
const OFFICIAL_V1 = fileURLToPath(new URL('../fixtures/gateway-official-v1.js', import.meta.url));

const textOf = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
const pidOf = (result: CallToolResult): number => Number(/pid (\d+)/.exec(textOf(result))?.[1]);

export interface StartedGateway {
  gateway: Gateway;
  http: RunningServer;
  url: string;
  close(): Promise<void>;
}

export async function startGateway(
  servers: Record<string, unknown>,
  options: Record<string, unknown> = {},
): Promise<StartedGateway> {
  const loaded = parseGatewayConfig(
    'gateway-test.json',
    JSON.stringify({ mcpServers: servers, gateway: options }),
  );
  assert.ok(loaded.ok, loaded.ok ? '' : JSON.stringify(loaded.problems));
  const warnings: string[] = [];
  const gateway = new Gateway(loaded.config, {
    version: '1.0.0',
    logger: { warn: (message) => warnings.push(message), error: (error) => warnings.push(error.message) },
  });
  await gateway.start();
  const http = await serve(createHttpHandler(gateway.server), { port: 0 });
  return {
    gateway,
    http,
    url: http.url,
    async close() {
      await http.close();
      await gateway.close();
    },
  };
}

/** A Switchboard client over HTTP that answers elicitation with `name`; frames it sends are schema-checked. */
async function switchboardClient(url: string, name: string, era: 'auto' | 'legacy' = 'auto') {
  const asked: string[] = [];
  const client = new Client(
    { name: `client-${name}`, version: '1.0.0' },
    { version: era, probeTimeoutMs: 10_000 },
  );
  client.onElicitation((params) => {
    asked.push(params.message);
    return { action: 'accept', content: { name } };
  });
  const checked = await checkedChannel(
    new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false }),
  );
  await client.connect(checked);
  return { client, asked, assertClean: () => checked.assertClean() };
}

async function officialClient(url: string, name: string) {
  const asked: string[] = [];
  const client = new V1Client(
    { name: `official-${name}`, version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { name, ok: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

describe('gateway: two upstreams over stdio and one over HTTP, clients of both eras', () => {
  let v2: OfficialServer;
  let started: StartedGateway;

  before(async () => {
    v2 = await startV2();
    started = await startGateway({
      local: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'local' } },
      official: { command: process.execPath, args: [OFFICIAL_V1] },
      remote: { url: v2.url },
    });
  });
  after(async () => {
    await started.close();
    await v2.close();
  });

  test('lists every upstream under its namespace; a name with ":" is made valid and still calls', async () => {
    const { client, assertClean } = await switchboardClient(started.url, 'ada');
    assert.equal(client.revision, '2026-07-28');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['local__whoami', 'local__ask', 'official__confirm', 'remote__echo']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    const search = names.find((name) => name.startsWith('official__notes_search_'));
    assert.ok(search, names.join(', '));
    for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
    assert.equal(textOf(await client.callTool(search, { query: 'mcp' })), 'found mcp');
    assert.match(textOf(await client.callTool('remote__echo', { text: 'hi' })), /hi/);
    assert.match(textOf(await client.callTool('local__whoami')), /^local pid \d+$/);

    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'gateway://local/memo://one'));
    const read = await client.readResource('gateway://local/memo://one');
    assert.deepEqual(read.contents, [
      { uri: 'gateway://local/memo://one', mimeType: 'text/plain', text: 'memo one' },
    ]);
    const templated = await client.readResource('gateway://local/memo://seven');
    assert.equal((templated.contents[0] as { text: string }).text, 'memo seven');
    const prompt = await client.getPrompt('local__greet', { who: 'Ada' });
    assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'Hello Ada' });
    await assert.rejects(client.callTool('nobody__nothing'), /Unknown tool/);
    assertClean();
    await client.close();
  });

  test('two legacy clients at once: each gets its own upstream process and only its own elicitation', async () => {
    const ada = await switchboardClient(started.url, 'ada', 'legacy');
    const bob = await officialClient(started.url, 'bob');
    assert.equal(ada.client.era, 'legacy');
    const [adaAnswer, bobAnswer] = await Promise.all([
      ada.client.callTool('local__ask'),
      bob.client.callTool({ name: 'local__ask', arguments: {} }),
    ]);
    assert.equal(textOf(adaAnswer), 'hello ada');
    assert.equal(textOf(bobAnswer as CallToolResult), 'hello bob');
    assert.deepEqual(ada.asked, ['Your name?']);
    assert.deepEqual(bob.asked, ['Your name?']);
    // An official SDK upstream asks the same way.
    assert.equal(
      textOf((await bob.client.callTool({ name: 'official__confirm', arguments: {} })) as CallToolResult),
      'confirmed true',
    );
    assert.deepEqual(bob.asked, ['Your name?', 'Proceed?']);

    const adaPid = pidOf(await ada.client.callTool('local__whoami'));
    const bobPid = pidOf(
      (await bob.client.callTool({ name: 'local__whoami', arguments: {} })) as CallToolResult,
    );
    assert.notEqual(adaPid, bobPid, 'each client has its own upstream process');
    ada.assertClean();
    await ada.client.close();
    await bob.client.close();
    // Closing a downstream session closes its upstream sessions: their processes exit.
    await assertExited([adaPid], 'the closed session of ada');
  });

  test('a 2026-07-28 client answers an upstream elicitation through input_required', async () => {
    const carol = await switchboardClient(started.url, 'carol');
    assert.equal(carol.client.era, 'modern');
    assert.equal(textOf(await carol.client.callTool('local__ask')), 'hello carol');
    assert.deepEqual(carol.asked, ['Your name?']);
    carol.assertClean();
    await carol.client.close();
  });

  test("an upstream's list change reaches downstream clients as list_changed", async () => {
    const dan = await switchboardClient(started.url, 'dan', 'legacy');
    const changed = new Promise<void>((resolve) =>
      dan.client.on('notifications/tools/list_changed', () => resolve()),
    );
    // grow runs in dan's own session; the gateway's catalog session sees its own copy change only
    // when it grows there too, so ask the catalog through a 2026-07-28 client.
    const eve = await switchboardClient(started.url, 'eve');
    await eve.client.callTool('local__grow');
    await changed;
    const { tools } = await dan.client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'local__grown'));
    await dan.client.close();
    await eve.client.close();
  });
});

describe('gateway: faults', () => {
  test('an upstream that never starts is reported; the others serve; a crash mid-call is an error result, then it comes back', async () => {
    const started = await startGateway({
      broken: { command: process.execPath, args: [UPSTREAM, 'crash-on-start'] },
      local: { command: process.execPath, args: [UPSTREAM] },
    });
    try {
      const health = started.gateway.health();
      const broken = health.find((h) => h.name === 'broken');
      assert.ok(
        broken && (broken.state === 'failing' || broken.state === 'circuit-open'),
        JSON.stringify(health),
      );
      assert.match(broken.lastError ?? '', /cannot open the database/);
      assert.equal(health.find((h) => h.name === 'local')?.state, 'up');

      const { client } = await switchboardClient(started.url, 'fay', 'legacy');
      const first = pidOf(await client.callTool('local__whoami'));
      const crashed = await client.callTool('local__crash');
      assert.equal(crashed.isError, true);
      assert.match(textOf(crashed), /exited|closed/);
      await assertExited([first], 'the crashed upstream');
      // The next call opens a new session.
      const second = pidOf(await client.callTool('local__whoami'));
      assert.notEqual(second, first);
      await client.close();
      await assertExited([second], 'the session of a closed client');
    } finally {
      await started.close();
    }
  });

  test('close() stops every upstream process it started, the catalog and the per-client ones', async () => {
    const started = await startGateway({ local: { command: process.execPath, args: [UPSTREAM] } });
    const a = await switchboardClient(started.url, 'a', 'legacy');
    const b = await switchboardClient(started.url, 'b', 'legacy');
    const pids = [
      pidOf(await a.client.callTool('local__whoami')),
      pidOf(await b.client.callTool('local__whoami')),
    ];
    const modern = await switchboardClient(started.url, 'c');
    pids.push(pidOf(await modern.client.callTool('local__whoami')));
    assert.equal(new Set(pids).size, 3);
    await started.close();
    await assertExited(pids, 'gateway close');
    await Promise.allSettled([a.client.close(), b.client.close(), modern.client.close()]);
  });
});

/**
 * The gateway end to end: real upstreams (a Switchboard server and an official v1 SDK server over
 * stdio, the official v2 SDK over HTTP in the 2026-07-28 era), real downstream clients over loopback
 * HTTP (Switchboard's in both eras, the official v1 SDK's), each client in its own upstream sessions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { type RunningServer as OfficialServer, startV2 } from '../fixtures/http-official.js';
import { until } from '../helpers/wait.js';
import { assertExited } from '../interop/helpers/processes.js';
import {
  OFFICIAL_V1,
  pidOf,
  type StartedGateway,
  startGateway,
  switchboardClient,
  textOf,
  UPSTREAM,
} from './helpers.js';

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
    // The local upstream speaks 2026-07-28: its resultType and protocol _meta stay upstream.
    const raw = (await bob.client.callTool({ name: 'local__whoami', arguments: {} })) as Record<
      string,
      unknown
    >;
    assert.equal(raw.resultType, undefined);
    assert.equal(raw._meta, undefined);
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

  test('resource subscriptions of both eras follow the upstream while one holds them, then release it', async () => {
    const uri = 'gateway://local/memo://one';
    const fay = await switchboardClient(started.url, 'fay', 'legacy');
    const gus = await switchboardClient(started.url, 'gus');
    const follow = (client: typeof fay.client) => {
      let updated!: (uri: string) => void;
      const next = new Promise<string>((resolve) => {
        updated = resolve;
      });
      const subscription = client.listen({ resourceSubscriptions: [uri] }, { onResourceUpdated: updated });
      return { subscription, next };
    };
    const byFay = follow(fay.client); // resources/subscribe
    const byGus = follow(gus.client); // subscriptions/listen
    await byFay.subscription.acknowledged;
    await byGus.subscription.acknowledged;
    assert.deepEqual(started.gateway.following(), [{ uri, holders: 2 }]);
    // touch on the gateway's own session with the upstream (the 2026-07-28 client's), which follows memo://one
    await gus.client.callTool('local__touch');
    assert.equal(await byFay.next, uri);
    assert.equal(await byGus.next, uri);

    await byFay.subscription.close(); // resources/unsubscribe: released before its answer
    assert.deepEqual(started.gateway.following(), [{ uri, holders: 1 }]);
    await byGus.subscription.close(); // the listen request cancelled: released when it ends
    await until(() => started.gateway.following().length === 0, 'the upstream subscription released');
    fay.assertClean();
    gus.assertClean();
    await fay.client.close();
    await gus.client.close();
  });
});

describe('gateway: capabilities are what the upstreams offer', () => {
  test('an upstream with tools only: no prompts, resources or completions shown', async () => {
    const only = await startGateway({ official: { command: process.execPath, args: [OFFICIAL_V1] } });
    try {
      const { client, assertClean } = await switchboardClient(only.url, 'hal', 'legacy');
      const caps = client.serverCapabilities;
      assert.deepEqual(caps.tools, { listChanged: true });
      assert.equal(caps.prompts, undefined);
      assert.equal(caps.resources, undefined);
      assert.equal(caps.completions, undefined);
      assertClean();
      await client.close();
    } finally {
      await only.close();
    }
  });
});

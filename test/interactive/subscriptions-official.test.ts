/**
 * Subscriptions against the official SDKs, over real stdio:
 * - the official v1 and v2 clients → the Switchboard notifier server (fixtures/notifier-server.ts):
 *   `resources/subscribe`/`unsubscribe` and `list_changed` on legacy connections, the v2 client's
 *   `listen()` on 2026-07-28 (acknowledged filter, notifications, close, the graceful end on
 *   SIGTERM). What our server sends is schema-checked through a tap on the official transport;
 * - the Switchboard client → official v1 and v2 servers that send `list_changed` and
 *   `resources/updated` (fixtures/official-v*-notifier.ts), legacy and, with v2, 2026-07-28.
 *   What our client sends is schema-checked strictly.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { VersionNegotiation } from '../../src/client/client.js';
import { Client } from '../../src/extensions/client.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { OfficialClientTap } from '../interop/helpers/official-client-tap.js';
import { assertExited } from '../interop/helpers/processes.js';

trapUnhandledRejections();

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}.js`, import.meta.url));
const notifier = { command: process.execPath, args: [fixture('notifier-server')] };

const pids = new Set<number>();
after(() => assertExited(pids, 'subscription interop'));

const textOf = (result: any): string => result.content[0].text;

/** The parts of an official client (v1 or v2) these tests use, and what its handlers heard. */
interface Official {
  readonly heard: string[];
  call(name: string, args?: Record<string, unknown>): Promise<any>;
  subscribe(uri: string): Promise<unknown>;
  unsubscribe(uri: string): Promise<unknown>;
  readonly tap: OfficialClientTap;
  readonly errors: Error[];
  close(): Promise<void>;
}

async function officialV1(): Promise<Official> {
  const tap = new OfficialClientTap(await loadSchemaCatalog());
  const client = new V1Client({ name: 'official-v1-client', version: '1.0.0' });
  const heard: string[] = [];
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.push(`updated ${n.params.uri}`);
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard.push('tools');
  });
  await client.connect(tap.attach(new V1StdioClientTransport(notifier), 'v1 client'));
  for (const pid of tap.pids) pids.add(pid);
  return {
    heard,
    tap,
    errors,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    subscribe: (uri) => client.subscribeResource({ uri }),
    unsubscribe: (uri) => client.unsubscribeResource({ uri }),
    close: () => client.close(),
  };
}

async function officialV2(mode: 'legacy' | { pin: '2026-07-28' }) {
  const tap = new OfficialClientTap(await loadSchemaCatalog());
  const client = new V2Client(
    { name: 'official-v2-client', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  const heard: string[] = [];
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    heard.push(`updated ${n.params.uri}`);
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    heard.push('tools');
  });
  await client.connect(tap.attach(new V2StdioClientTransport(notifier), 'v2 client'));
  for (const pid of tap.pids) pids.add(pid);
  const official: Official = {
    heard,
    tap,
    errors,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    subscribe: (uri) => client.subscribeResource({ uri }),
    unsubscribe: (uri) => client.unsubscribeResource({ uri }),
    close: () => client.close(),
  };
  return { official, client };
}

const legacyClients: [string, () => Promise<Official>][] = [
  ['official v1 Client', officialV1],
  ['official v2 Client (legacy)', async () => (await officialV2('legacy')).official],
];

for (const [name, connect] of legacyClients) {
  describe(`${name} → Switchboard server: resources/subscribe and list_changed`, () => {
    test('subscribed updates arrive, unsubscribe stops them, list_changed arrives', async () => {
      const c = await connect();
      await c.subscribe('mem://a');
      assert.deepEqual(JSON.parse(textOf(await c.call('stats'))).subscribed, ['mem://a']);
      await c.call('touch', { uri: 'mem://a' });
      await c.call('touch', { uri: 'mem://b' });
      await c.call('add_tool', { name: 'extra' });
      await until(() => c.heard.length === 2, 'two notifications');
      assert.deepEqual(c.heard, ['updated mem://a', 'tools']);
      await c.unsubscribe('mem://a');
      assert.deepEqual(JSON.parse(textOf(await c.call('stats'))).subscribed, []);
      await c.call('touch', { uri: 'mem://a' });
      // list_changed as a fence: it is sent after anything the touch could have caused.
      await c.call('add_tool', { name: 'extra2' });
      await until(() => c.heard.length === 3, 'the fence');
      assert.deepEqual(c.heard, ['updated mem://a', 'tools', 'tools'], 'nothing after unsubscribe');
      c.tap.assertClean();
      assert.deepEqual(c.errors, []);
      await c.close();
    });
  });
}

describe('official v2 Client (2026-07-28) → Switchboard server: subscriptions/listen', () => {
  test('listen: the honoured filter, notifications, close() releases the stream', async () => {
    const { official, client } = await officialV2({ pin: '2026-07-28' });
    const sub = await client.listen({
      toolsListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: ['mem://a'],
    });
    // The server has no prompts: the acknowledgement leaves that out.
    assert.deepEqual(sub.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    assert.equal(JSON.parse(textOf(await official.call('stats'))).listens, 1);
    await official.call('touch', { uri: 'mem://a' });
    await official.call('touch', { uri: 'mem://b' });
    await official.call('add_tool', { name: 'extra' });
    await until(() => official.heard.length === 2, 'two notifications');
    assert.deepEqual(official.heard, ['updated mem://a', 'tools']);
    await sub.close();
    assert.equal(await sub.closed, 'local');
    assert.equal(JSON.parse(textOf(await official.call('stats'))).listens, 0, 'the cancellation reached us');
    await official.call('touch', { uri: 'mem://a' });
    assert.deepEqual(official.heard, ['updated mem://a', 'tools']);
    official.tap.assertClean();
    await official.close();
  });

  test('SIGTERM ends the stream gracefully, as the v2 client sees it', async () => {
    const { official, client } = await officialV2({ pin: '2026-07-28' });
    const sub = await client.listen({ toolsListChanged: true });
    const pid = [...official.tap.pids].at(-1)!;
    process.kill(pid, 'SIGTERM');
    assert.equal(await sub.closed, 'graceful');
    official.tap.assertClean();
    await official.close();
  });
});

// --- the Switchboard client against official servers -------------------------------------------

class Session {
  readonly checked: SchemaCheckedChannel[] = [];
  readonly errors: Error[] = [];
  readonly client: Client;
  constructor(
    private readonly server: string,
    version: VersionNegotiation,
  ) {
    this.client = new Client(
      { name: 'switchboard-listener', version: '1.0.0' },
      { version, probeTimeoutMs: 30_000, onerror: (e) => this.errors.push(e) },
    );
  }
  async connect(): Promise<void> {
    const catalog = await loadSchemaCatalog();
    await this.client.connect(() => {
      const stdio = new StdioClientChannel({
        command: process.execPath,
        args: [fixture(this.server)],
        stderr: 'ignore',
      });
      const checked = new SchemaCheckedChannel(stdio, { catalog, side: 'client', peer: 'report' });
      this.checked.push(checked);
      queueMicrotask(() => {
        if (stdio.pid !== undefined) pids.add(stdio.pid);
      });
      return checked;
    });
  }
  async close(): Promise<void> {
    await this.client.close();
    for (const channel of this.checked) channel.assertClean();
  }
}

const officialServers: [string, string, VersionNegotiation, 'legacy' | 'modern'][] = [
  ['official v1 server (legacy)', 'official-v1-notifier', 'auto', 'legacy'],
  ['official v2 server (legacy)', 'official-v2-notifier', { pin: '2025-11-25' }, 'legacy'],
  ['official v2 server (2026-07-28)', 'official-v2-notifier', 'auto', 'modern'],
];

for (const [name, server, version, era] of officialServers) {
  describe(`Switchboard client → ${name}`, () => {
    test('listen hears resources/updated and list_changed; close() stops them', async () => {
      const session = new Session(server, version);
      await session.connect();
      assert.equal(session.client.era, era);
      const heard: string[] = [];
      const sub = session.client.listen(
        { toolsListChanged: true, resourceSubscriptions: ['mem://a'] },
        {
          onToolsListChanged: () => heard.push('tools'),
          onResourceUpdated: (uri) => heard.push(`updated ${uri}`),
        },
      );
      // A second subscription, kept open: its list_changed is the fence of the last step.
      let fences = 0;
      const watch = session.client.listen({ toolsListChanged: true }, { onToolsListChanged: () => fences++ });
      assert.deepEqual(await sub.acknowledged, {
        toolsListChanged: true,
        resourceSubscriptions: ['mem://a'],
      });
      await watch.acknowledged;
      await session.client.callTool('touch', { uri: 'mem://a' });
      await session.client.callTool('add_tool', { name: 'extra' });
      await until(() => heard.length === 2 && fences === 1, 'the notifications');
      assert.deepEqual(heard.sort(), ['tools', 'updated mem://a']);
      await sub.close();
      assert.deepEqual(await sub.closed, { reason: 'closed' });
      if (server === 'official-v1-notifier') {
        assert.equal(textOf(await session.client.callTool('subscribed')), '[]', 'unsubscribed');
      }
      await session.client.callTool('touch', { uri: 'mem://a' });
      await session.client.callTool('add_tool', { name: 'extra2' });
      await until(() => fences === 2, 'the fence');
      assert.deepEqual(heard.sort(), ['tools', 'updated mem://a'], 'nothing after close');
      await watch.close();
      assert.deepEqual(session.errors, []);
      await session.close();
    });
  });
}

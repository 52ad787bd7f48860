/**
 * Legacy Streamable HTTP sessions shared between three handlers of one process through a
 * `MemorySessionStore` (the Redis one is proven with real nodes in test/redis/): a client whose every
 * request goes to the next handler initializes on one, calls on the others, follows a resource whose
 * change is made on another node, answers an elicitation through another node than the one that
 * asked, sets its log level on one node and gets logs by it on another; DELETE on one ends it on all.
 * Also: the record, its expiry and its messages, and the default (no store) unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../../src/extensions/client.js';
import { Server } from '../../../src/extensions/server.js';
import { MemoryChangeBus } from '../../../src/server/change-bus.js';
import type { FetchLike } from '../../../src/transports/http/client/fetch-like.js';
import { StreamableHttpClientChannel } from '../../../src/transports/http/client/streamable-channel.js';
import { MemoryEventStore } from '../../../src/transports/http/server/event-store.js';
import { createHttpHandler, type HttpHandler } from '../../../src/transports/http/server/handler.js';
import {
  MemorySessionStore,
  type SessionEnvelope,
  type SessionRecord,
} from '../../../src/transports/http/server/session-store.js';
import { trapUnhandledRejections } from '../../helpers/trap.js';
import { until } from '../../helpers/wait.js';

trapUnhandledRejections();

const URL_ = 'http://127.0.0.1/mcp';
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

interface Node {
  readonly name: string;
  readonly server: Server;
  readonly handler: HttpHandler;
}

function makeNode(
  name: string,
  bus: MemoryChangeBus,
  sessions: MemorySessionStore,
  events: MemoryEventStore,
): Node {
  const server = new Server({ name: `node-${name}`, version: '1.0.0' }, { changeBus: bus.member() });
  server.registerResource('app-config', 'config://app', {}, () => `served by ${name}`);
  server.registerTool('echo', { inputSchema: { type: 'object' } }, () => name);
  server.registerTool('touch', {}, () => {
    server.notifyResourceUpdated('config://app');
    return name;
  });
  server.registerTool('log', {}, async (_args, ctx) => {
    await ctx.log('debug', 'a debug line');
    await ctx.log('warning', `a warning from ${name}`);
    return name;
  });
  server.registerTool('pay', {}, async (_args, ctx) => {
    const who = await ctx.elicit({
      message: 'Payee?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${name} paid ${who.content?.name}`;
  });
  const handler = createHttpHandler(server, { sessionStore: sessions, eventStore: events });
  return { name, server, handler };
}

describe('legacy sessions shared between handlers (MemorySessionStore)', () => {
  const bus = new MemoryChangeBus();
  const sessions = new MemorySessionStore();
  const events = new MemoryEventStore();
  let nodes: Node[];
  /** Which node served each HTTP request, in order. */
  const route: string[] = [];
  let next = 0;
  /** initialize requests sent: one per client, none made again after a 404. */
  let initializes = 0;
  const roundRobin: FetchLike = (url, init) => {
    const node = nodes[next++ % nodes.length]!;
    route.push(`${init.method} ${node.name}`);
    if (init.body?.includes('"method":"initialize"')) initializes++;
    return node.handler.fetch(new Request(url, init as RequestInit));
  };

  before(() => {
    nodes = ['A', 'B', 'C'].map((name) => makeNode(name, bus, sessions, events));
  });
  after(async () => {
    for (const node of nodes) {
      await node.handler.close();
      await node.server.close();
    }
  });

  async function connect() {
    const client = new Client({ name: 'round-robin', version: '1.0.0' }, { version: 'legacy' });
    client.onElicitation(() => ({ action: 'accept', content: { name: 'Ada' } }));
    const channel = new StreamableHttpClientChannel(URL_, { fetch: roundRobin, rememberEra: false });
    await client.connect(channel);
    assert.equal(client.revision, '2025-11-25');
    return { client, channel };
  }

  test('calls, change notifications, elicitation and log levels work whichever node serves', async () => {
    const { client } = await connect();
    const servedBy = new Set<string>();
    for (let i = 0; i < 3; i++) servedBy.add(textOf(await client.callTool('echo', {})));
    assert.deepEqual([...servedBy].sort(), ['A', 'B', 'C']);
    assert.ok(
      route.some((step) => step.startsWith('GET')),
      `the client opened its GET stream (${route.join(', ')})`,
    );

    const updates: string[] = [];
    client.on('notifications/resources/updated', (params) => updates.push(String(params?.uri)));
    await client.request('resources/subscribe', { uri: 'config://app' });
    for (let i = 0; i < 3; i++) await client.callTool('touch', {});
    await until(() => updates.length >= 3, 'three updates, made on three nodes, on the GET stream');
    assert.deepEqual(updates, ['config://app', 'config://app', 'config://app']);

    const paid = new Set<string>();
    for (let i = 0; i < 3; i++) paid.add(textOf(await client.callTool('pay', {})));
    assert.deepEqual([...paid].sort(), ['A paid Ada', 'B paid Ada', 'C paid Ada']);

    const logs: string[] = [];
    client.onLog((message) => logs.push(String(message.data)));
    await client.setLoggingLevel('warning');
    for (let i = 0; i < 3; i++) await client.callTool('log', {});
    assert.deepEqual(logs.sort(), ['a warning from A', 'a warning from B', 'a warning from C']);
    assert.equal(initializes, 1, 'the session was never lost and made again');
    await client.close();
  });

  test('DELETE on one node ends the session on every node', async () => {
    const { client, channel } = await connect();
    for (let i = 0; i < 3; i++) await client.callTool('echo', {});
    const sessionId = channel.sessionId;
    assert.ok(sessionId);
    await client.close();
    for (const node of nodes) {
      const response = await node.handler.fetch(
        new Request(URL_, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        }),
      );
      assert.equal(response.status, 404, `node ${node.name}`);
    }
  });
});

describe('MemorySessionStore', () => {
  const record: SessionRecord = {
    id: 'r',
    revision: '2025-06-18',
    client: { info: { name: 'c', version: '1' }, capabilities: {} },
    capabilities: {},
    owner: null,
    initialized: false,
    logLevel: undefined,
    resourceSubscriptions: [],
  };

  test('keeps a record until it expires, refreshed by every use', async () => {
    const store = new MemorySessionStore({ ttlMs: 1 });
    await store.create('s', record);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(await store.load('s'), undefined);
    assert.equal(await store.touch('s'), false);
    const lasting = new MemorySessionStore();
    await lasting.create('s', record);
    assert.equal(await lasting.touch('s'), true);
    await lasting.update('s', { ...record, logLevel: 'error' }, 1);
    assert.equal((await lasting.load('s'))?.logLevel, 'error');
  });

  test('tells every subscriber, asynchronously, who sent what', async () => {
    const store = new MemorySessionStore();
    const heard: SessionEnvelope[] = [];
    store.subscribe((envelope) => heard.push(envelope));
    store.publish({ session: 's', from: 3, message: { type: 'held', node: 3 } });
    assert.equal(heard.length, 0, 'not inside the sender’s call');
    await store.create('s', record);
    await store.delete('s', 7);
    await until(() => heard.length === 2, 'both messages');
    assert.deepEqual(heard[1], { session: 's', from: 7, message: { type: 'end' } });
    assert.equal(await store.load('s'), undefined);
  });

  test('a node is alive from joining until it leaves', async () => {
    const store = new MemorySessionStore();
    assert.equal(await store.isAlive(5), false);
    const leave = store.join(5);
    assert.equal(await store.isAlive(5), true);
    leave();
    assert.equal(await store.isAlive(5), false);
  });

  test('refuses a ttl that is not a positive integer', () => {
    assert.throws(() => new MemorySessionStore({ ttlMs: 0 }), /ttlMs must be a positive integer/);
  });
});

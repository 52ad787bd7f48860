/**
 * `client.listen()`: one API over both eras, Switchboard client ↔ Switchboard server in memory with
 * strict schema checks on both sides; then the client against a scripted server for what a real
 * server should never do (and for a stream that breaks, as an HTTP one can).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { VersionNegotiation } from '../../src/client/client.js';
import type { Subscription } from '../../src/client/subscriptions.js';
import type { Channel } from '../../src/engine/channel.js';
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { META } from '../../src/protocol/meta.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import type { SubscriptionFilter } from '../../src/protocol/types.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { advance, controlClock, settleOnClock } from '../helpers/clock.js';
import { type Answer, discoverResult, fakeServer } from '../helpers/fake-server.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import type { Frame } from '../helpers/wire.js';

trapUnhandledRejections();

const SUB = META.subscriptionId;
const ERAS: [string, VersionNegotiation][] = [
  ['2026-07-28', { pin: '2026-07-28' }],
  ...LEGACY_REVISIONS.map((r): [string, VersionNegotiation] => [r, { pin: r }]),
];

function makeServer() {
  const server = new Server({ name: 'notifier', version: '1.0.0' });
  server.registerTool('t', {}, () => 'x');
  server.registerPrompt('p', {}, () => 'x');
  server.registerResource('a', 'mem://a', {}, () => 'a');
  server.registerResource('b', 'mem://b', {}, () => 'b');
  // What the server holds for this caller: its legacy subscriptions, and open listen streams.
  server.registerTool('stats', {}, (_args, ctx) =>
    JSON.stringify({
      subscribed: [...(ctx.link.legacy?.session.resourceSubscriptions ?? [])].sort(),
      listens: server.notifications.listens,
    }),
  );
  return server;
}

/** Records what a subscription's handlers hear. */
function recorder() {
  const heard: string[] = [];
  const acks: SubscriptionFilter[] = [];
  return {
    heard,
    acks,
    handlers: {
      onToolsListChanged: () => heard.push('tools'),
      onPromptsListChanged: () => heard.push('prompts'),
      onResourcesListChanged: () => heard.push('resources'),
      onResourceUpdated: (uri: string) => heard.push(`updated ${uri}`),
      onAcknowledged: (filter: SubscriptionFilter) => acks.push(filter),
    },
  };
}

/** A round trip after which every notification the server sent before it has been handled. */
const fence = (client: Client) => client.readResource('mem://a');
const stats = async (client: Client) =>
  JSON.parse(((await client.callTool('stats')).content[0] as { text: string }).text);

function changeEverything(server: Server) {
  server.registerTool('t2', {}, () => 'y');
  server.registerPrompt('p2', {}, () => 'y');
  server.registerResource('c', 'mem://c', {}, () => 'c');
  server.notifyResourceUpdated('mem://a');
  server.notifyResourceUpdated('mem://b');
}

for (const [label, version] of ERAS) {
  const modern = label === '2026-07-28';
  describe(`client.listen on ${label}`, () => {
    test('acknowledged with the agreed filter; each handler hears its type once; only followed URIs', async () => {
      const server = makeServer();
      const pair = await connectPair(server, { version });
      const rec = recorder();
      const sub = pair.client.listen(
        { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['mem://a'] },
        rec.handlers,
      );
      assert.deepEqual(await sub.acknowledged, {
        toolsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['mem://a'],
      });
      assert.equal(sub.state, 'open');
      assert.deepEqual(sub.filter, await sub.acknowledged);
      assert.equal(rec.acks.length, 1);
      changeEverything(server);
      await fence(pair.client);
      assert.deepEqual(rec.heard.sort(), ['resources', 'tools', 'updated mem://a']);
      pair.assertClean();
      await pair.close();
    });

    test('close() stops it: the server lets go, nothing more is heard', async () => {
      const server = makeServer();
      const pair = await connectPair(server, { version });
      const rec = recorder();
      const sub = pair.client.listen(
        { toolsListChanged: true, resourceSubscriptions: ['mem://a'] },
        rec.handlers,
      );
      await sub.acknowledged;
      assert.deepEqual(await stats(pair.client), {
        subscribed: modern ? [] : ['mem://a'],
        listens: modern ? 1 : 0,
      });
      await sub.close();
      assert.equal(sub.state, 'closed');
      assert.deepEqual(await sub.closed, { reason: 'closed' });
      assert.deepEqual(await stats(pair.client), { subscribed: [], listens: 0 });
      changeEverything(server);
      await fence(pair.client);
      assert.deepEqual(rec.heard, []);
      await sub.close();
      pair.assertClean();
      await pair.close();
    });

    test('two subscriptions: each hears once; they share the server side until the last lets go', async () => {
      const server = makeServer();
      const pair = await connectPair(server, { version });
      const one = recorder();
      const two = recorder();
      const a = pair.client.listen(
        { toolsListChanged: true, resourceSubscriptions: ['mem://a'] },
        one.handlers,
      );
      const b = pair.client.listen({ resourceSubscriptions: ['mem://a', 'mem://b'] }, two.handlers);
      await Promise.all([a.acknowledged, b.acknowledged]);
      server.registerTool('t2', {}, () => 'y');
      server.notifyResourceUpdated('mem://a');
      server.notifyResourceUpdated('mem://b');
      await fence(pair.client);
      assert.deepEqual(one.heard.sort(), ['tools', 'updated mem://a']);
      assert.deepEqual(two.heard.sort(), ['updated mem://a', 'updated mem://b']);
      await a.close();
      if (!modern) assert.deepEqual((await stats(pair.client)).subscribed, ['mem://a', 'mem://b']);
      server.notifyResourceUpdated('mem://a');
      await fence(pair.client);
      assert.deepEqual(two.heard.sort(), ['updated mem://a', 'updated mem://a', 'updated mem://b']);
      assert.equal(one.heard.length, 2);
      await b.close();
      assert.deepEqual(await stats(pair.client), { subscribed: [], listens: 0 });
      pair.assertClean();
      await pair.close();
    });

    test('one function for every notification', async () => {
      const server = makeServer();
      const pair = await connectPair(server, { version });
      const heard: string[] = [];
      const sub = pair.client.listen({ promptsListChanged: true }, (method) => heard.push(method));
      await sub.acknowledged;
      changeEverything(server);
      await fence(pair.client);
      assert.deepEqual(heard, ['notifications/prompts/list_changed']);
      await sub.close();
      pair.assertClean();
      await pair.close();
    });

    test('the acknowledgement leaves out what the server cannot deliver', async () => {
      const server = new Server({ name: 'tools-only', version: '1.0.0' });
      server.registerTool('t', {}, () => 'x');
      const pair = await connectPair(server, { version });
      const sub = pair.client.listen({
        toolsListChanged: true,
        promptsListChanged: true,
        resourceSubscriptions: ['mem://a'],
      });
      assert.deepEqual(await sub.acknowledged, { toolsListChanged: true });
      await sub.close();
      pair.assertClean();
      await pair.close();
    });

    test('client.close() ends every subscription', async () => {
      const server = makeServer();
      const pair = await connectPair(server, { version });
      const sub = pair.client.listen({ toolsListChanged: true });
      await sub.acknowledged;
      await pair.close();
      assert.deepEqual(await sub.closed, { reason: 'closed' });
      assert.equal(sub.state, 'closed');
    });

    test('a lost connection interrupts it; connect() again re-opens it', async () => {
      const server = makeServer();
      const catalog = await loadSchemaCatalog();
      const drops: Channel[] = [];
      const checked: SchemaCheckedChannel[] = [];
      const link = (): Channel => {
        const [clientEnd, serverEnd] = createLinkedChannels();
        drops.push(serverEnd);
        const serverSide = new SchemaCheckedChannel(serverEnd, { catalog, side: 'server', peer: 'assert' });
        const clientSide = new SchemaCheckedChannel(clientEnd, { catalog, side: 'client', peer: 'assert' });
        checked.push(serverSide, clientSide);
        server.connect(serverSide);
        return clientSide;
      };
      const client = new Client({ name: 'c', version: '1' }, { version });
      await client.connect(link());
      const rec = recorder();
      const sub = client.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://a'] }, rec.handlers);
      await sub.acknowledged;
      // The transport dies under both ends (no graceful close).
      await drops[0]!.close();
      await waitFor(() => sub.state === 'interrupted');
      server.notifyResourceUpdated('mem://a');
      await client.connect(link());
      await waitFor(() => sub.state === 'open');
      assert.equal(rec.acks.length, 2, 'acknowledged again on the new connection');
      assert.deepEqual(rec.heard, []);
      server.notifyResourceUpdated('mem://a');
      server.registerTool('t2', {}, () => 'y');
      await fence(client);
      assert.deepEqual(rec.heard.sort(), ['tools', 'updated mem://a']);
      assert.deepEqual(await stats(client), {
        subscribed: modern ? [] : ['mem://a'],
        listens: modern ? 1 : 0,
      });
      await client.close();
      for (const channel of checked) channel.assertClean();
    });
  });
}

describe('client.listen: 2026-07-28 specifics', () => {
  test('a graceful server close ends it (reason "ended"); it is not re-opened', async () => {
    const server = makeServer();
    const pair = await connectPair(server, { version: { pin: '2026-07-28' } });
    const sub = pair.client.listen({ toolsListChanged: true });
    await sub.acknowledged;
    await server.close();
    assert.deepEqual(await sub.closed, { reason: 'ended' });
    pair.assertClean();
  });

  test('the result cache follows list_changed heard on the stream', async () => {
    const server = makeServer();
    const pair = await connectPair(server, { version: { pin: '2026-07-28' } });
    const sub = pair.client.listen({ toolsListChanged: true });
    await sub.acknowledged;
    assert.equal((await pair.client.listTools()).tools.length, 2);
    server.registerTool('t2', {}, () => 'y');
    await fence(pair.client);
    assert.equal((await pair.client.listTools()).tools.length, 3, 'served fresh, not from the 60 s cache');
    await sub.close();
    server.registerTool('t3', {}, () => 'z');
    await fence(pair.client);
    assert.equal((await pair.client.listTools()).tools.length, 3, 'unsubscribed: the cached list stands');
    pair.assertClean();
    await pair.close();
  });

  test('a server that refuses the listen: acknowledged rejects, closed says refused', async () => {
    const server = makeServer();
    server.intercept('subscriptions/listen', () => {
      throw new ProtocolError(ErrorCode.InvalidRequest, 'no subscriptions here');
    });
    const pair = await connectPair(server, { version: { pin: '2026-07-28' } });
    const sub = pair.client.listen({ toolsListChanged: true });
    await assert.rejects(
      sub.acknowledged,
      (e) => e instanceof ProtocolError && e.message === 'no subscriptions here',
    );
    const end = await sub.closed;
    assert.equal(end.reason, 'refused');
    assert.ok(end.error instanceof ProtocolError);
    pair.assertClean();
    await pair.close();
  });
});

describe('client.listen: misuse', () => {
  test('before connect: NOT_CONNECTED; a bad filter: CONFIG', async () => {
    const client = new Client({ name: 'c', version: '1' });
    assert.throws(
      () => client.listen({}),
      (e) => e instanceof SwitchboardError && e.code === 'NOT_CONNECTED',
    );
    const pair = await connectPair(makeServer());
    for (const bad of [null, [], { resourceSubscriptions: 'mem://a' }, { resourceSubscriptions: [1] }]) {
      assert.throws(
        () => pair.client.listen(bad as never),
        (e) => e instanceof SwitchboardError && e.code === 'CONFIG',
      );
    }
    await pair.close();
  });

  test('a handler that throws is reported, and the others still run', async () => {
    const errors: Error[] = [];
    const server = makeServer();
    const pair = await connectPair(server, { onerror: (e) => errors.push(e) });
    const heard: string[] = [];
    const sub = pair.client.listen(
      { toolsListChanged: true },
      {
        onToolsListChanged: () => {
          throw new Error('handler bug');
        },
        onNotification: (method) => heard.push(method),
      },
    );
    await sub.acknowledged;
    server.registerTool('t2', {}, () => 'y');
    await fence(pair.client);
    assert.deepEqual(heard, ['notifications/tools/list_changed']);
    assert.deepEqual(
      errors.map((e) => e.message),
      ['handler bug'],
    );
    await pair.close();
  });
});

// --- against a scripted 2026-07-28 server --------------------------------------------------------

/** A scripted modern server: `onListen` decides what each listen request gets (nothing by default). */
async function scripted(onListen: (request: Frame, n: number) => Answer, options: ClientOptions = {}) {
  let listens = 0;
  const fake = fakeServer((request) => {
    if (request.method === 'server/discover') {
      return discoverResult({
        capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
      });
    }
    if (request.method === 'subscriptions/listen') return onListen(request, ++listens);
    return { result: { resultType: 'complete' } };
  });
  const errors: Error[] = [];
  const client = new Client(
    { name: 'c', version: '1' },
    { version: { pin: '2026-07-28' }, onerror: (e) => errors.push(e), ...options },
  );
  await client.connect(fake.channel);
  const tagged = (method: string, id: unknown, params: Record<string, unknown> = {}) =>
    fake.send({ jsonrpc: '2.0', method, params: { ...params, _meta: { [SUB]: id } } });
  const ack = (id: unknown, notifications: SubscriptionFilter) =>
    tagged('notifications/subscriptions/acknowledged', id, { notifications });
  const sent = () => fake.received.filter((f) => !('id' in f)).map((f) => [f.method, f.params?.requestId]);
  /** The client's first listen for tools, acknowledged by the server: the stream and its request id. */
  const acknowledgedListen = async () => {
    const sub = client.listen({ toolsListChanged: true });
    await waitFor(() => fake.requests('subscriptions/listen').length === 1);
    const id = fake.requests('subscriptions/listen')[0]!.id;
    ack(id, { toolsListChanged: true });
    await sub.acknowledged;
    return { sub, id };
  };
  return { fake, client, errors, tagged, ack, sent, acknowledgedListen };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await settle();
  assert.ok(condition(), 'the condition never became true');
}

describe('client.listen against a scripted server', () => {
  test('notifications are routed by subscription id; unrequested types and pre-ack ones are dropped and reported', async () => {
    const s = await scripted(() => undefined);
    const one = recorder();
    const two = recorder();
    const a = s.client.listen({ toolsListChanged: true }, one.handlers);
    const b = s.client.listen({ toolsListChanged: true }, two.handlers);
    await waitFor(() => s.fake.requests('subscriptions/listen').length === 2);
    const [idA, idB] = s.fake.requests('subscriptions/listen').map((r) => r.id);
    s.tagged('notifications/tools/list_changed', idA);
    s.ack(idA, { toolsListChanged: true });
    await a.acknowledged;
    s.tagged('notifications/tools/list_changed', idA);
    s.tagged('notifications/prompts/list_changed', idA);
    s.ack(idB, { toolsListChanged: true });
    await b.acknowledged;
    await settle();
    assert.deepEqual(one.heard, ['tools']);
    assert.deepEqual(two.heard, [], 'another stream');
    assert.equal(s.errors.length, 2);
    assert.match(s.errors[0]!.message, /before acknowledging it/);
    assert.match(s.errors[1]!.message, /prompts\/list_changed.*did not ask for it/);
    await s.client.close();
  });

  test('close() cancels the listen request by its id', async () => {
    const s = await scripted(() => undefined);
    const { sub, id } = await s.acknowledgedListen();
    await sub.close();
    await settle();
    assert.deepEqual(s.sent().slice(-1), [['notifications/cancelled', id]]);
    s.tagged('notifications/tools/list_changed', id);
    await s.client.close();
  });

  test('a server-sent notifications/cancelled ends it, and the client sends nothing back', async () => {
    const s = await scripted(() => undefined);
    const { sub, id } = await s.acknowledgedListen();
    s.fake.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    assert.deepEqual(await sub.closed, { reason: 'ended' });
    await settle();
    assert.deepEqual(s.sent(), [], 'no cancellation of a stream the server ended');
    await s.client.close();
  });

  test('the closing result ends it gracefully; it is not re-opened', async () => {
    const s = await scripted(() => undefined);
    const { sub, id } = await s.acknowledgedListen();
    s.fake.send({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [SUB]: id } } });
    assert.deepEqual(await sub.closed, { reason: 'ended' });
    await settle();
    assert.equal(s.fake.requests('subscriptions/listen').length, 1);
    await s.client.close();
  });

  test('an acknowledged stream that fails (a broken HTTP stream) is re-opened at once', async () => {
    const s = await scripted((request, n) => {
      s.ack(request.id, { toolsListChanged: true });
      // The first stream breaks after its acknowledgement: what an HTTP channel reports.
      return n === 1 ? { error: { code: ErrorCode.InternalError, message: 'stream broke' } } : undefined;
    });
    const rec = recorder();
    const sub = s.client.listen({ toolsListChanged: true }, rec.handlers);
    await waitFor(() => rec.acks.length === 2);
    const [first, second] = s.fake.requests('subscriptions/listen').map((r) => r.id);
    assert.notEqual(first, second, 'a new request, with a new id');
    assert.equal(sub.state, 'open');
    s.tagged('notifications/tools/list_changed', first);
    s.tagged('notifications/tools/list_changed', second);
    await settle();
    assert.deepEqual(rec.heard, ['tools'], 'only the live stream counts');
    await s.client.close();
  });

  test('no acknowledgement within the timeout: refused with TIMEOUT, and the request is cancelled', async (t) => {
    const s = await scripted(() => undefined, { timeoutMs: 50 });
    controlClock(t);
    const sub = s.client.listen({ toolsListChanged: true });
    const outcome = await settleOnClock(t, sub.acknowledged);
    assert.ok(outcome.elapsedMs >= 50, `refused after ${outcome.elapsedMs} ms`);
    await assert.rejects(sub.acknowledged, (e) => e instanceof SwitchboardError && e.code === 'TIMEOUT');
    assert.equal((await sub.closed).reason, 'refused');
    const id = s.fake.requests('subscriptions/listen')[0]!.id;
    await advance(t, 10); // setTimeout is virtual here
    assert.deepEqual(s.sent(), [['notifications/cancelled', id]]);
    await s.client.close();
  });

  test('the listen request itself has no timeout (controlled clock)', async (t) => {
    const s = await scripted(() => undefined, { timeoutMs: 50 });
    const sub: Subscription = s.client.listen({ toolsListChanged: true });
    await waitFor(() => s.fake.requests('subscriptions/listen').length === 1);
    s.ack(s.fake.requests('subscriptions/listen')[0]!.id, {});
    await sub.acknowledged;
    controlClock(t);
    await advance(t, 60_000, 500); // 1200 times the request timeout
    assert.equal(sub.state, 'open');
    assert.deepEqual(s.sent(), []);
    await s.client.close();
  });
});

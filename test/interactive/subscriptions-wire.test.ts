/**
 * Change notifications on the wire, both eras, against the Switchboard server in memory (every
 * frame the server sends checked against its revision's schema):
 * - 2026-07-28 `subscriptions/listen`: the acknowledgement comes first and names the agreed subset;
 *   then only the requested types, each tagged with the listen request's id; nothing after a
 *   cancellation; a graceful server close answers the request and (on this shared channel) sends
 *   `notifications/cancelled` for it;
 * - legacy `resources/subscribe` / `resources/unsubscribe` and the `list_changed` notifications;
 * - one publication reaches every subscriber of either era exactly once.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server, type ServerOptions } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { META } from '../../src/protocol/meta.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { envelope, type Frame, openWire, type Wire } from '../helpers/wire.js';

trapUnhandledRejections();

const INFO = { name: 'notifier', version: '1.0.0' };
const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const UPDATED = 'notifications/resources/updated';
const ACK = 'notifications/subscriptions/acknowledged';
const SUB = META.subscriptionId;

function makeServer(options: ServerOptions = {}) {
  const server = new Server(INFO, options);
  server.registerTool('t', {}, () => 'x');
  server.registerPrompt('p', {}, () => 'x');
  server.registerResource('a', 'mem://a', {}, () => 'a');
  server.registerResource('b', 'mem://b', {}, () => 'b');
  return server;
}

const listen = (wire: Wire, id: string | number, notifications: Record<string, unknown>) =>
  wire.send({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { _meta: envelope(), notifications },
  });

let fences = 0;
/**
 * Every frame the server sends before answering a fence request sent now: `ping` on a legacy
 * connection, `server/discover` on a modern one (2026-07-28 has no ping).
 */
async function framesUntilFence(wire: Wire, era: 'legacy' | 'modern' = 'modern'): Promise<Frame[]> {
  const id = `fence-${++fences}`;
  wire.send(
    era === 'legacy'
      ? { jsonrpc: '2.0', id, method: 'ping' }
      : { jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: envelope() } },
  );
  const frames: Frame[] = [];
  for (;;) {
    const frame = await wire.next();
    if (frame?.id === id) return frames;
    frames.push(frame);
  }
}

/** Opens a listen stream and returns its acknowledgement (the first frame naming it). */
async function open(wire: Wire, id: string | number, notifications: Record<string, unknown>) {
  listen(wire, id, notifications);
  const ack = await wire.next();
  assert.equal(ack.method, ACK, `the first frame must be the acknowledgement, got ${JSON.stringify(ack)}`);
  assert.equal(ack.params._meta[SUB], id);
  assert.equal('id' in ack, false);
  return ack.params.notifications;
}

/** Triggers one change of each kind, plus updates of a followed and an unfollowed URI. */
function changeEverything(server: Server) {
  server.registerTool('t2', {}, () => 'y');
  server.registerPrompt('p2', {}, () => 'y');
  server.registerResource('c', 'mem://c', {}, () => 'c');
  server.notifyResourceUpdated('mem://a');
  server.notifyResourceUpdated('mem://b');
}

const summary = (frames: Frame[]) =>
  frames.map((f) =>
    [f.method, f.params?.uri, f.params?._meta?.[SUB]].filter((x) => x !== undefined).join(' '),
  );

describe('subscriptions/listen (2026-07-28)', () => {
  test('the acknowledgement comes first; then only what was asked, each tagged with the subscription id', async () => {
    const server = makeServer();
    const wire = await openWire(server, { check: true });
    const agreed = await open(wire, 'L1', { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    assert.deepEqual(agreed, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    changeEverything(server);
    const frames = await framesUntilFence(wire);
    assert.deepEqual(summary(frames).sort(), [`${UPDATED} mem://a L1`, `${TOOLS} L1`]);
    for (const frame of frames) assert.deepEqual(Object.keys(frame).sort(), ['jsonrpc', 'method', 'params']);
    wire.assertClean();
    await wire.close();
  });

  test('numeric ids tag the stream verbatim; every type can be asked for', async () => {
    const server = makeServer();
    const wire = await openWire(server, { check: true });
    const all = {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['mem://a', 'mem://b', 'mem://a'],
    };
    const agreed = await open(wire, 7, all);
    assert.deepEqual(agreed, { ...all, resourceSubscriptions: ['mem://a', 'mem://b'] }, 'duplicates folded');
    changeEverything(server);
    assert.deepEqual(summary(await framesUntilFence(wire)).sort(), [
      `${PROMPTS} 7`,
      `${RESOURCES} 7`,
      `${UPDATED} mem://a 7`,
      `${UPDATED} mem://b 7`,
      `${TOOLS} 7`,
    ]);
    wire.assertClean();
    await wire.close();
  });

  test('the acknowledgement names only what the server can deliver', async () => {
    const cases: [string, ServerOptions, (s: Server) => void, Record<string, unknown>][] = [
      ['only tools registered', {}, (s) => s.registerTool('t', {}, () => 'x'), { toolsListChanged: true }],
      [
        'tools without listChanged',
        { capabilities: { tools: { listChanged: false } } },
        (s) => {
          s.registerTool('t', {}, () => 'x');
          s.registerPrompt('p', {}, () => 'x');
        },
        { promptsListChanged: true },
      ],
      [
        'resources without subscribe',
        { capabilities: { resources: { listChanged: true } } },
        (s) => s.registerResource('a', 'mem://a', {}, () => 'a'),
        { resourcesListChanged: true },
      ],
    ];
    for (const [what, options, setup, expected] of cases) {
      const server = new Server(INFO, options);
      setup(server);
      const wire = await openWire(server, { check: true });
      const agreed = await open(wire, 1, {
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ['mem://a'],
        'com.example/unknown': true,
      });
      assert.deepEqual(agreed, expected, what);
      wire.assertClean();
      await wire.close();
    }
  });

  test('an empty filter is acknowledged empty and hears nothing', async () => {
    const server = makeServer();
    const wire = await openWire(server, { check: true });
    assert.deepEqual(await open(wire, 1, {}), {});
    changeEverything(server);
    assert.deepEqual(await framesUntilFence(wire), []);
    await wire.close();
  });

  test('notifications/cancelled ends the stream: no response, nothing more', async () => {
    const server = makeServer();
    const wire = await openWire(server, { check: true });
    await open(wire, 'L1', { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    assert.equal(server.notifications.listens, 1);
    wire.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'L1', reason: 'done' },
    });
    await framesUntilFence(wire);
    assert.equal(server.notifications.listens, 0);
    changeEverything(server);
    assert.deepEqual(await framesUntilFence(wire), [], 'nothing after the cancellation, not even a response');
    wire.assertClean();
    await wire.close();
  });

  test('server.close() answers each stream with its closing result, then cancels it; nothing after', async () => {
    const server = makeServer();
    const wire = await openWire(server, { check: true });
    await open(wire, 'L1', { toolsListChanged: true });
    await open(wire, 2, { resourceSubscriptions: ['mem://a'] });
    await server.close();
    const frames: Frame[] = [];
    for (let i = 0; i < 4; i++) frames.push(await wire.next());
    const results = frames.filter((f) => 'result' in f);
    assert.deepEqual(
      results.map((f) => f.id),
      ['L1', 2],
    );
    for (const result of results) {
      assert.deepEqual(result.result, {
        resultType: 'complete',
        _meta: { [SUB]: result.id, [META.serverInfo]: INFO },
      });
      const cancelled = frames.findIndex(
        (f) => f.method === 'notifications/cancelled' && f.params.requestId === result.id,
      );
      assert.ok(
        cancelled > frames.indexOf(result),
        `notifications/cancelled for ${result.id} follows its result`,
      );
      assert.equal(typeof frames[cancelled]!.params.reason, 'string');
    }
    assert.equal(server.notifications.listens, 0);
    changeEverything(server);
    await wire.connection.closed;
    wire.assertClean();
  });

  test('closing one connection ends only its streams, gracefully', async () => {
    const server = makeServer();
    const a = await openWire(server, { check: true });
    const b = await openWire(server, { check: true });
    await open(a, 'A', { toolsListChanged: true });
    await open(b, 'B', { toolsListChanged: true });
    await a.connection.close();
    assert.equal((await a.next()).id, 'A');
    assert.deepEqual((await a.next()).params, {
      requestId: 'A',
      reason: 'The server ended the subscription.',
    });
    server.registerTool('t2', {}, () => 'y');
    assert.deepEqual(summary(await framesUntilFence(b)), [`${TOOLS} B`]);
    a.assertClean();
    b.assertClean();
    await b.close();
  });

  test('a stream whose connection dropped is forgotten', async () => {
    const server = makeServer();
    const wire = await openWire(server);
    await open(wire, 1, { toolsListChanged: true });
    await wire.close();
    await wire.connection.closed;
    assert.equal(server.notifications.listens, 0);
    assert.equal(server.notifications.size, 0);
  });

  test('refusals: bad filter, too many URIs, the server-wide limit, a legacy-only connection', async () => {
    const server = makeServer({ maxSubscriptions: 2 });
    const wire = await openWire(server, { check: true });
    const errorOf = async (id: number, notifications: unknown) => {
      wire.send({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { _meta: envelope(), ...(notifications === undefined ? {} : { notifications }) },
      });
      const frame = await wire.next();
      assert.equal(frame.id, id);
      return frame.error;
    };
    assert.equal((await errorOf(1, undefined)).code, ErrorCode.InvalidParams);
    assert.equal((await errorOf(2, { resourceSubscriptions: 'mem://a' })).code, ErrorCode.InvalidParams);
    const many = Array.from({ length: 1001 }, (_, i) => `mem://${i}`);
    const tooMany = await errorOf(3, { resourceSubscriptions: many });
    assert.equal(tooMany.code, ErrorCode.InvalidParams);
    assert.match(tooMany.message, /at most 1000/);
    await open(wire, 4, {});
    await open(wire, 5, {});
    const full = await errorOf(6, {});
    assert.equal(full.code, ErrorCode.InternalError);
    assert.match(full.message, /limit; cancel one/);
    wire.assertClean();
    await wire.close();

    assert.throws(
      () => new Server(INFO, { maxSubscriptions: 0 }),
      /maxSubscriptions must be a positive integer/,
    );

    const legacy = await openWire(makeServer(), { check: true });
    await legacy.initialize('2025-11-25');
    const response = await legacy.request('subscriptions/listen', { notifications: {} });
    assert.equal(response.error.code, ErrorCode.MethodNotFound);
    legacy.assertClean();
    await legacy.close();
  });

  test('middleware sees listen requests and may refuse them', async () => {
    const server = makeServer();
    server.intercept('subscriptions/listen', () => {
      throw new ProtocolError(ErrorCode.InvalidRequest, 'no subscriptions for you');
    });
    const wire = await openWire(server, { check: true });
    listen(wire, 1, { toolsListChanged: true });
    const frame = await wire.next();
    assert.equal(frame.error.message, 'no subscriptions for you');
    assert.equal(server.notifications.listens, 0);
    await wire.close();
  });
});

for (const revision of LEGACY_REVISIONS) {
  describe(`resources/subscribe on ${revision}`, () => {
    test('initialize advertises subscribe; updates reach subscribed URIs only, until unsubscribed', async () => {
      const server = makeServer();
      const wire = await openWire(server, { check: true });
      const init = await wire.initialize(revision);
      assert.deepEqual(init.capabilities.resources, { subscribe: true, listChanged: true });
      assert.deepEqual((await wire.request('resources/subscribe', { uri: 'mem://a' })).result, {});
      assert.deepEqual(
        (await wire.request('resources/subscribe', { uri: 'mem://a' })).result,
        {},
        'idempotent',
      );
      assert.deepEqual((await wire.request('resources/subscribe', { uri: 'mem://later' })).result, {});
      server.notifyResourceUpdated('mem://a');
      server.notifyResourceUpdated('mem://b');
      server.notifyResourceUpdated('mem://later');
      assert.deepEqual(
        (await framesUntilFence(wire, 'legacy')).map((f) => [f.method, f.params]),
        [
          [UPDATED, { uri: 'mem://a' }],
          [UPDATED, { uri: 'mem://later' }],
        ],
      );
      assert.deepEqual((await wire.request('resources/unsubscribe', { uri: 'mem://a' })).result, {});
      assert.deepEqual((await wire.request('resources/unsubscribe', { uri: 'mem://never' })).result, {});
      server.notifyResourceUpdated('mem://a');
      assert.deepEqual(await framesUntilFence(wire, 'legacy'), [], 'unsubscribed');
      wire.assertClean();
      await wire.close();
    });

    test('list_changed of every kind, once per tick, as initialize advertised', async () => {
      const server = makeServer();
      const wire = await openWire(server, { check: true });
      await wire.initialize(revision);
      changeEverything(server);
      server.registerTool('t3', {}, () => 'z');
      assert.deepEqual(summary(await framesUntilFence(wire, 'legacy')).sort(), [PROMPTS, RESOURCES, TOOLS]);
      wire.assertClean();
      await wire.close();
    });

    test('a bad URI is refused; a connection may follow at most 1000', async () => {
      const server = makeServer();
      const wire = await openWire(server, { check: true });
      await wire.initialize(revision);
      assert.equal((await wire.request('resources/subscribe', {})).error.code, ErrorCode.InvalidParams);
      for (let i = 0; i < 1000; i++) await wire.request('resources/subscribe', { uri: `mem://${i}` });
      const refused = await wire.request('resources/subscribe', { uri: 'mem://one-more' });
      assert.equal(refused.error.code, ErrorCode.InvalidParams);
      assert.match(refused.error.message, /resources\/unsubscribe from one first/);
      wire.assertClean();
      await wire.close();
    });
  });
}

describe('one hub, both eras', () => {
  test('each subscriber hears each change exactly once, and only what it asked for', async () => {
    const server = makeServer();
    const subscribed = await openWire(server, { check: true });
    await subscribed.initialize('2025-06-18');
    await subscribed.request('resources/subscribe', { uri: 'mem://a' });
    const plain = await openWire(server, { check: true });
    await plain.initialize('2024-11-05');
    const twoStreams = await openWire(server, { check: true });
    await open(twoStreams, 'S1', { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    await open(twoStreams, 'S2', { resourceSubscriptions: ['mem://a', 'mem://b'] });
    const silent = await openWire(server, { check: true });
    await silent.modern('tools/list');

    server.registerTool('t2', {}, () => 'y');
    server.notifyResourceUpdated('mem://a');

    assert.deepEqual(summary(await framesUntilFence(subscribed, 'legacy')).sort(), [
      `${UPDATED} mem://a`,
      TOOLS,
    ]);
    assert.deepEqual(summary(await framesUntilFence(plain, 'legacy')), [TOOLS]);
    assert.deepEqual(summary(await framesUntilFence(twoStreams)).sort(), [
      `${UPDATED} mem://a S1`,
      `${UPDATED} mem://a S2`,
      `${TOOLS} S1`,
    ]);
    assert.deepEqual(await framesUntilFence(silent), [], 'modern clients hear only through listen');
    for (const wire of [subscribed, plain, twoStreams, silent]) {
      wire.assertClean();
      await wire.close();
    }
  });

  test('notifyResourceUpdated wants an absolute URI', () => {
    const server = makeServer();
    assert.throws(() => server.notifyResourceUpdated('no-scheme'), /Invalid resource URI/);
  });
});

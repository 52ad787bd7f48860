import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Channel, ChannelSink } from '../../src/engine/channel.js';
import { ProtocolError } from '../../src/protocol/errors.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import type { SchemaCatalog } from '../../src/testing/schema-catalog.js';
import {
  SchemaCheckedChannel,
  type SchemaCheckedChannelOptions,
} from '../../src/testing/schema-checked-channel.js';
import type { SchemaViolation } from '../../src/testing/schema-violation.js';
import { SchemaViolationError } from '../../src/testing/schema-violation.js';
import {
  clientRequest,
  error,
  initialize,
  initializeResult,
  listBody,
  modernMeta,
  notification,
  request,
  result,
  richTool,
} from './wire-messages.js';

/** A channel whose far end is the test: it records what is sent and delivers what the test says. */
class ScriptedChannel implements Channel {
  readonly sent: string[] = [];
  readonly label = 'scripted';
  sink: ChannelSink | undefined;
  closed = false;
  start(sink: ChannelSink): void {
    this.sink = sink;
  }
  send(frame: string): void {
    this.sent.push(frame);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
  deliver(value: unknown): void {
    this.sink!.message(value);
  }
}

let catalog: SchemaCatalog;
before(async () => {
  catalog = await loadSchemaCatalog();
});

function tap(options: Omit<SchemaCheckedChannelOptions, 'catalog'>) {
  const inner = new ScriptedChannel();
  const channel = new SchemaCheckedChannel(inner, { catalog, ...options });
  const received: unknown[] = [];
  channel.start({
    message: (value) => received.push(value),
    malformed: (e) => received.push(e),
    closed: () => received.push('closed'),
  });
  return { inner, channel, received, send: (m: unknown) => channel.send(JSON.stringify(m)) };
}

const summary = (found: readonly SchemaViolation[]) =>
  found.map((v) => `${v.revision} ${v.sender} ${v.pointer}`);

describe('learning the revision', () => {
  test('legacy: the initialize result settles the revision for the rest of the connection', () => {
    const { channel, inner, received, send } = tap({ side: 'server' });
    assert.equal(channel.revision, undefined);
    inner.deliver(initialize('2025-06-18'));
    assert.equal(channel.revision, '2025-06-18', 'the requested revision until the server answers');
    send(initializeResult('2025-03-26'));
    assert.equal(channel.revision, '2025-03-26');
    inner.deliver(notification('notifications/initialized'));
    inner.deliver(request(2, 'tools/list'));
    // `title` exists in 2025-06-18, which the client asked for, but not in 2025-03-26, which was agreed.
    send(result(2, { tools: [{ ...richTool, title: 'Add' }] }));
    assert.deepEqual(summary(channel.violations()), ['2025-03-26 server /result/tools/0/title']);
    assert.throws(() => channel.assertClean(), SchemaViolationError);
    assert.equal(inner.sent.length, 2, 'frames are forwarded whatever the verdict');
    assert.equal(received.length, 3, 'inbound frames reach the sink');
  });

  test('legacy: a client-side channel learns the same way, and checks the server as the peer', () => {
    const { channel, inner, send } = tap({ side: 'client' });
    send(initialize('2024-11-05'));
    const answer = initializeResult('2024-11-05');
    (answer.result as { serverInfo: Record<string, unknown> }).serverInfo.title = 'Fancy';
    inner.deliver(answer);
    assert.equal(channel.revision, '2024-11-05');
    assert.deepEqual(summary(channel.violations()), ['2024-11-05 server /result/serverInfo/title']);
    channel.assertClean(); // the peer's violations are only reported by default
  });

  test('an unknown or modern requested version is checked as the latest legacy revision until answered', () => {
    for (const asked of ['2099-01-01', '2026-07-28']) {
      const { channel, inner, send } = tap({ side: 'server' });
      const init = initialize('2025-11-25');
      inner.deliver({ ...init, params: { ...(init.params as object), protocolVersion: asked } });
      assert.equal(channel.revision, '2025-11-25', asked);
      send(initializeResult('2025-06-18'));
      assert.equal(channel.revision, '2025-06-18', asked);
      assert.deepEqual(channel.violations(), [], asked);
    }
  });

  test('modern: each request names its revision, and its response is checked under it', () => {
    const { channel, inner, send } = tap({ side: 'server' });
    inner.deliver(clientRequest('2026-07-28', 1, 'tools/list'));
    assert.equal(channel.revision, '2026-07-28');
    send(result(1, { resultType: 'complete', cacheScope: 'private', tools: [richTool] }));
    send(notification('notifications/tools/list_changed'));
    inner.deliver(clientRequest('2026-07-28', 2, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }));
    send(result(2, { resultType: 'complete', content: [{ type: 'text', text: '3' }] }));
    assert.deepEqual(summary(channel.violations()), ['2026-07-28 server /result/ttlMs']);
  });

  test('modern: listen-stream notifications follow their subscription', () => {
    const { channel, inner, send } = tap({ side: 'server' });
    inner.deliver(
      request('sub-1', 'subscriptions/listen', {
        _meta: modernMeta(),
        notifications: { toolsListChanged: true },
      }),
    );
    const meta = { 'io.modelcontextprotocol/subscriptionId': 'sub-1' };
    send(
      notification('notifications/subscriptions/acknowledged', {
        notifications: { toolsListChanged: true },
        _meta: meta,
      }),
    );
    send(notification('notifications/tools/list_changed', { _meta: meta }));
    send(result('sub-1', { resultType: 'complete', _meta: meta }));
    assert.deepEqual(channel.violations(), []);
    channel.assertClean();
  });

  test('modern: a cancellation is checked under the revision of the request it names', () => {
    const { channel, inner, send } = tap({ side: 'server', peer: 'assert' });
    inner.deliver(
      request(1, 'subscriptions/listen', { _meta: modernMeta(), notifications: { toolsListChanged: true } }),
    );
    // On stdio the server ends a listen stream by cancelling the client's request.
    send(notification('notifications/cancelled', { requestId: 1, reason: 'shutting down' }));
    inner.deliver(notification('notifications/cancelled', { requestId: 1 }));
    assert.deepEqual(channel.violations(), []);
  });

  test('a pinned revision overrides what the traffic says', () => {
    const { channel, inner, send } = tap({ side: 'server', revision: '2024-11-05' });
    inner.deliver(initialize('2025-06-18'));
    send(initializeResult('2025-06-18'));
    assert.equal(channel.revision, '2024-11-05');
    assert.deepEqual(channel.violations(), []);
    inner.deliver(request(2, 'tools/list'));
    send(result(2, { tools: [{ ...richTool, title: 'Add' }] }));
    assert.deepEqual(summary(channel.violations()), ['2024-11-05 server /result/tools/0/title']);
  });

  test('a message whose revision cannot be told is a violation; an error response is checked anyway', () => {
    const { channel, inner, send } = tap({ side: 'server' });
    inner.deliver(request(1, 'tools/list'));
    send(error(1, -32600, 'Send initialize first'));
    send(error(null, -32700, 'Parse error'));
    const found = channel.violations();
    assert.deepEqual(
      found.map((v) => [v.sender, v.keyword, v.revision]),
      [['client', 'revision', 'unknown']],
    );
    channel.assertClean();
  });
});

describe('our frames and the peer', () => {
  test('peer: assert makes assertClean fail on the peer, ignore drops its violations', () => {
    const asserting = tap({ side: 'server', peer: 'assert' });
    asserting.inner.deliver({ ...initialize('2024-11-05'), bogus: 1 });
    assert.throws(() => asserting.channel.assertClean(), /bogus/);
    const ignoring = tap({ side: 'server', peer: 'ignore' });
    ignoring.inner.deliver({ ...initialize('2024-11-05'), bogus: 1 });
    assert.deepEqual(ignoring.channel.violations(), []);
    // Ignored peer frames are still seen: our response is paired with the request.
    ignoring.send(initializeResult('2024-11-05'));
    assert.deepEqual(ignoring.channel.violations(), []);
  });

  test('onViolation sees each violation as it happens', () => {
    const seen: string[] = [];
    const { send } = tap({ side: 'client', label: 'conn-1', onViolation: (v) => seen.push(v.message) });
    send(initialize('2024-11-05'));
    send({ ...notification('notifications/initialized'), id: undefined, extra: 1 });
    assert.equal(seen.length, 1);
    assert.match(
      seen[0]!,
      /^2024-11-05 client → InitializedNotification \(notifications\/initialized\) \[conn-1\]: \/extra/,
    );
  });

  test('batches on 2025-03-26 are checked element by element', () => {
    const { channel, inner, send } = tap({ side: 'server' });
    inner.deliver(initialize('2025-03-26'));
    send(initializeResult('2025-03-26'));
    inner.deliver([request(2, 'tools/list'), request(3, 'ping')]);
    send([result(2, { tools: [richTool] }), result(3, {})]);
    assert.deepEqual(channel.violations(), []);
    inner.deliver([request(4, 'tools/list')]);
    send([result(4, { tools: [{ ...richTool, icons: [] }] })]);
    assert.deepEqual(summary(channel.violations()), ['2025-03-26 server /0/result/tools/0/icons']);
  });

  test('a frame that is not JSON is a violation and still goes out', () => {
    const { channel, inner } = tap({ side: 'server' });
    channel.send('{not json');
    assert.deepEqual(
      channel.violations().map((v) => v.keyword),
      ['json'],
    );
    assert.deepEqual(inner.sent, ['{not json']);
  });

  test('malformed frames, close and the label pass through', async () => {
    const { channel, inner, received } = tap({ side: 'server' });
    assert.equal(channel.label, 'scripted');
    const bad = new ProtocolError(-32700, 'Parse error');
    inner.sink!.malformed(bad);
    inner.sink!.closed();
    await channel.close();
    assert.deepEqual(received, [bad, 'closed']);
    assert.equal(inner.closed, true);
  });

  test('a clean legacy session on every revision stays clean', () => {
    for (const revision of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const) {
      const { channel, inner, send } = tap({ side: 'server', peer: 'assert' });
      inner.deliver(initialize(revision));
      send(initializeResult(revision));
      inner.deliver(notification('notifications/initialized'));
      inner.deliver(request(2, 'tools/list', { _meta: { progressToken: 7 } }));
      send(notification('notifications/progress', { progressToken: 7, progress: 1 }));
      send(result(2, listBody(revision, { tools: [richTool] })));
      send(request('srv-1', 'roots/list'));
      inner.deliver(result('srv-1', { roots: [{ uri: 'file:///work', name: 'work' }] }));
      send(notification('notifications/message', { level: 'info', data: { any: 'thing' } }));
      channel.assertClean();
    }
  });
});

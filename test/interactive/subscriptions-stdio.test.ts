/**
 * Subscriptions over real stdio: a Switchboard client and a Switchboard server in a child process
 * (fixtures/notifier-server.ts), every frame schema-checked on the client's side. Proves the listen
 * stream on a shared channel (notifications routed by subscription id), `notifications/cancelled`
 * in both directions, the graceful close on SIGTERM (closing result, then the cancellation), and
 * re-opening after the child died and `connect()` ran again. Every child must be gone at the end.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { VersionNegotiation } from '../../src/client/client.js';
import type { Channel, ChannelSink, FrameInfo } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { META } from '../../src/protocol/meta.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { assertExited } from '../interop/helpers/processes.js';

trapUnhandledRejections();

const SERVER = fileURLToPath(new URL('./fixtures/notifier-server.js', import.meta.url));
const SUB = META.subscriptionId;

/** Records every frame crossing a channel, both ways, decoded. */
class Tap implements Channel {
  readonly frames: { dir: 'in' | 'out'; message: any }[] = [];
  constructor(private readonly inner: Channel) {}
  get label() {
    return this.inner.label;
  }
  start(sink: ChannelSink): void {
    this.inner.start({
      message: (value, extra) => {
        this.frames.push({ dir: 'in', message: value });
        sink.message(value, extra);
      },
      malformed: (error) => sink.malformed(error),
      closed: (error) => sink.closed(error),
    });
  }
  send(frame: string, info?: FrameInfo): void {
    this.frames.push({ dir: 'out', message: JSON.parse(frame) });
    this.inner.send(frame, info);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const pids = new Set<number>();
after(() => assertExited(pids, 'notifier server'));

class Session {
  readonly stdio: StdioClientChannel[] = [];
  readonly checked: SchemaCheckedChannel[] = [];
  readonly taps: Tap[] = [];
  readonly errors: Error[] = [];
  readonly client: Client;
  constructor(version: VersionNegotiation) {
    this.client = new Client(
      { name: 'stdio-listener', version: '1.0.0' },
      { version, onerror: (e) => this.errors.push(e) },
    );
  }
  async connect(): Promise<void> {
    const catalog = await loadSchemaCatalog();
    const stdio = new StdioClientChannel({ command: process.execPath, args: [SERVER], stderr: 'inherit' });
    const tap = new Tap(stdio);
    const checked = new SchemaCheckedChannel(tap, { catalog, side: 'client', peer: 'assert' });
    this.stdio.push(stdio);
    this.taps.push(tap);
    this.checked.push(checked);
    await this.client.connect(checked);
    pids.add(stdio.pid!);
  }
  get pid(): number {
    return this.stdio.at(-1)!.pid!;
  }
  call(name: string, args: Record<string, unknown> = {}) {
    return this.client.callTool(name, args);
  }
  async stats() {
    return JSON.parse(((await this.call('stats')).content[0] as { text: string }).text);
  }
  async close(): Promise<void> {
    await this.client.close();
    for (const channel of this.checked) channel.assertClean();
  }
}

describe('subscriptions over stdio (2026-07-28)', () => {
  test('listen: acknowledged, notified, and cancelled by close()', async () => {
    const session = new Session({ pin: '2026-07-28' });
    await session.connect();
    const heard: string[] = [];
    const sub = session.client.listen(
      { toolsListChanged: true, resourceSubscriptions: ['mem://a'] },
      {
        onToolsListChanged: () => heard.push('tools'),
        onResourceUpdated: (uri) => heard.push(uri),
      },
    );
    assert.deepEqual(await sub.acknowledged, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    await session.call('touch', { uri: 'mem://a' });
    await session.call('touch', { uri: 'mem://b' });
    await session.call('add_tool', { name: 'extra' });
    await until(() => heard.length === 2, 'two notifications');
    assert.deepEqual(heard, ['mem://a', 'tools']);

    const frames = session.taps[0]!.frames;
    const listen = frames.find(
      (f) => f.dir === 'out' && f.message.method === 'subscriptions/listen',
    )!.message;
    const stream = frames.filter((f) => f.dir === 'in' && f.message.params?._meta?.[SUB] !== undefined);
    assert.equal(
      stream[0]!.message.method,
      'notifications/subscriptions/acknowledged',
      'the ack comes first',
    );
    assert.ok(stream.every((f) => f.message.params._meta[SUB] === listen.id));

    await sub.close();
    const cancel = frames.find((f) => f.dir === 'out' && f.message.method === 'notifications/cancelled');
    assert.deepEqual(cancel?.message.params.requestId, listen.id);
    assert.equal((await session.stats()).listens, 0, 'the server let go');
    await session.call('touch', { uri: 'mem://a' });
    assert.deepEqual(heard, ['mem://a', 'tools'], 'nothing after close');
    assert.equal(
      frames.some((f) => f.dir === 'in' && f.message.id === listen.id),
      false,
      'a cancelled request gets no response',
    );
    assert.deepEqual(session.errors, []);
    await session.close();
  });

  test('SIGTERM: the server answers the listen with its closing result, then cancels it', async () => {
    const session = new Session({ pin: '2026-07-28' });
    await session.connect();
    const sub = session.client.listen({ toolsListChanged: true });
    await sub.acknowledged;
    process.kill(session.pid, 'SIGTERM');
    assert.deepEqual(await sub.closed, { reason: 'ended' });
    await until(() => session.stdio[0]!.exitStatus !== undefined, 'the server exited');
    assert.deepEqual(session.stdio[0]!.exitStatus, { code: 0, signal: null }, 'a clean exit');

    const frames = session.taps[0]!.frames;
    const id = frames.find((f) => f.dir === 'out' && f.message.method === 'subscriptions/listen')!.message.id;
    const inbound = frames.filter((f) => f.dir === 'in').map((f) => f.message);
    const result = inbound.findIndex((m) => m.id === id);
    const cancelled = inbound.findIndex(
      (m) => m.method === 'notifications/cancelled' && m.params.requestId === id,
    );
    assert.ok(result >= 0, 'the listen request is answered');
    assert.deepEqual(inbound[result].result.resultType, 'complete');
    assert.deepEqual(inbound[result].result._meta[SUB], id);
    assert.ok(cancelled > result, 'then notifications/cancelled names it');
    assert.equal(inbound.length - 1, cancelled, 'and nothing follows');
    await session.close();
  });
});

for (const [era, version] of [
  ['2026-07-28', { pin: '2026-07-28' }],
  ['2025-11-25', { pin: '2025-11-25' }],
] as const) {
  describe(`re-opening over stdio (${era})`, () => {
    test('the child dies: the subscription waits, and re-opens when connect() runs again', async () => {
      const session = new Session(version);
      await session.connect();
      const heard: string[] = [];
      let acks = 0;
      const sub = session.client.listen(
        { resourceSubscriptions: ['mem://a'] },
        { onResourceUpdated: (uri) => heard.push(uri), onAcknowledged: () => acks++ },
      );
      await sub.acknowledged;
      process.kill(session.pid, 'SIGKILL');
      await until(() => sub.state === 'interrupted', 'the subscription interrupted');
      await session.connect();
      await until(() => sub.state === 'open', 'the subscription open again');
      assert.equal(acks, 2);
      assert.deepEqual(await session.stats(), {
        subscribed: era === '2026-07-28' ? [] : ['mem://a'],
        listens: era === '2026-07-28' ? 1 : 0,
      });
      await session.call('touch', { uri: 'mem://a' });
      await until(() => heard.length === 1, 'a notification');
      assert.deepEqual(heard, ['mem://a']);
      await sub.close();
      assert.deepEqual((await session.stats()).subscribed, []);
      await session.close();
    });
  });
}

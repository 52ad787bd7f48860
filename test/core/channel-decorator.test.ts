/**
 * Every channel decorator forwards every member of the channel it wraps (issue 25): the optional
 * ones change how the engine treats a channel (a legacy HTTP session's `canPush`, SEP-1699's
 * `closeRequestStream`, a shared session's `firstRequestId`), so a decorator that drops one
 * silently changes behaviour underneath the console, the schema check or the gateway.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TracingChannel } from '../../src/console/tracing-channel.js';
import type { Channel, ChannelSink } from '../../src/engine/channel.js';
import { ChannelDecorator } from '../../src/engine/channel-decorator.js';
import { CloseWatch } from '../../src/gateway/upstream.js';
import type { RequestId } from '../../src/protocol/jsonrpc.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';

/** A channel with every optional member, each answering something a default would not. */
class FullChannel implements Channel {
  readonly label = 'full channel';
  readonly preferredEra = 'legacy' as const;
  readonly firstRequestId = 7001;
  readonly closedStreams: RequestId[] = [];
  sink: ChannelSink | undefined;
  start(sink: ChannelSink): void {
    this.sink = sink;
  }
  send(): void {}
  async close(): Promise<void> {}
  closeRequestStream(id: RequestId): boolean {
    this.closedStreams.push(id);
    return true;
  }
  canPush(): boolean {
    return false;
  }
}

/** A channel with none of them. */
const bare = (): Channel => ({ start() {}, send() {}, close: async () => {} });

const catalog = await loadSchemaCatalog();
const decorators: Record<string, (inner: Channel) => Channel> = {
  ChannelDecorator: (inner) => new ChannelDecorator(inner),
  'the console tracing channel': (inner) => new TracingChannel(inner, () => {}),
  SchemaCheckedChannel: (inner) => new SchemaCheckedChannel(inner, { catalog, side: 'client' }),
  "the gateway's close watch": (inner) => new CloseWatch(inner, () => {}),
};

describe('channel decorators', () => {
  for (const [name, decorate] of Object.entries(decorators)) {
    test(`${name} forwards every optional member of Channel`, () => {
      const inner = new FullChannel();
      const channel = decorate(inner);
      assert.ok(channel instanceof ChannelDecorator, 'built on ChannelDecorator');
      assert.equal(channel.label, 'full channel');
      assert.equal(channel.preferredEra, 'legacy');
      assert.equal(channel.firstRequestId, 7001);
      assert.equal(channel.canPush?.(), false);
      assert.equal(channel.closeRequestStream?.(42), true);
      assert.deepEqual(inner.closedStreams, [42]);
    });

    test(`${name} leaves absent what the wrapped channel lacks, and forwards the sink's logger`, () => {
      const channel = decorate(bare());
      assert.equal(channel.canPush, undefined);
      assert.equal(channel.closeRequestStream, undefined);
      assert.equal(channel.firstRequestId, undefined);
      const inner = new FullChannel();
      const logger = { warn() {}, error() {} };
      const closed: unknown[] = [];
      let renewed = 0;
      decorate(inner).start({
        message() {},
        malformed() {},
        closed: (e) => closed.push(e),
        renewed: () => renewed++,
        logger,
      });
      assert.equal(inner.sink?.logger, logger);
      inner.sink?.renewed?.();
      assert.equal(renewed, 1, 'a renewed session is told to the sink');
      inner.sink?.closed(new Error('gone'));
      assert.equal(closed.length, 1);
    });
  }

  test("the gateway's close watch tells once, whether the channel closed or was closed, and which", async () => {
    const told: boolean[] = [];
    const inner = new FullChannel();
    const watch = new CloseWatch(inner, (unexpected) => told.push(unexpected));
    watch.start({ message() {}, malformed() {}, closed() {} });
    inner.sink?.closed();
    await watch.close();
    assert.deepEqual(told, [true], 'closed on its own');
    const closing = new FullChannel();
    const closedByUs = new CloseWatch(closing, (unexpected) => told.push(unexpected));
    closedByUs.start({ message() {}, malformed() {}, closed() {} });
    const done = closedByUs.close();
    closing.sink?.closed();
    await done;
    assert.deepEqual(told, [true, false], 'closed by close()');
  });
});

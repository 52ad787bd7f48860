import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChannelSink } from '../../src/engine/channel.js';
import type { ProtocolError } from '../../src/protocol/errors.js';
import { createLinkedChannels } from '../../src/testing.js';

function recordingSink() {
  const messages: unknown[] = [];
  const errors: ProtocolError[] = [];
  const closes: (Error | undefined)[] = [];
  const sink: ChannelSink = {
    message: (value) => messages.push(value),
    malformed: (error) => errors.push(error),
    closed: (error) => closes.push(error),
  };
  return { sink, messages, errors, closes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createLinkedChannels', () => {
  test('delivers frames to the other side, asynchronously and in order', async () => {
    const [a, b] = createLinkedChannels();
    const left = recordingSink();
    const right = recordingSink();
    a.start(left.sink);
    b.start(right.sink);
    for (let i = 0; i < 5; i++) a.send(JSON.stringify({ i }));
    b.send('{"back":true}');
    assert.deepEqual(right.messages, [], 'nothing is delivered synchronously');
    await tick();
    assert.deepEqual(right.messages, [{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }]);
    assert.deepEqual(left.messages, [{ back: true }]);
  });

  test('frames sent before the receiver starts are delivered once it does', async () => {
    const [a, b] = createLinkedChannels();
    a.start(recordingSink().sink);
    a.send('{"early":1}');
    await tick();
    const right = recordingSink();
    b.start(right.sink);
    await tick();
    assert.deepEqual(right.messages, [{ early: 1 }]);
  });

  test('the receiver gets its own copy of each message', async () => {
    const [a, b] = createLinkedChannels();
    const right = recordingSink();
    a.start(recordingSink().sink);
    b.start(right.sink);
    const frame = '{"nested":{"list":[1]}}';
    a.send(frame);
    a.send(frame);
    await tick();
    const [first, second] = right.messages as { nested: { list: number[] } }[];
    assert.notEqual(first, second);
    first!.nested.list.push(2);
    assert.deepEqual(second!.nested.list, [1]);
  });

  test('a frame that is not JSON is reported as malformed', async () => {
    const [a, b] = createLinkedChannels();
    const right = recordingSink();
    a.start(recordingSink().sink);
    b.start(right.sink);
    a.send('{oops');
    a.send('{"ok":1}');
    await tick();
    assert.equal(right.errors.length, 1);
    assert.equal(right.errors[0]!.code, -32700);
    assert.deepEqual(right.messages, [{ ok: 1 }]);
  });

  test('closing one side closes both, once each, after the frames already sent', async () => {
    const [a, b] = createLinkedChannels();
    const left = recordingSink();
    const right = recordingSink();
    const order: string[] = [];
    a.start({
      ...left.sink,
      closed: (error) => {
        order.push('a closed');
        left.sink.closed(error);
      },
    });
    b.start({
      ...right.sink,
      message: (value) => {
        order.push('b message');
        right.sink.message(value);
      },
      closed: (error) => {
        order.push('b closed');
        right.sink.closed(error);
      },
    });
    a.send('{"before":1}');
    await a.close();
    await b.close();
    await a.close();
    a.send('{"after":1}');
    b.send('{"after":2}');
    await tick();
    assert.deepEqual(left.closes, [undefined]);
    assert.deepEqual(right.closes, [undefined]);
    assert.deepEqual(right.messages, [{ before: 1 }]);
    assert.deepEqual(left.messages, []);
    assert.ok(order.indexOf('b message') < order.indexOf('b closed'));
  });
});

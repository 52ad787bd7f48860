import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { describe, test } from 'node:test';
import type { ChannelSink } from '../../src/engine/channel.js';
import { jsonSchema, Server } from '../../src/index.js';
import type { ProtocolError } from '../../src/protocol/errors.js';
import { META } from '../../src/protocol/meta.js';
import { WRITE_AT_BYTES } from '../../src/transports/stdio/frame-writer.js';
import { StdioServerChannel } from '../../src/transports/stdio/server-channel.js';

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

async function readAll(stream: PassThrough): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A started channel whose stdout records each write it gets. */
function recordingChannel() {
  const written: string[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callback();
    },
  });
  const channel = new StdioServerChannel({ stdin: new PassThrough(), stdout });
  channel.start(recordingSink().sink);
  return { channel, written };
}

describe('StdioServerChannel', () => {
  test('decodes stdin and writes newline-terminated frames to stdout', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const channel = new StdioServerChannel({ stdin, stdout });
    const { sink, messages, errors } = recordingSink();
    channel.start(sink);
    stdin.write('{"jsonrpc":"2.0","method":"a"}\nnot json\n{"jsonrpc":"2.0",');
    stdin.write('"method":"b"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(messages, [
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', method: 'b' },
    ]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, -32700);

    channel.send('{"id":1}');
    channel.send('{"id":2}');
    await channel.close();
    stdout.end();
    assert.equal(await readAll(stdout), '{"id":1}\n{"id":2}\n');
  });

  test('stdin EOF reports closed() once, without an error', async () => {
    const stdin = new PassThrough();
    const channel = new StdioServerChannel({ stdin, stdout: new PassThrough() });
    const { sink, messages, closes } = recordingSink();
    channel.start(sink);
    stdin.end('{"last":true}'); // no trailing newline: still delivered
    await once(stdin, 'close');
    assert.deepEqual(messages, [{ last: true }]);
    assert.deepEqual(closes, [undefined]);
    await channel.close();
    assert.deepEqual(closes, [undefined]);
  });

  test('writes a lone frame at once and the frames that follow it in the same turn together, in order', async () => {
    const { channel, written } = recordingChannel();
    const tick = () => new Promise((resolve) => process.nextTick(resolve));
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    channel.send('{"id":1}');
    assert.deepEqual(written, ['{"id":1}\n'], 'a frame that finds the writer idle waits for nothing');
    channel.send('{"id":2}');
    await tick();
    // Another callback of the same turn (as a request arriving on another socket would be).
    channel.send('{"id":3}');
    await tick();
    assert.equal(written.length, 1, 'after a write in a turn, frames wait for the turn to end');
    await turn();
    assert.deepEqual(written, ['{"id":1}\n', '{"id":2}\n{"id":3}\n']);
    // A turn with nothing sent leaves the writer idle: the next lone frame goes out at once again.
    await turn();
    channel.send('{"id":4}');
    assert.deepEqual(written, ['{"id":1}\n', '{"id":2}\n{"id":3}\n', '{"id":4}\n']);
    // Frames still queued when the channel closes are written before it ends.
    channel.send('{"id":5}');
    await channel.close();
    assert.equal(
      written.join(''),
      ['{"id":1}', '{"id":2}', '{"id":3}', '{"id":4}', '{"id":5}', ''].join('\n'),
    );
  });

  test('a burst goes out whenever WRITE_AT_BYTES of it wait, not only when the turn ends', async () => {
    const { channel, written } = recordingChannel();
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    // Frames of a quarter of the threshold each (with their line break): the fourth fills it.
    const frame = (id: number) => JSON.stringify({ id, pad: 'p'.repeat(WRITE_AT_BYTES / 4 - 18) });
    const frames = Array.from({ length: 10 }, (_, i) => frame(i));
    for (const f of frames) assert.equal(f.length + 1, WRITE_AT_BYTES / 4);
    for (const f of frames) channel.send(f);
    // The first at once (the writer was idle), then 1-4 and 5-8 as each batch reached the threshold.
    assert.deepEqual(
      written.map((w) => w.length),
      [WRITE_AT_BYTES / 4, WRITE_AT_BYTES, WRITE_AT_BYTES],
    );
    await turn();
    assert.equal(written.length, 4, 'the rest of the turn went out when it ended');
    assert.equal(written.join(''), frames.map((f) => `${f}\n`).join(''), 'in order, nothing lost');
    await channel.close();
  });

  test('queues frames while stdout applies backpressure, then flushes them in order', async () => {
    // A stdout whose writes complete only when the test says so, with a 1-byte buffer limit.
    const written: string[] = [];
    const callbacks: (() => void)[] = [];
    const stdout = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString('utf8'));
        callbacks.push(callback);
      },
    });
    const channel = new StdioServerChannel({ stdin: new PassThrough(), stdout });
    channel.start(recordingSink().sink);

    const frames = Array.from({ length: 100 }, (_, i) => JSON.stringify({ id: i, pad: 'p'.repeat(i % 7) }));
    channel.send(frames[0]!);
    await new Promise((resolve) => process.nextTick(resolve));
    assert.equal(written.length, 1, 'the first tick went out as one write, which filled the stream');
    for (const frame of frames.slice(1)) channel.send(frame);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(written.length, 1, 'while write() asks to wait, frames wait in the channel');

    let closed = false;
    const closing = channel.close().then(() => {
      closed = true;
    });
    while (!closed) {
      for (const callback of callbacks.splice(0)) callback();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closing;
    assert.equal(written.join(''), frames.map((f) => `${f}\n`).join(''));
    assert.equal(written.length, 2, 'the queued frames went out as one batch on drain');
  });

  test('close() resolves even when stdout never drains', async () => {
    const stdout = new PassThrough({ highWaterMark: 1 });
    const channel = new StdioServerChannel({ stdin: new PassThrough(), stdout, flushTimeoutMs: 20 });
    const { sink, closes } = recordingSink();
    channel.start(sink);
    channel.send('{"a":1}');
    channel.send('{"b":2}');
    await channel.close();
    assert.deepEqual(closes, [undefined]);
  });

  test('a stdout error closes the channel with a TRANSPORT error and does not crash', async () => {
    const stdout = new PassThrough();
    const channel = new StdioServerChannel({ stdin: new PassThrough(), stdout });
    const { sink, closes } = recordingSink();
    channel.start(sink);
    const gone = new Promise((resolve) => stdout.once('close', resolve));
    stdout.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await gone;
    assert.equal(closes.length, 1);
    assert.match(String(closes[0]?.message), /EPIPE.*client has most likely exited/);
    channel.send('{"dropped":true}');
    await channel.close();
    assert.equal(closes.length, 1);
  });

  test('a frame with a raw newline is refused and reported, the next one is sent', async () => {
    const stdout = new PassThrough();
    const refused: Error[] = [];
    const channel = new StdioServerChannel({
      stdin: new PassThrough(),
      stdout,
      onSendError: (error) => refused.push(error),
    });
    channel.start(recordingSink().sink);
    channel.send('{\n"a":1}');
    channel.send('{"b":2}');
    await channel.close();
    stdout.end();
    assert.equal(await readAll(stdout), '{"b":2}\n');
    assert.equal(refused.length, 1);
  });

  test('stops reading stdin on close()', async () => {
    const stdin = new PassThrough();
    const channel = new StdioServerChannel({ stdin, stdout: new PassThrough() });
    const { sink, messages } = recordingSink();
    channel.start(sink);
    await channel.close();
    stdin.write('{"late":true}\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(messages, []);
    assert.equal(stdin.listenerCount('data'), 0);
  });

  test('a 2026-07-28 client may change its envelope on any request: each request is served with its own, repeated or not', async () => {
    const server = new Server({ name: 'envelopes', version: '1.0.0' });
    server.registerTool(
      'who',
      { inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }) },
      (_args, ctx) =>
        JSON.stringify({
          capabilities: ctx.client.capabilities,
          info: ctx.client.info,
          level: ctx.meta?.[META.logLevel] ?? null,
        }),
    );
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    server.connect(new StdioServerChannel({ stdin, stdout }));
    const envelope = (capabilities: object, extra: object = {}) => ({
      [META.protocolVersion]: '2026-07-28',
      [META.clientCapabilities]: capabilities,
      [META.clientInfo]: { name: 'c', version: '1' },
      ...extra,
    });
    const plain = envelope({});
    const roots = envelope({ roots: {} });
    const sends = [
      plain,
      plain,
      roots,
      roots,
      plain,
      envelope({}, { [META.logLevel]: 'debug' }),
      plain,
      envelope({}, { [META.logLevel]: 'loud' }),
      envelope({}, { [META.protocolVersion]: '2099-01-01' }),
      plain,
    ];
    const lines = sends.map((meta, id) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'who', arguments: {}, _meta: meta },
      }),
    );
    stdin.write(`${lines.join('\n')}\n`);
    type Answer = { id: number; result?: { content: { text: string }[] }; error?: { code: number } };
    const answers = new Map<number, Answer>();
    let buffered = '';
    for await (const chunk of stdout) {
      buffered += (chunk as Buffer).toString('utf8');
      const complete = buffered.split('\n');
      buffered = complete.pop()!;
      for (const line of complete) {
        const message = JSON.parse(line) as Answer;
        answers.set(message.id, message);
      }
      if (answers.size === sends.length) break;
    }
    const served = (id: number) => JSON.parse(answers.get(id)!.result!.content[0]!.text);
    for (const id of [0, 1, 4, 6, 9]) {
      assert.deepEqual(
        served(id),
        { capabilities: {}, info: { name: 'c', version: '1' }, level: null },
        `request ${id}`,
      );
    }
    for (const id of [2, 3]) assert.deepEqual(served(id).capabilities, { roots: {} }, `request ${id}`);
    assert.equal(served(5).level, 'debug');
    assert.equal(answers.get(7)!.error?.code, -32602, 'an invalid log level was let through');
    assert.equal(answers.get(8)!.error?.code, -32022, 'an unsupported protocol version was let through');
    stdin.end();
    await server.close();
  });
});

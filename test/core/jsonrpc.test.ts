/**
 * JSON-RPC 2.0 on the wire, driven by hand: parse errors, invalid requests, notifications that must
 * never be answered, stray responses, request-id reuse, and batches (2025-03-26 only).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import type { Channel, ChannelSink, FrameInfo } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { LEGACY_REVISIONS, REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { envelope, type Frame, openWire, type Wire } from '../helpers/wire.js';

trapUnhandledRejections();

/** A gate a tool handler waits on, so a request stays pending as long as the test wants. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

function makeServer(blocker = gate()) {
  const server = new Server({ name: 'rpc', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
  server.registerTool('block', {}, async () => {
    await blocker.opened;
    return 'released';
  });
  return server;
}

/** A connection in the state `revision` implies: legacy initialized, or fresh for the modern era. */
async function wireFor(revision: Revision, blocker = gate()): Promise<Wire> {
  const wire = await openWire(makeServer(blocker));
  if (revision !== '2026-07-28') await wire.initialize(revision);
  return wire;
}

/** Params for a request in `revision`: the `_meta` envelope on 2026-07-28, nothing extra otherwise. */
const paramsFor = (revision: Revision, params: Record<string, unknown> = {}) =>
  revision === '2026-07-28' ? { ...params, _meta: envelope() } : params;

function assertError(frame: Frame, id: unknown, code: number, ...fragments: string[]) {
  assert.equal(frame.jsonrpc, '2.0');
  assert.deepEqual(frame.id, id, `id of ${JSON.stringify(frame)}`);
  assert.equal(frame.result, undefined);
  assert.equal(frame.error?.code, code, JSON.stringify(frame));
  for (const fragment of fragments) {
    assert.ok(frame.error.message.includes(fragment), `"${fragment}" in "${frame.error.message}"`);
  }
}

const INVALID: [string, unknown, unknown, string][] = [
  ['null id', { jsonrpc: '2.0', id: null, method: 'ping' }, null, '"id"'],
  ['fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null, '"id"'],
  ['object id', { jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, null, '"id"'],
  ['unsafe integer id', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', null, '"id"'],
  ['missing method', { jsonrpc: '2.0', id: 7 }, 7, '"method"'],
  ['empty method', { jsonrpc: '2.0', id: 'e', method: '' }, 'e', '"method"'],
  ['numeric method', { jsonrpc: '2.0', id: 8, method: 5 }, 8, '"method"'],
  ['wrong jsonrpc', { jsonrpc: '1.0', id: 9, method: 'ping' }, 9, '"jsonrpc"'],
  ['missing jsonrpc', { id: 10, method: 'ping' }, 10, '"jsonrpc"'],
  ['array params', { jsonrpc: '2.0', id: 11, method: 'tools/list', params: [1] }, 11, '"params"'],
  ['string params', { jsonrpc: '2.0', id: 12, method: 'tools/list', params: 'x' }, 12, '"params"'],
  ['null params', { jsonrpc: '2.0', id: 13, method: 'tools/list', params: null }, 13, '"params"'],
  ['a number', 42, null, 'JSON object'],
  ['a string', '"hello"', null, 'JSON object'],
  ['null', null, null, 'JSON object'],
  ['bad notification params', { jsonrpc: '2.0', method: 'notifications/x', params: 3 }, null, '"params"'],
];

for (const revision of REVISIONS) {
  describe(`JSON-RPC envelope on ${revision}`, () => {
    test('bad JSON is answered with -32700 and id null, and the connection lives on', async () => {
      const wire = await wireFor(revision);
      for (const junk of ['{"jsonrpc":"2.0","id":1,', 'not json', '{"a":1}}']) {
        wire.send(junk);
        assertError(await wire.next(), null, ErrorCode.ParseError, 'not valid JSON');
      }
      const ok = await wire.request(
        'tools/call',
        paramsFor(revision, { name: 'echo', arguments: { text: 'hi' } }),
      );
      assert.equal(ok.result.content[0].text, 'hi');
      await wire.close();
    });

    for (const [what, frame, id, fragment] of INVALID) {
      test(`invalid request (${what}) → -32600 with id ${JSON.stringify(id)}`, async () => {
        const wire = await wireFor(revision);
        wire.send(frame);
        assertError(await wire.next(), id, ErrorCode.InvalidRequest, 'Invalid JSON-RPC message', fragment);
        await wire.quiet();
        await wire.close();
      });
    }

    test('a _meta that is not an object → -32602 (never an internal error)', async () => {
      const wire = await wireFor(revision);
      for (const meta of ['str', null, 5, true, []]) {
        const response = await wire.request('tools/call', {
          name: 'echo',
          arguments: { text: 'x' },
          _meta: meta,
        });
        assertError(
          response,
          response.id,
          ErrorCode.InvalidParams,
          `Invalid params for 'tools/call': "_meta" must be an object`,
        );
      }
      await wire.close();
    });

    test('notifications are never answered, known or not', async () => {
      const wire = await wireFor(revision);
      const params = paramsFor(revision);
      wire.send({ jsonrpc: '2.0', method: 'notifications/whatever', params });
      wire.send({ jsonrpc: '2.0', method: 'tools/list', params }); // a request method without an id
      wire.send({ jsonrpc: '2.0', method: 'no-such/thing' });
      wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 404 } });
      wire.send({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 1 },
      });
      wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      wire.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
      await wire.quiet();
      await wire.close();
    });

    test('responses with unknown ids are ignored (never answered)', async () => {
      const wire = await wireFor(revision);
      wire.send({ jsonrpc: '2.0', id: 999, result: {} });
      wire.send({ jsonrpc: '2.0', id: 'nope', error: { code: -32603, message: 'x' } });
      wire.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } });
      // Malformed responses are not answered either: answering a response could ping-pong forever.
      wire.send({ jsonrpc: '2.0', id: 5, result: 'not an object' });
      wire.send({ jsonrpc: '2.0', id: 6, result: {}, error: { code: 1, message: 'both' } });
      wire.send({ jsonrpc: '2.0', id: 7, error: 'not an object' });
      await wire.quiet();
      await wire.close();
    });

    test('a request id still pending is refused with -32600; the original completes; the id is free afterwards', async () => {
      const blocker = gate();
      const wire = await wireFor(revision, blocker);
      const params = paramsFor(revision, { name: 'block' });
      wire.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params });
      wire.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params });
      assertError(await wire.next(), 'dup', ErrorCode.InvalidRequest, 'already in use');
      blocker.open();
      const first = await wire.next();
      assert.equal(first.id, 'dup');
      assert.equal(first.result.content[0].text, 'released');
      const again = await wire.request('tools/call', params, 'dup');
      assert.equal(again.result.content[0].text, 'released');
      // Numeric and string ids are distinct ids.
      const blocker2 = gate();
      const wire2 = await wireFor(revision, blocker2);
      wire2.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
      const other = await wire2.request(
        'tools/call',
        paramsFor(revision, { name: 'echo', arguments: { text: 's' } }),
        '1',
      );
      assert.equal(other.result.content[0].text, 's');
      blocker2.open();
      assert.equal((await wire2.next()).id, 1);
      await wire.close();
      await wire2.close();
    });
  });
}

describe('batches', () => {
  test('2025-03-26: one array answers the requests, keeps their ids, skips notifications', async () => {
    const wire = await wireFor('2025-03-26');
    wire.send([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' } } },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
      { jsonrpc: '2.0', id: 'two', method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'missing' } },
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: [] },
      { jsonrpc: '2.0', id: 77, result: {} },
    ]);
    const reply = await wire.next();
    assert.ok(Array.isArray(reply), `expected an array, got ${JSON.stringify(reply)}`);
    const byId = new Map<unknown, Frame>(reply.map((r: Frame) => [r.id, r]));
    assert.deepEqual([...byId.keys()].sort(), [1, 3, 4, 'two'].sort());
    assert.equal(reply.length, 4);
    assert.equal(byId.get(1)!.result.content[0].text, 'a');
    assert.deepEqual(byId.get('two')!.result, {});
    assertError(byId.get(3)!, 3, ErrorCode.InvalidParams, 'Unknown tool');
    assertError(byId.get(4)!, 4, ErrorCode.InvalidRequest, '"params"');
    await wire.quiet();
    await wire.close();
  });

  test('2025-03-26: a batch of only notifications (or responses) gets no answer at all', async () => {
    const wire = await wireFor('2025-03-26');
    wire.send([
      { jsonrpc: '2.0', method: 'notifications/a' },
      { jsonrpc: '2.0', method: 'notifications/b' },
    ]);
    wire.send([{ jsonrpc: '2.0', id: 5, result: {} }]);
    await wire.quiet();
    await wire.close();
  });

  test('2025-03-26: an empty batch is -32600 with id null', async () => {
    const wire = await wireFor('2025-03-26');
    wire.send([]);
    assertError(await wire.next(), null, ErrorCode.InvalidRequest, 'must not be empty');
    await wire.close();
  });

  test('2025-03-26: initialize inside a batch is refused (the connection is already initialized)', async () => {
    const wire = await wireFor('2025-03-26');
    wire.send([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
    ]);
    const [entry] = await wire.next();
    assertError(entry, 1, ErrorCode.InvalidRequest, 'already initialized');
    await wire.close();
  });

  for (const revision of REVISIONS.filter((r) => r !== '2025-03-26')) {
    test(`${revision}: a batch is refused as a whole with one -32600 (id null) naming 2025-03-26`, async () => {
      const wire = await wireFor(revision);
      wire.send([
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: paramsFor(revision) },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: paramsFor(revision) },
      ]);
      const reply = await wire.next();
      assert.ok(!Array.isArray(reply));
      assertError(reply, null, ErrorCode.InvalidRequest, 'batches are only allowed', '2025-03-26');
      await wire.quiet();
      await wire.close();
    });
  }

  test('before initialize, a batch (even one holding initialize) is refused and nothing in it runs', async () => {
    const wire = await openWire(makeServer());
    wire.send([
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    assertError(await wire.next(), null, ErrorCode.InvalidRequest, 'after initialize', 'must not be batched');
    // The refused initialize did not take effect: a real one still works.
    const result = await wire.initialize('2025-03-26');
    assert.equal(result.protocolVersion, '2025-03-26');
    await wire.close();
  });

  for (const revision of LEGACY_REVISIONS) {
    test(`a batch answered on ${revision} only if it negotiated 2025-03-26`, async () => {
      const wire = await wireFor(revision);
      wire.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
      const reply = await wire.next();
      assert.equal(Array.isArray(reply), revision === '2025-03-26');
      await wire.close();
    });
  }
});

/** A channel that records every frame the client sends. */
class RecordingChannel implements Channel {
  readonly sent: { frame: Frame; info: FrameInfo | undefined }[] = [];
  constructor(private readonly inner: Channel) {}
  start(sink: ChannelSink) {
    this.inner.start(sink);
  }
  send(frame: string, info?: FrameInfo) {
    this.sent.push({ frame: JSON.parse(frame), info });
    this.inner.send(frame, info);
  }
  close() {
    return this.inner.close();
  }
}

describe('request ids on the client side', () => {
  for (const revision of REVISIONS) {
    test(`${revision}: many concurrent calls get distinct ids, each answered correctly`, async () => {
      const server = makeServer();
      const [clientEnd, serverEnd] = createLinkedChannels();
      server.connect(serverEnd);
      const recording = new RecordingChannel(clientEnd);
      const client = new Client({ name: 'c', version: '1' }, { version: { pin: revision } });
      await client.connect(recording);
      const results = await Promise.all(
        Array.from({ length: 64 }, (_, i) => client.callTool('echo', { text: `n${i}` })),
      );
      for (const [i, r] of results.entries()) assert.deepEqual(r.content, [{ type: 'text', text: `n${i}` }]);
      const ids = recording.sent.filter((s) => 'id' in s.frame).map((s) => s.frame.id);
      assert.equal(new Set(ids).size, ids.length, `ids reused: ${ids}`);
      // FrameInfo carries the same id the frame does (transports rely on it).
      for (const { frame, info } of recording.sent) {
        if (!('id' in frame)) continue;
        assert.equal(info?.kind, 'request');
        assert.ok(info?.kind === 'request' && info.id === frame.id && info.method === frame.method);
      }
      await client.close();
    });
  }

  test('a stray response from the server is ignored by the client', async () => {
    const server = makeServer();
    const [clientEnd, serverEnd] = createLinkedChannels();
    const connection = server.connect(serverEnd);
    const client = new Client({ name: 'c', version: '1' }, { version: 'legacy' });
    await client.connect(clientEnd);
    connection.peer.notify('notifications/x'); // harmless
    // Forge responses to requests the client never sent, straight onto the wire.
    serverEnd.send('{"jsonrpc":"2.0","id":4242,"result":{}}');
    serverEnd.send('{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"stray"}}');
    const result = await client.callTool('echo', { text: 'still fine' });
    assert.equal(result.content[0]?.type === 'text' && result.content[0].text, 'still fine');
    await client.close();
  });
});

describe('batch bounds (2025-03-26)', () => {
  /** A server whose `count` tool counts its calls and, on the first, notes how many ran before the loop turned. */
  function countingServer(options: { maxBatchLength?: number } = {}) {
    const server = new Server({ name: 'rpc', version: '1.0.0' }, options);
    const seen = { calls: 0, atFirstTurn: -1 };
    server.registerTool('count', {}, () => {
      if (seen.calls++ === 0) setImmediate(() => (seen.atFirstTurn = seen.calls));
      return 'ok';
    });
    return { server, seen };
  }
  const calls = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'count' },
    }));

  test('a batch longer than maxBatchLength (default 1000) is refused as a whole, naming the limit', async () => {
    const { server, seen } = countingServer();
    const wire = await openWire(server);
    await wire.initialize('2025-03-26');
    wire.send(calls(1001));
    assertError(await wire.next(), null, ErrorCode.InvalidRequest, '1001', 'at most 1000', 'maxBatchLength');
    assert.equal(seen.calls, 0, 'nothing in the refused batch ran');
    wire.send(calls(1000));
    const reply = await wire.next();
    assert.equal(reply.length, 1000);
    assert.equal(seen.calls, 1000);
    await wire.close();
  });

  test('maxBatchLength is configurable, and a bad value is a CONFIG error', async () => {
    const { server } = countingServer({ maxBatchLength: 3 });
    const wire = await openWire(server);
    await wire.initialize('2025-03-26');
    wire.send(calls(4));
    assertError(await wire.next(), null, ErrorCode.InvalidRequest, 'at most 3');
    wire.send(calls(3));
    assert.equal((await wire.next()).length, 3);
    await wire.close();
    assert.throws(() => new Server({ name: 'x', version: '1' }, { maxBatchLength: 0 }), /maxBatchLength/);
  });

  test('a long batch lets the event loop turn while it is served', async () => {
    const { server, seen } = countingServer();
    const wire = await openWire(server);
    await wire.initialize('2025-03-26');
    wire.send(calls(1000));
    assert.equal((await wire.next()).length, 1000);
    assert.ok(
      seen.atFirstTurn > 0 && seen.atFirstTurn < 1000,
      `${seen.atFirstTurn} of 1000 synchronous calls had run before the loop turned`,
    );
    await wire.close();
  });
});

/**
 * The client: typed errors for every way a call can fail, timeouts, cancellation (and what the
 * server sees of it), progress, era negotiation (auto, legacy, pinned), the 2026-07-28 result cache,
 * structured-output validation, notifications and requests from the server.
 */
import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { z } from 'zod';
import type { Channel, ChannelSink, FrameInfo } from '../../src/engine/channel.js';
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { LATEST_LEGACY_REVISION, LEGACY_REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import type { ServerConnection } from '../../src/server/connection.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { advance, controlClock, settleOnClock } from '../helpers/clock.js';
import { type Answer, discoverResult, fakeServer, legacyInit } from '../helpers/fake-server.js';
import { connectPair } from '../helpers/pair.js';
import { rejectsLocal } from '../helpers/rejects.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import type { Frame } from '../helpers/wire.js';

trapUnhandledRejections();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the server-side handlers observed. */
interface Observed {
  aborted: string[];
  started: string[];
}

function makeServer(observed: Observed = { aborted: [], started: [] }) {
  const server = new Server({ name: 'client-tests', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
  server.registerTool('hang', {}, (_args, ctx) => {
    observed.started.push(ctx.revision);
    return new Promise<string>((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        observed.aborted.push(String(ctx.signal.reason));
        resolve('too late');
      });
    });
  });
  server.registerTool(
    'progress',
    { inputSchema: z.object({ steps: z.number(), every: z.number() }) },
    async ({ steps, every }, ctx) => {
      for (let i = 1; i <= steps; i++) {
        await sleep(every);
        ctx.progress(i, steps);
      }
      return 'done';
    },
  );
  server.registerTool('typed', { outputSchema: z.object({ n: z.number() }) }, () => ({
    structuredContent: { n: 1 },
  }));
  server.registerResource('r', 'mem://r', {}, () => 'r');
  return server;
}

/** A client over a channel that records what it sends; also returns the server connection. */
async function recorded(server: Server, options: ClientOptions = {}) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  const connection: ServerConnection = server.connect(serverEnd);
  const sent: Frame[] = [];
  const channel: Channel = {
    start: (sink: ChannelSink) => clientEnd.start(sink),
    send: (frame: string, info?: FrameInfo) => {
      sent.push(JSON.parse(frame));
      clientEnd.send(frame, info);
    },
    close: () => clientEnd.close(),
  };
  const client = new Client({ name: 'c', version: '1' }, options);
  await client.connect(channel);
  return { client, sent, connection, serverEnd };
}

const VERSIONS: Revision[] = ['2026-07-28', '2025-11-25', '2024-11-05'];

describe('typed errors', () => {
  for (const revision of VERSIONS) {
    test(`${revision}: a server error is a ProtocolError with code, message and data`, async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      await assert.rejects(pair.client.callTool('nope'), (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.name, 'ProtocolError');
        assert.equal(error.code, ErrorCode.InvalidParams);
        assert.deepEqual(error.data, { name: 'nope' });
        assert.equal(error.message, 'Unknown tool: "nope". Call tools/list for the available tools.');
        return true;
      });
      pair.assertClean();
      await pair.close();
    });

    test(`${revision}: TIMEOUT per call, with notifications/cancelled; the server handler sees the abort`, async () => {
      const observed: Observed = { aborted: [], started: [] };
      const { client, sent } = await recorded(makeServer(observed), { version: { pin: revision } });
      await rejectsLocal(
        client.callTool('hang', undefined, { timeoutMs: 20 }),
        'TIMEOUT',
        "Request 'tools/call'",
        'no response within',
        'timeoutMs',
      );
      const call = sent.find((f) => f.method === 'tools/call')!;
      const cancelled = sent.find((f) => f.method === 'notifications/cancelled')!;
      assert.deepEqual(cancelled.params, { requestId: call.id, reason: 'timeout' });
      await until(() => observed.aborted.length > 0, 'the handler saw the cancellation');
      assert.deepEqual(observed.aborted, ['timeout']);
      // The connection is fine afterwards.
      assert.deepEqual((await client.callTool('echo', { text: 'ok' })).content, [
        { type: 'text', text: 'ok' },
      ]);
      await client.close();
    });

    test(`${revision}: ABORTED via AbortSignal sends notifications/cancelled; the handler's signal aborts`, async () => {
      const observed: Observed = { aborted: [], started: [] };
      const { client, sent } = await recorded(makeServer(observed), { version: { pin: revision } });
      const controller = new AbortController();
      const call = client.callTool('hang', undefined, { signal: controller.signal });
      await until(() => observed.started.length > 0, 'the handler started');
      controller.abort('user pressed stop');
      await rejectsLocal(call, 'ABORTED', "Request 'tools/call' was aborted: user pressed stop");
      const request = sent.find((f) => f.method === 'tools/call')!;
      assert.deepEqual(sent.find((f) => f.method === 'notifications/cancelled')!.params, {
        requestId: request.id,
        reason: 'user pressed stop',
      });
      await client.listTools({ fresh: true });
      assert.deepEqual(observed.aborted, ['user pressed stop']);
      await client.close();
    });
  }

  test('cancelledBy (a Cancellable, not a signal) cancels like a signal, and unsubscribes once settled', async () => {
    const observed: Observed = { aborted: [], started: [] };
    const { client, sent } = await recorded(makeServer(observed));
    const listeners = new Set<(reason: unknown) => void>();
    const cancellable = {
      onCancel(listener: (reason: unknown) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    const echoed = await client.callTool('echo', { text: 'x' }, { cancelledBy: cancellable });
    assert.deepEqual(echoed.content, [{ type: 'text', text: 'x' }]);
    assert.equal(listeners.size, 0, 'a settled call no longer listens');
    const call = client.callTool('hang', undefined, { cancelledBy: cancellable });
    await until(() => observed.started.length > 0, 'the handler started');
    for (const listener of listeners) listener('downstream cancelled');
    await rejectsLocal(call, 'ABORTED', "Request 'tools/call' was aborted: downstream cancelled");
    const request = sent.filter((f) => f.method === 'tools/call').at(-1)!;
    assert.deepEqual(sent.find((f) => f.method === 'notifications/cancelled')!.params, {
      requestId: request.id,
      reason: 'downstream cancelled',
    });
    assert.equal(listeners.size, 0);
    await client.close();
  });

  test('an already-aborted signal fails at once and sends nothing', async () => {
    const { client, sent } = await recorded(makeServer(), { version: { pin: '2025-06-18' } });
    const before = sent.length;
    await rejectsLocal(
      client.callTool('echo', { text: 'x' }, { signal: AbortSignal.abort(new Error('stop')) }),
      'ABORTED',
      'stop',
    );
    assert.equal(sent.length, before);
    await client.close();
  });

  test('a cancelled request gets no response from the server', async () => {
    const server = makeServer();
    const [clientEnd, serverEnd] = createLinkedChannels();
    server.connect(serverEnd);
    const frames: Frame[] = [];
    clientEnd.start({ message: (v) => frames.push(v as Frame), malformed: () => {}, closed: () => {} });
    const send = (f: unknown) => clientEnd.send(JSON.stringify(f));
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang' } });
    await sleep(1);
    send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 2, reason: 'no longer needed' },
    });
    send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    // The ping was sent after the cancellation: once it is answered, so would the call have been.
    await until(() => frames.some((f) => f.id === 3), 'the answer to the ping');
    assert.deepEqual(
      frames.map((f) => f.id),
      [1, 3],
    );
    await clientEnd.close();
  });

  test('CONNECTION_CLOSED for calls pending when the connection goes away (either side)', async () => {
    const { client, connection } = await recorded(makeServer(), { version: { pin: '2025-11-25' } });
    const pending = client.callTool('hang');
    await sleep(1);
    await connection.close();
    await rejectsLocal(pending, 'CONNECTION_CLOSED', "closed before 'tools/call'");
    await rejectsLocal(client.listTools(), 'NOT_CONNECTED', 'await client.connect(channel) first');

    const second = await recorded(makeServer(), { version: { pin: '2026-07-28' } });
    const inFlight = second.client.callTool('hang');
    await sleep(1);
    await second.client.close();
    await rejectsLocal(inFlight, 'CONNECTION_CLOSED');
  });

  test('server.close() ends every connection: pending calls fail, handlers see the abort', async () => {
    const observed: Observed = { aborted: [], started: [] };
    const server = makeServer(observed);
    const a = await recorded(server, { version: { pin: '2025-06-18' } });
    const b = await recorded(server, { version: { pin: '2026-07-28' } });
    const pending = [a.client.callTool('hang'), b.client.callTool('hang')];
    await until(() => observed.started.length >= 2, 'both handlers started');
    await server.close();
    for (const call of pending) await rejectsLocal(call, 'CONNECTION_CLOSED');
    assert.deepEqual(observed.aborted, ['connection closed', 'connection closed']);
    await rejectsLocal(a.client.listTools(), 'NOT_CONNECTED');
  });

  test('NOT_CONNECTED before connect and after close; getters too', async () => {
    const client = new Client({ name: 'c', version: '1' });
    await rejectsLocal(client.listTools(), 'NOT_CONNECTED');
    await rejectsLocal(client.callTool('x'), 'NOT_CONNECTED');
    assert.throws(
      () => client.revision,
      (e: unknown) => e instanceof SwitchboardError && e.code === 'NOT_CONNECTED',
    );
    const pair = await connectPair(makeServer());
    await pair.close();
    await rejectsLocal(pair.client.ping(), 'NOT_CONNECTED');
    assert.throws(() => pair.client.serverCapabilities, /not connected/);
  });

  test('CONFIG: bad client info; connecting twice', async () => {
    assert.throws(
      () => new Client({ name: 'x' } as never),
      (e: unknown) => e instanceof SwitchboardError && e.code === 'CONFIG',
    );
    const pair = await connectPair(makeServer());
    const [again] = createLinkedChannels();
    await rejectsLocal(pair.client.connect(again), 'CONFIG', 'already connected');
    await pair.close();
    // After close, the same client may connect again.
    const server = makeServer();
    const [clientEnd, serverEnd] = createLinkedChannels();
    server.connect(serverEnd);
    await pair.client.connect(clientEnd);
    assert.equal(pair.client.era, 'modern');
    await pair.client.close();
  });

  test('the default timeout comes from ClientOptions.timeoutMs', async () => {
    const { client } = await recorded(makeServer(), { version: { pin: '2025-06-18' }, timeoutMs: 15 });
    await rejectsLocal(client.callTool('hang'), 'TIMEOUT', 'within');
    await client.close();
  });

  test('holdTimeouts: no timeout while held (the user signing in); then the whole timeout again', async (t) => {
    const { client } = await recorded(makeServer(), { version: { pin: '2025-06-18' } });
    controlClock(t);
    let settled = false;
    const call = client.callTool('hang', undefined, { timeoutMs: 100 });
    call.catch(() => undefined).finally(() => (settled = true));
    const release = client.holdTimeouts();
    await advance(t, 250);
    assert.equal(settled, false, 'held past its timeout');
    release();
    release(); // twice is once
    // 90 ms after the release: within the 100 ms it has again (the old timer would have fired at 300).
    await advance(t, 90);
    assert.equal(settled, false, 'the time held does not count against the call');
    const outcome = await settleOnClock(t, call);
    assert.ok('error' in outcome && outcome.elapsedMs <= 15, JSON.stringify(outcome));
    await rejectsLocal(call, 'TIMEOUT', 'within');
    await client.close();
  });
});

describe('INVALID_RESULT and friends (a misbehaving server)', () => {
  function scripted(overrides: Record<string, Answer>) {
    return fakeServer((r) => {
      if (r.method === 'initialize') return legacyInit('2025-06-18', { tools: {}, resources: {} });
      return overrides[r.method] ?? { result: {} };
    });
  }
  async function client(fake: ReturnType<typeof fakeServer>) {
    const c = new Client({ name: 'c', version: '1' }, { version: 'legacy' });
    await c.connect(fake.channel);
    return c;
  }

  test('tools/call without a content array', async () => {
    const c = await client(scripted({ 'tools/call': { result: { structuredContent: {} } } }));
    await rejectsLocal(c.callTool('x'), 'INVALID_RESULT', 'has no "content" array');
    await c.close();
  });

  test('a list without its array, or with a non-string nextCursor', async () => {
    const c = await client(
      scripted({
        'tools/list': { result: { tools: 'nope' } },
        'resources/list': { result: { resources: [], nextCursor: 5 } },
      }),
    );
    await rejectsLocal(c.listTools(), 'INVALID_RESULT', 'tools/list result has no "tools" array');
    await rejectsLocal(c.listResources(), 'INVALID_RESULT', 'non-string nextCursor');
    await c.close();
  });

  test('read, prompt and completion results are shape-checked before the caller sees them', async () => {
    const c = await client(
      scripted({
        'resources/read': { result: { contents: [{ uri: 'a://x' }] } },
        'prompts/get': { result: { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] } },
        'completion/complete': { result: { completion: { values: [1, 2] } } },
      }),
    );
    await rejectsLocal(c.readResource('a://x'), 'INVALID_RESULT', 'contents[0]', 'neither a string "text"');
    await rejectsLocal(c.getPrompt('p'), 'INVALID_RESULT', 'messages[0].role');
    await rejectsLocal(
      c.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }),
      'INVALID_RESULT',
      'completion.values',
    );
    // A checker that judges results itself gets them as sent.
    const raw = await c.request('resources/read', { uri: 'a://x' }, { unchecked: true });
    assert.deepEqual(raw, { contents: [{ uri: 'a://x' }] });
    await c.close();
  });

  test('an unknown resultType is invalid; so is input_required on a legacy revision', async () => {
    const c = await client(
      scripted({
        'tools/call': { result: { resultType: 'mystery', content: [] } },
        'prompts/get': { result: { resultType: 'input_required', inputRequests: {} } },
      }),
    );
    await rejectsLocal(c.callTool('x'), 'INVALID_RESULT', 'resultType "mystery"');
    await rejectsLocal(c.getPrompt('p'), 'INVALID_RESULT', 'which protocol 2025-06-18 does not have');
    await c.close();
  });

  test('a server that never answers is a TIMEOUT; its late answer is ignored', async () => {
    let release!: () => void;
    const late = new Promise<void>((r) => {
      release = r;
    });
    const fake = fakeServer(async (r) => {
      if (r.method === 'initialize') return legacyInit('2025-06-18', { tools: {} });
      if (r.method === 'tools/list') {
        await late;
        return { result: { tools: [] } };
      }
      return { result: {} };
    });
    const c = await client(fake);
    await rejectsLocal(c.listTools({ timeoutMs: 10 }), 'TIMEOUT');
    release();
    await sleep(2);
    await c.ping();
    await c.close();
  });
});

describe('era negotiation', () => {
  test('auto tells a refused probe from an unanswered one (the CLI remembers only the first)', async () => {
    for (const [answer, unanswered] of [
      [{ error: { code: -32601, message: 'Method not found' } }, false],
      [undefined, true],
    ] as const) {
      const server = fakeServer(
        (r): Answer => (r.method === 'server/discover' ? answer : legacyInit('2025-11-25')),
      );
      const client = new Client({ name: 'c', version: '1' }, { probeTimeoutMs: 50 });
      await client.connect(server.channel);
      assert.equal(client.era, 'legacy');
      assert.equal(client.probeUnanswered, unanswered);
      await client.close();
    }
  });

  test('auto against a dual-era Server: server/discover, then modern', async () => {
    const { client, sent } = await recorded(makeServer());
    assert.equal(client.revision, '2026-07-28');
    assert.deepEqual(
      sent.map((f) => f.method),
      ['server/discover'],
    );
    await client.close();
  });

  test('auto against a legacy-only Server: the probe fails, initialize follows on the same channel', async () => {
    const { client, sent } = await recorded(legacyOnly());
    assert.equal(client.revision, LATEST_LEGACY_REVISION);
    assert.deepEqual(
      sent.map((f) => f.method),
      ['server/discover', 'initialize', 'notifications/initialized'],
    );
    await client.callTool('echo', { text: 'legacy' });
    await client.close();
  });

  function legacyOnly() {
    const server = new Server({ name: 'old', version: '1' }, { revisions: LEGACY_REVISIONS });
    server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
    return server;
  }

  test('auto with a real legacy-only Server passes the schema checks on both sides', async () => {
    const pair = await connectPair(legacyOnly());
    assert.equal(pair.client.era, 'legacy');
    pair.assertClean();
    await pair.close();
  });

  for (const [what, discover] of [
    ['-32601', { error: { code: -32601, message: 'Method not found' } }],
    ['-32602 (not initialized)', { error: { code: -32602, message: 'Not initialized' } }],
    [
      '-32022 with only unknown versions',
      {
        error: { code: -32022, message: 'no', data: { supported: ['2099-01-01'], requested: '2026-07-28' } },
      },
    ],
    ['an odd -32000', { error: { code: -32000, message: 'Server not initialized' } }],
    ['a result listing no version we speak', discoverResult({ supportedVersions: ['2099-01-01'] })],
  ] as [string, Answer][]) {
    test(`auto falls back to initialize when discover answers ${what}`, async () => {
      const fake = fakeServer((r) =>
        r.method === 'server/discover'
          ? discover
          : r.method === 'initialize'
            ? legacyInit('2025-03-26')
            : undefined,
      );
      const client = new Client({ name: 'c', version: '1' });
      await client.connect(fake.channel);
      assert.equal(client.revision, '2025-03-26');
      assert.deepEqual(
        fake.received.map((f) => f.method),
        ['server/discover', 'initialize', 'notifications/initialized'],
      );
      await client.close();
    });
  }

  test('-32022 listing the very version sent is retried once (auto and pinned); twice falls back or fails', async () => {
    const rejecting = (times: number) => {
      let left = times;
      return fakeServer((r) => {
        if (r.method === 'server/discover' && left-- > 0) {
          const data = { supported: ['2026-07-28'], requested: '2026-07-28' };
          return { error: { code: -32022, message: 'not here yet', data } };
        }
        if (r.method === 'server/discover') return discoverResult();
        return r.method === 'initialize' ? legacyInit('2025-11-25') : undefined;
      });
    };
    for (const version of ['auto', { pin: '2026-07-28' }] as const) {
      const fake = rejecting(1);
      const client = new Client({ name: 'c', version: '1' }, { version });
      await client.connect(fake.channel);
      assert.equal(client.revision, '2026-07-28');
      assert.deepEqual(
        fake.received.map((f) => f.method),
        ['server/discover', 'server/discover'],
      );
      await client.close();
    }
    const auto = new Client({ name: 'c', version: '1' });
    await auto.connect(rejecting(2).channel);
    assert.equal(auto.revision, '2025-11-25');
    await auto.close();
    const pinned = new Client({ name: 'c', version: '1' }, { version: { pin: '2026-07-28' } });
    await rejectsLocal(pinned.connect(rejecting(2).channel), 'NEGOTIATION_FAILED', '2026-07-28');
  });

  test('auto falls back after probeTimeoutMs when discover gets no answer', async () => {
    const fake = fakeServer((r) => (r.method === 'initialize' ? legacyInit('2025-11-25') : undefined));
    const client = new Client({ name: 'c', version: '1' }, { probeTimeoutMs: 15 });
    await client.connect(fake.channel);
    assert.equal(client.revision, '2025-11-25');
    assert.deepEqual(
      fake.received.map((f) => f.method),
      ['server/discover', 'notifications/cancelled', 'initialize', 'notifications/initialized'],
    );
    await client.close();
  });

  test('a server that hangs up on the probe: a channel factory opens a fresh channel for initialize', async () => {
    const opened: ReturnType<typeof fakeServer>[] = [];
    const open = () => {
      const fake = fakeServer((r) => {
        if (r.method === 'server/discover') {
          void fake.close();
          return undefined;
        }
        return r.method === 'initialize' ? legacyInit('2025-06-18') : undefined;
      });
      opened.push(fake);
      return fake.channel;
    };
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(open);
    assert.equal(client.revision, '2025-06-18');
    assert.equal(opened.length, 2);
    assert.deepEqual(
      opened[1]!.received.map((f) => f.method),
      ['initialize', 'notifications/initialized'],
    );
    await client.close();

    const once = fakeServer((r) => {
      if (r.method === 'server/discover') void once.close();
      return undefined;
    });
    await rejectsLocal(
      new Client({ name: 'c', version: '1' }).connect(once.channel),
      'CONNECTION_CLOSED',
      'Pass a channel factory',
    );
  });

  test('legacy and legacy pins never probe; a modern pin never initializes', async () => {
    for (const [version, methods] of [
      ['legacy', ['initialize', 'notifications/initialized']],
      [{ pin: '2025-03-26' }, ['initialize', 'notifications/initialized']],
      [{ pin: '2026-07-28' }, ['server/discover']],
    ] as const) {
      const { client, sent } = await recorded(makeServer(), { version });
      assert.deepEqual(
        sent.map((f) => f.method),
        methods,
      );
      if (typeof version === 'object') assert.equal(client.revision, version.pin);
      await client.close();
    }
  });

  test('a modern pin against a legacy-only server is NEGOTIATION_FAILED (the server error as cause)', async () => {
    const [clientEnd, serverEnd] = createLinkedChannels();
    legacyOnly().connect(serverEnd);
    const client = new Client({ name: 'c', version: '1' }, { version: { pin: '2026-07-28' } });
    await assert.rejects(client.connect(clientEnd), (error: unknown) => {
      assert.ok(error instanceof SwitchboardError);
      assert.equal(error.code, 'NEGOTIATION_FAILED');
      assert.match(error.message, /2026-07-28/);
      assert.ok(error.cause instanceof ProtocolError);
      assert.equal(error.cause.code, ErrorCode.UnsupportedProtocolVersion);
      return true;
    });
  });

  test('"legacy" against a modern-only server is NEGOTIATION_FAILED, with the -32022 as cause', async () => {
    const server = new Server({ name: 'new', version: '1' }, { revisions: ['2026-07-28'] });
    const [clientEnd, serverEnd] = createLinkedChannels();
    server.connect(serverEnd);
    const client = new Client({ name: 'c', version: '1' }, { version: 'legacy' });
    await assert.rejects(client.connect(clientEnd), (error: unknown) => {
      assert.ok(error instanceof SwitchboardError);
      assert.equal(error.code, 'NEGOTIATION_FAILED');
      assert.match(error.message, /refused initialize on protocol 2025-11-25/);
      assert.match(error.message, /use version "auto"/);
      assert.ok(error.cause instanceof ProtocolError);
      assert.deepEqual(error.cause.data, { supported: ['2026-07-28'], requested: '2025-11-25' });
      return true;
    });
    // "auto" finds the modern era on the same server.
    const pair = await connectPair(server);
    assert.equal(pair.client.revision, '2026-07-28');
    pair.assertClean();
    await pair.close();
  });

  test('initialize is never cancelled: a handshake timeout sends no notifications/cancelled', async () => {
    const fake = fakeServer(() => undefined);
    const client = new Client({ name: 'c', version: '1' }, { version: 'legacy', timeoutMs: 15 });
    await rejectsLocal(client.connect(fake.channel), 'TIMEOUT', "'initialize'");
    assert.deepEqual(
      fake.received.map((f) => f.method),
      ['initialize'],
    );
  });
});

describe('the 2026-07-28 result cache', () => {
  const listCalls = (sent: Frame[], method = 'tools/list') => sent.filter((f) => f.method === method).length;

  test('cacheable results are reused for ttlMs, then refetched', async () => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    try {
      const server = new Server(
        { name: 's', version: '1' },
        { listCache: { ttlMs: 1000, cacheScope: 'public' } },
      );
      server.registerTool('t', {}, () => 'x');
      const { client, sent } = await recorded(server, { version: { pin: '2026-07-28' } });
      await client.listTools();
      await client.listTools();
      assert.equal(listCalls(sent), 1);
      mock.timers.tick(999);
      await client.listTools();
      assert.equal(listCalls(sent), 1);
      mock.timers.tick(1);
      await client.listTools();
      assert.equal(listCalls(sent), 2, 'expired');
      await client.listTools({ fresh: true });
      assert.equal(listCalls(sent), 3, 'fresh skips the cache');
      await client.close();
    } finally {
      mock.timers.reset();
    }
  });

  test('ttlMs 0 is never cached; cache: false disables it; legacy results are never cached', async () => {
    const noTtl = new Server({ name: 's', version: '1' }, { listCache: { ttlMs: 0, cacheScope: 'public' } });
    noTtl.registerTool('t', {}, () => 'x');
    const a = await recorded(noTtl, { version: { pin: '2026-07-28' } });
    await a.client.listTools();
    await a.client.listTools();
    assert.equal(listCalls(a.sent), 2);
    const b = await recorded(makeServer(), { version: { pin: '2026-07-28' }, cache: false });
    await b.client.listTools();
    await b.client.listTools();
    assert.equal(listCalls(b.sent), 2);
    const c = await recorded(makeServer(), { version: { pin: '2025-11-25' } });
    await c.client.listTools();
    await c.client.listTools();
    assert.equal(listCalls(c.sent), 2);
    for (const x of [a, b, c]) await x.client.close();
  });

  test('list_changed invalidates the matching lists; resources/updated the read', async () => {
    const server = makeServer();
    server.registerResource('cached', 'mem://cached', { cache: { ttlMs: 60_000 } }, () => 'c');
    const { client, sent, connection } = await recorded(server, { version: { pin: '2026-07-28' } });
    await client.listTools();
    await client.listResources();
    await client.listResourceTemplates();
    await client.readResource('mem://cached');
    await client.readResource('mem://cached');
    assert.equal(listCalls(sent, 'resources/read'), 1);
    connection.peer.notify('notifications/tools/list_changed');
    await sleep(0); // let the notification arrive
    await client.listTools();
    await client.listResources();
    assert.equal(listCalls(sent), 2);
    assert.equal(listCalls(sent, 'resources/list'), 1, 'other lists stay cached');
    connection.peer.notify('notifications/resources/list_changed');
    await sleep(0);
    await client.listResources();
    await client.listResourceTemplates();
    assert.equal(listCalls(sent, 'resources/list'), 2);
    assert.equal(listCalls(sent, 'resources/templates/list'), 2);
    connection.peer.notify('notifications/resources/updated', { uri: 'mem://cached' });
    await sleep(0);
    await client.readResource('mem://cached');
    assert.equal(listCalls(sent, 'resources/read'), 2);
    await client.close();
  });

  test('the cache key is the method and its params: pages and uris are cached apart', async () => {
    const server = new Server({ name: 's', version: '1' }, { pageSize: 1 });
    server.registerTool('a', {}, () => 'a');
    server.registerTool('b', {}, () => 'b');
    const { client, sent } = await recorded(server, { version: { pin: '2026-07-28' } });
    const first = await client.listTools({ singlePage: true });
    const second = await client.listTools({ cursor: first.nextCursor! });
    assert.deepEqual([first.tools[0]!.name, second.tools[0]!.name], ['a', 'b']);
    await client.listTools();
    assert.equal(listCalls(sent), 2, 'the full walk was served from the cache');
    await client.close();
  });
});

describe('structured output on the client', () => {
  /** A server whose tools break their own outputSchema after the server's own check (middleware). */
  function lying() {
    const server = makeServer();
    server.intercept('tools/call', async (params, ctx, next) => {
      const result = (await next(params)) as CallToolResult;
      const mode = ctx.meta?.lie as string | undefined;
      if (mode === 'wrong') return { ...result, structuredContent: { n: 'one' } };
      if (mode === 'missing') return { content: result.content };
      if (mode === 'error') return { content: [{ type: 'text', text: 'failed' }], isError: true };
      return result;
    });
    return server;
  }

  for (const revision of ['2026-07-28', '2025-06-18'] as const) {
    test(`${revision}: results are checked against the listed outputSchema (isError results are not)`, async () => {
      const pair = await connectPair(lying(), { version: { pin: revision } });
      const { client } = pair;
      // Before listing, the client knows no schema: nothing to check.
      assert.deepEqual((await client.callTool('typed', {}, { meta: { lie: 'wrong' } })).structuredContent, {
        n: 'one',
      });
      await client.listTools();
      assert.deepEqual((await client.callTool('typed')).structuredContent, { n: 1 });
      await rejectsLocal(
        client.callTool('typed', {}, { meta: { lie: 'wrong' } }),
        'INVALID_RESULT',
        'Tool "typed" returned structuredContent that does not match its outputSchema',
        '"n"',
      );
      await rejectsLocal(
        client.callTool('typed', {}, { meta: { lie: 'missing' } }),
        'INVALID_RESULT',
        'has no structuredContent',
      );
      assert.equal((await client.callTool('typed', {}, { meta: { lie: 'error' } })).isError, true);
      await pair.close();
    });
  }

  test('output schemas are forgotten on reconnect (they belong to the server that listed them)', async () => {
    const first = makeServer();
    const second = new Server({ name: 'other', version: '1' });
    second.registerTool('typed', { outputSchema: z.object({ n: z.string() }) }, () => ({
      structuredContent: { n: 'text' },
    }));
    const client = new Client({ name: 'c', version: '1' });
    for (const [server, expected] of [
      [first, { n: 1 }],
      [second, { n: 'text' }],
    ] as const) {
      const [clientEnd, serverEnd] = createLinkedChannels();
      server.connect(serverEnd);
      await client.connect(clientEnd);
      if (server === first) await client.listTools();
      assert.deepEqual((await client.callTool('typed')).structuredContent, expected);
      await client.close();
    }
  });

  test('a schema the client cannot compile is reported to onerror and skipped', async () => {
    const errors: Error[] = [];
    const fake = fakeServer((r) => {
      if (r.method === 'initialize') return legacyInit('2025-06-18', { tools: {} });
      if (r.method === 'tools/list') {
        return {
          result: {
            tools: [
              {
                name: 'odd',
                inputSchema: { type: 'object' },
                outputSchema: { $schema: 'https://example.com/unknown-dialect' },
              },
            ],
          },
        };
      }
      return { result: { content: [], structuredContent: { anything: true } } };
    });
    const client = new Client(
      { name: 'c', version: '1' },
      { version: 'legacy', onerror: (e) => errors.push(e) },
    );
    await client.connect(fake.channel);
    await client.listTools();
    assert.equal(errors.length, 1);
    assert.deepEqual((await client.callTool('odd')).structuredContent, { anything: true });
    await client.close();
  });
});

describe('traffic from the server', () => {
  test('notifications reach on() listeners; a throwing listener goes to onerror', async () => {
    const errors: Error[] = [];
    const { client, connection } = await recorded(makeServer(), {
      version: { pin: '2025-11-25' },
      onerror: (e) => errors.push(e),
    });
    const got: unknown[] = [];
    client.on('notifications/message', (params) => got.push(params));
    client.on('notifications/message', () => {
      throw new Error('listener bug');
    });
    connection.peer.notify('notifications/message', { level: 'info', data: 'hello' });
    await client.ping();
    assert.deepEqual(got, [{ level: 'info', data: 'hello' }]);
    assert.deepEqual(
      errors.map((e) => e.message),
      ['listener bug'],
    );
    await client.close();
  });

  test('the client answers ping, and -32601 for requests it has no handler for', async () => {
    const { client, connection } = await recorded(makeServer(), { version: { pin: '2025-11-25' } });
    assert.deepEqual(await connection.peer.request('ping', undefined), {});
    await assert.rejects(connection.peer.request('roots/list', {}), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.MethodNotFound);
      assert.match(error.message, /roots\/list/);
      return true;
    });
    await client.close();
  });

  test('2026-07-28: server requests and JSON-RPC batches are refused; input handlers never run', async () => {
    const server = fakeServer((r): Answer => {
      if (r.method === 'server/discover') return discoverResult();
      if (r.method === 'tools/list')
        return { result: { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'public' } };
      return undefined;
    });
    const errors: Error[] = [];
    let asked = 0;
    const client = new Client(
      { name: 'c', version: '1' },
      { version: { pin: '2026-07-28' }, onerror: (e) => errors.push(e) },
    );
    client.onElicitation(() => {
      asked++;
      return { action: 'decline' };
    });
    await client.connect(server.channel);
    const elicit = {
      jsonrpc: '2.0',
      id: 'e1',
      method: 'elicitation/create',
      params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
    };
    server.send(elicit);
    server.send([
      { ...elicit, id: 'e2' },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ]);
    await client.listTools(); // a round trip: both arrived before its answer
    const answers = server.received.filter((f) => !('method' in f));
    assert.equal(answers.length, 2, JSON.stringify(answers));
    const refusal = answers.find((a) => a.id === 'e1');
    assert.equal(refusal?.error?.code, ErrorCode.InvalidRequest);
    assert.match(refusal!.error.message, /2026-07-28.*no requests to the client/);
    const batch = answers.find((a) => a.id === null);
    assert.match(batch!.error.message, /batches are allowed only on protocol 2025-03-26.*2026-07-28/);
    assert.equal(asked, 0);
    await client.close();
  });

  test('malformed frames from the server are answered and reported, and the client keeps working', async () => {
    const errors: Error[] = [];
    const { client, serverEnd, connection } = await recorded(makeServer(), {
      version: { pin: '2025-11-25' },
      onerror: (e) => errors.push(e),
    });
    void connection;
    serverEnd.send('{not json');
    serverEnd.send('{"jsonrpc":"2.0","id":"q"}');
    await client.ping();
    assert.equal(errors.length, 2);
    assert.ok(errors.every((e) => e instanceof ProtocolError));
    await client.close();
  });

  test('progress reaches onprogress and, by default, keeps the call alive past its timeout', async (t) => {
    const { client } = await recorded(makeServer(), { version: { pin: '2025-06-18' } });
    controlClock(t);
    const updates: unknown[] = [];
    // 30 steps of 4 ms of virtual time: 120 ms in all, twice the 60 ms timeout, with short gaps between reports.
    const steps = { steps: 30, every: 4 };
    const result = await settleOnClock(
      t,
      client.callTool('progress', steps, { timeoutMs: 60, onprogress: (u) => updates.push(u) }),
      { stepMs: 2 },
    );
    assert.ok('value' in result, String((result as { error?: unknown }).error));
    assert.deepEqual(result.value.content, [{ type: 'text', text: 'done' }]);
    assert.deepEqual(
      updates,
      Array.from({ length: 30 }, (_, i) => ({ progress: i + 1, total: 30 })),
    );
    for (const options of [
      { timeoutMs: 60, onprogress: () => {}, resetTimeoutOnProgress: false },
      { timeoutMs: 60, onprogress: () => {}, maxTotalTimeoutMs: 90 },
    ]) {
      const outcome = await settleOnClock(t, client.callTool('progress', steps, options), { stepMs: 2 });
      assert.ok('error' in outcome, 'it timed out');
      await rejectsLocal(Promise.reject(outcome.error), 'TIMEOUT');
    }
    await advance(t, 500, 2); // the abandoned handlers run out
    await client.close();
  });
});

/**
 * The legacy lifecycle (2024-11-05 .. 2025-11-25): initialize → notifications/initialized, version
 * negotiation exactly as the spec words it, capability negotiation in both directions, ping both
 * ways, what is refused before and after the handshake, instructions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import {
  featuresOf,
  LATEST_LEGACY_REVISION,
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  REVISIONS,
  type Revision,
} from '../../src/protocol/revisions.js';
import type { RequestContext } from '../../src/server/context.js';
import { fakeServer, legacyInit } from '../helpers/fake-server.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { openWire } from '../helpers/wire.js';

trapUnhandledRejections();

const INFO = {
  name: 'life',
  version: '2.0.0',
  title: 'Lifecycle',
  description: 'A server for lifecycle tests',
  websiteUrl: 'https://example.com',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
};

function fullServer(options: ConstructorParameters<typeof Server>[1] = {}) {
  const server = new Server(INFO, { instructions: 'Use the tools wisely.', ...options });
  server.registerTool('t', {}, () => 'ok');
  server.registerPrompt('p', {}, () => 'hi');
  server.registerResource('r', 'mem://r', {}, () => 'body');
  return server;
}

const rejectsWith = async (promise: Promise<unknown>, check: (error: any) => void) => {
  await assert.rejects(promise, (error: unknown) => {
    check(error);
    return true;
  });
};

describe('initialize: version negotiation', () => {
  for (const revision of LEGACY_REVISIONS) {
    test(`${revision} requested and supported → answered with ${revision}`, async () => {
      const wire = await openWire(fullServer(), { check: true });
      const result = await wire.initialize(revision);
      assert.equal(result.protocolVersion, revision);
      await wire.quiet();
      wire.assertClean();
      await wire.close();
    });
  }

  for (const requested of ['2024-10-07', '2099-01-01', 'not-a-version', '', '2026-07-28']) {
    test(`${JSON.stringify(requested)} (unsupported) → the server's latest legacy revision`, async () => {
      const wire = await openWire(fullServer());
      const result = await wire.initialize(requested);
      assert.equal(result.protocolVersion, LATEST_LEGACY_REVISION);
      await wire.close();
    });
  }

  test('a server serving only some legacy revisions answers with the latest of those', async () => {
    const server = new Server(INFO, { revisions: ['2025-03-26', '2024-11-05'] });
    for (const [requested, answered] of [
      ['2024-11-05', '2024-11-05'],
      ['2025-03-26', '2025-03-26'],
      ['2025-06-18', '2025-03-26'],
      ['2025-11-25', '2025-03-26'],
      ['2024-10-07', '2025-03-26'],
    ]) {
      const wire = await openWire(server);
      assert.equal((await wire.initialize(requested!)).protocolVersion, answered);
      await wire.close();
    }
  });

  test('a modern-only server answers initialize with -32022 listing what it supports', async () => {
    const wire = await openWire(new Server(INFO, { revisions: MODERN_REVISIONS }));
    const response = await wire.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    assert.equal(response.error.code, ErrorCode.UnsupportedProtocolVersion);
    assert.deepEqual(response.error.data, { supported: ['2026-07-28'], requested: '2025-06-18' });
    assert.match(response.error.message, /server\/discover/);
    await wire.close();
  });

  test('the client refuses a version it does not speak: NEGOTIATION_FAILED, connection closed', async () => {
    for (const answered of ['2024-10-07', '2026-07-28', 'bogus']) {
      const fake = fakeServer((r) => (r.method === 'initialize' ? legacyInit(answered) : undefined));
      const client = new Client({ name: 'c', version: '1' }, { version: 'legacy' });
      await rejectsWith(client.connect(fake.channel), (error) => {
        assert.ok(error instanceof SwitchboardError);
        assert.equal(error.code, 'NEGOTIATION_FAILED');
        assert.ok(error.message.includes(JSON.stringify(answered)), error.message);
      });
      assert.equal(fake.requests('initialize')[0]?.params.protocolVersion, LATEST_LEGACY_REVISION);
      // No initialized notification for a failed handshake, and the client is not usable.
      assert.equal(fake.received.filter((f) => f.method === 'notifications/initialized').length, 0);
      await rejectsWith(client.listTools(), (error) => assert.equal(error.code, 'NOT_CONNECTED'));
    }
  });

  test('the client accepts an older legacy version it speaks, unless pinned', async () => {
    const server = new Server(INFO, { revisions: ['2025-03-26'] });
    server.registerTool('t', {}, () => 'ok');
    const pair = await connectPair(server, { version: 'legacy' });
    assert.equal(pair.client.revision, '2025-03-26');
    pair.assertClean();
    await pair.close();
    await rejectsWith(connectPair(server, { version: { pin: '2025-06-18' } }), (error) => {
      assert.equal(error.code, 'NEGOTIATION_FAILED');
      assert.match(error.message, /pinned to 2025-06-18/);
    });
  });

  test('pinning an unknown revision is a CONFIG error', async () => {
    const fake = fakeServer(() => undefined);
    const client = new Client({ name: 'c', version: '1' }, { version: { pin: '2020-01-01' as Revision } });
    await rejectsWith(client.connect(fake.channel), (error) => assert.equal(error.code, 'CONFIG'));
  });
});

describe('initialize: what each side declares', () => {
  for (const revision of LEGACY_REVISIONS) {
    test(`${revision}: serverInfo, capabilities and instructions as the revision defines them`, async () => {
      const pair = await connectPair(fullServer(), { version: { pin: revision } });
      const { client } = pair;
      const f = featuresOf(revision);
      assert.equal(client.revision, revision);
      assert.equal(client.era, 'legacy');
      const expectedInfo: Record<string, unknown> = { name: 'life', version: '2.0.0' };
      if (f.structured) expectedInfo.title = 'Lifecycle';
      if (f.icons) Object.assign(expectedInfo, INFO);
      assert.deepEqual(client.serverInfo, expectedInfo);
      const expectedCaps: Record<string, unknown> = {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        logging: {},
      };
      if (f.annotations) expectedCaps.completions = {};
      assert.deepEqual(client.serverCapabilities, expectedCaps);
      assert.equal(client.instructions, 'Use the tools wisely.');
      pair.assertClean();
      await pair.close();
    });
  }

  test('the server advertises only what it has', async () => {
    const cases: [string, (s: Server) => void, Record<string, unknown>][] = [
      ['nothing', () => {}, { logging: {} }],
      ['a tool', (s) => s.registerTool('t', {}, () => 'x'), { tools: { listChanged: true }, logging: {} }],
      [
        'a prompt',
        (s) => s.registerPrompt('p', {}, () => 'x'),
        { prompts: { listChanged: true }, completions: {}, logging: {} },
      ],
      [
        'a static resource',
        (s) => s.registerResource('r', 'mem://r', {}, () => 'x'),
        { resources: { subscribe: true, listChanged: true }, logging: {} },
      ],
      [
        'a template',
        (s) => s.registerResourceTemplate('t', 'mem://{id}', {}, () => 'x'),
        { resources: { subscribe: true, listChanged: true }, completions: {}, logging: {} },
      ],
    ];
    for (const [what, setup, expected] of cases) {
      const server = new Server(INFO);
      setup(server);
      const wire = await openWire(server, { check: true });
      const result = await wire.initialize('2025-11-25');
      assert.deepEqual(result.capabilities, expected, what);
      assert.equal(result.instructions, undefined, 'no instructions configured, none sent');
      wire.assertClean();
      await wire.close();
    }
  });

  test('capabilities given in the options are merged (experimental; explicit overrides)', async () => {
    const server = new Server(INFO, {
      capabilities: { experimental: { 'x.example/feature': { on: true } }, tools: { listChanged: false } },
    });
    server.registerTool('t', {}, () => 'x');
    const wire = await openWire(server);
    const result = await wire.initialize('2025-06-18');
    assert.deepEqual(result.capabilities, {
      experimental: { 'x.example/feature': { on: true } },
      tools: { listChanged: false },
      logging: {},
    });
    await wire.close();
  });

  test('methods of a capability the server lacks answer -32601', async () => {
    const server = new Server(INFO);
    server.registerTool('t', {}, () => 'x');
    const wire = await openWire(server);
    await wire.initialize('2025-11-25');
    for (const method of [
      'prompts/list',
      'prompts/get',
      'resources/list',
      'resources/read',
      'resources/templates/list',
    ]) {
      const response = await wire.request(method, { name: 'x', uri: 'mem://x' });
      assert.equal(response.error?.code, ErrorCode.MethodNotFound, method);
      assert.match(response.error.message, /does not offer (prompts|resources)/);
    }
    const complete = await wire.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'x' },
      argument: { name: 'a', value: '' },
    });
    assert.equal(complete.error?.code, ErrorCode.MethodNotFound, 'completion/complete without completions');
    await wire.close();
  });

  for (const revision of REVISIONS) {
    test(`${revision}: client capabilities and info are encoded for the revision`, async () => {
      const server = new Server(INFO);
      let seen: RequestContext['client'] | undefined;
      server.registerTool('who', {}, (_args, ctx) => {
        seen = ctx.client;
        return 'x';
      });
      const pair = await connectPair(server, {
        version: { pin: revision },
        capabilities: {
          roots: { listChanged: true },
          sampling: {},
          elicitation: { form: {}, url: {} },
          experimental: { 'x.example/y': {} },
        },
      });
      await pair.client.callTool('who');
      const f = featuresOf(revision);
      const expected: Record<string, unknown> = {
        roots: f.modern ? {} : { listChanged: true },
        sampling: {},
        experimental: { 'x.example/y': {} },
      };
      if (f.structured) expected.elicitation = f.icons ? { form: {}, url: {} } : {};
      assert.deepEqual(seen?.capabilities, expected);
      assert.deepEqual(seen?.info, { name: 'test-client', version: '1.0.0' });
      pair.assertClean();
      await pair.close();
    });
  }

  test('client info keeps title/icons/description only where the revision has them', async () => {
    const info = {
      name: 'rich',
      version: '1',
      title: 'Rich',
      description: 'd',
      websiteUrl: 'https://example.com',
      icons: [{ src: 'https://example.com/i.png' }],
    };
    for (const revision of LEGACY_REVISIONS) {
      const fake = fakeServer((r) => (r.method === 'initialize' ? legacyInit(revision) : undefined));
      const client = new Client(info, { version: { pin: revision } });
      await client.connect(fake.channel);
      const sent = fake.requests('initialize')[0]!.params.clientInfo;
      const f = featuresOf(revision);
      const expected: Record<string, unknown> = { name: 'rich', version: '1' };
      if (f.structured) expected.title = 'Rich';
      if (f.icons) Object.assign(expected, info);
      assert.deepEqual(sent, expected, revision);
      await client.close();
    }
  });
});

describe('the handshake itself', () => {
  test('the client sends notifications/initialized right after the initialize result', async () => {
    const fake = fakeServer((r) => (r.method === 'initialize' ? legacyInit('2025-06-18') : { result: {} }));
    const client = new Client({ name: 'c', version: '1' }, { version: 'legacy' });
    await client.connect(fake.channel);
    await client.ping();
    assert.deepEqual(
      fake.received.map((f) => f.method),
      ['initialize', 'notifications/initialized', 'ping'],
    );
    assert.equal(fake.received[1]!.id, undefined);
    await client.close();
  });

  test('requests before initialize are refused with -32602 (ping is allowed)', async () => {
    const wire = await openWire(fullServer());
    assert.deepEqual((await wire.request('ping')).result, {});
    for (const method of ['tools/list', 'tools/call', 'prompts/list', 'resources/read', 'logging/setLevel']) {
      const response = await wire.request(method, { name: 't', uri: 'mem://r', level: 'info' });
      assert.equal(response.error?.code, ErrorCode.InvalidParams, method);
      assert.match(response.error.message, /before the connection was initialized/);
      assert.match(response.error.message, /initialize first/);
    }
    // The connection is still fresh: initialize works afterwards.
    assert.equal((await wire.initialize('2025-06-18')).protocolVersion, '2025-06-18');
    await wire.close();
  });

  test('a second initialize is refused with -32600; the first negotiation stands', async () => {
    const wire = await openWire(fullServer());
    await wire.initialize('2025-03-26');
    const again = await wire.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    assert.equal(again.error.code, ErrorCode.InvalidRequest);
    assert.match(again.error.message, /already initialized \(protocol 2025-03-26\)/);
    assert.equal(wire.connection.session?.revision, '2025-03-26');
    await wire.close();
  });

  test('malformed initialize params → -32602, and the connection stays uninitialized', async () => {
    const wire = await openWire(fullServer());
    const bad = [
      { capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      { protocolVersion: 2025, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      { protocolVersion: '2025-06-18', clientInfo: { name: 'x', version: '1' } },
      { protocolVersion: '2025-06-18', capabilities: [], clientInfo: { name: 'x', version: '1' } },
      { protocolVersion: '2025-06-18', capabilities: {} },
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x' } },
      {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
        _meta: 'x',
      },
    ];
    for (const params of bad) {
      const response = await wire.request('initialize', params);
      assert.equal(response.error?.code, ErrorCode.InvalidParams, JSON.stringify(params));
      assert.match(response.error.message, /Invalid params for 'initialize'/);
    }
    const noParams = await wire.request('initialize');
    assert.equal(noParams.error?.code, ErrorCode.InvalidParams);
    assert.equal(wire.connection.session, undefined);
    assert.equal((await wire.initialize('2025-06-18')).protocolVersion, '2025-06-18');
    await wire.close();
  });

  test('notifications/initialized before initialize is not answered, and reported to onerror', async () => {
    const errors: Error[] = [];
    const wire = await openWire(fullServer({ onerror: (e) => errors.push(e) }));
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await wire.quiet();
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof ProtocolError);
    assert.match(errors[0]!.message, /before initialize/);
    await wire.close();
  });

  for (const revision of LEGACY_REVISIONS) {
    test(`${revision}: ping works in both directions`, async () => {
      const server = fullServer();
      let connection: ReturnType<Server['connect']> | undefined;
      const connect = server.connect.bind(server);
      server.connect = (channel) => {
        connection = connect(channel);
        return connection;
      };
      const pair = await connectPair(server, { version: { pin: revision } });
      await pair.client.ping();
      assert.deepEqual(await connection!.peer.request('ping', undefined), {});
      pair.assertClean();
      await pair.close();
    });
  }

  test('2026-07-28 has no ping: the client call fails with -32601', async () => {
    const pair = await connectPair(fullServer(), { version: { pin: '2026-07-28' } });
    await rejectsWith(pair.client.ping(), (error) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.MethodNotFound);
      assert.match(error.message, /not part of protocol revision 2026-07-28/);
    });
    // (No assertClean: the client did send a method 2026-07-28 lacks — that is what is tested.)
    await pair.close();
  });

  test('instructions reach the client in every revision', async () => {
    for (const revision of REVISIONS) {
      const pair = await connectPair(fullServer(), { version: { pin: revision } });
      assert.equal(pair.client.instructions, 'Use the tools wisely.', revision);
      await pair.close();
    }
    const pair = await connectPair(new Server(INFO), { version: { pin: '2025-06-18' } });
    assert.equal(pair.client.instructions, undefined);
    await pair.close();
  });

  test('the legacy session records revision, client and log level', async () => {
    const server = fullServer();
    server.registerTool('level', {}, (_a, ctx) => {
      ctx.log('info', 'visible');
      ctx.log('debug', 'hidden');
      return 'x';
    });
    const wire = await openWire(server, { check: true });
    await wire.initialize('2025-06-18', { roots: {} });
    assert.equal(wire.connection.session?.initialized, true);
    assert.deepEqual(wire.connection.session?.client.capabilities, { roots: {} });
    assert.deepEqual((await wire.request('logging/setLevel', { level: 'info' })).result, {});
    assert.equal(wire.connection.session?.logLevel, 'info');
    const bad = await wire.request('logging/setLevel', { level: 'loud' });
    assert.equal(bad.error.code, ErrorCode.InvalidParams);
    await wire.request('tools/call', { name: 'level' });
    assert.deepEqual(
      wire.notifications.map((n) => [n.method, n.params.level, n.params.data]),
      [['notifications/message', 'info', 'visible']],
    );
    wire.assertClean();
    await wire.close();
  });
});

test('Server options are checked at construction', () => {
  const config = (fn: () => unknown, fragment: RegExp) =>
    assert.throws(
      fn,
      (e: unknown) => e instanceof SwitchboardError && e.code === 'CONFIG' && fragment.test(e.message),
    );
  config(() => new Server({ name: 'x' } as never), /needs a string "name" and "version"/);
  config(() => new Server(undefined as never), /needs a string "name" and "version"/);
  config(
    () => new Server(INFO, { revisions: ['2024-10-07' as Revision] }),
    /Unknown protocol revision "2024-10-07"/,
  );
});

test('version negotiation option "legacy" never probes server/discover', async () => {
  const fake = fakeServer((r) => (r.method === 'initialize' ? legacyInit('2025-11-25') : undefined));
  const client = new Client({ name: 'c', version: '1' }, { version: 'legacy' });
  await client.connect(fake.channel);
  assert.equal(fake.requests('server/discover').length, 0);
  await client.close();
});

test('a zod-typed server still initializes cleanly on every legacy revision', async () => {
  const server = new Server(INFO);
  server.registerTool('a', { inputSchema: z.object({ x: z.number() }) }, ({ x }) => String(x));
  for (const revision of LEGACY_REVISIONS) {
    const pair = await connectPair(server, { version: { pin: revision } });
    assert.equal((await pair.client.callTool('a', { x: 1 })).isError, undefined);
    pair.assertClean();
    await pair.close();
  }
});

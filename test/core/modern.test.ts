/**
 * The modern era (2026-07-28): server/discover, the `_meta` envelope on every request and its
 * errors, `resultType` and cache hints on results, what no longer exists, and a dual-era server
 * that decides per message.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import type { Channel, ChannelSink, FrameInfo } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { META } from '../../src/protocol/meta.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import type { RequestContext } from '../../src/server/context.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { envelope, type Frame, MODERN, openWire } from '../helpers/wire.js';

trapUnhandledRejections();

const INFO = {
  name: 'modern',
  version: '3.1.0',
  title: 'Modern',
  icons: [{ src: 'https://example.com/m.png', mimeType: 'image/png' }],
};

function makeServer(options: ConstructorParameters<typeof Server>[1] = {}) {
  const server = new Server(INFO, { instructions: 'Be modern.', ...options });
  server.registerTool(
    'add',
    {
      title: 'Add',
      icons: [{ src: 'https://example.com/add.png' }],
      inputSchema: z.object({ a: z.number(), b: z.number() }),
    },
    ({ a, b }) => String(a + b),
  );
  server.registerTool('ctx', {}, (_args, ctx) => {
    ctx.log('info', 'an info log');
    ctx.progress(1, 2, 'half');
    return JSON.stringify({ era: ctx.era, revision: ctx.revision, client: ctx.client });
  });
  server.registerPrompt(
    'p',
    { arguments: [{ name: 'x' }], complete: { x: () => ['one', 'two'] } },
    () => 'hi',
  );
  server.registerResource('r', 'mem://r', { mimeType: 'text/plain' }, () => 'body');
  server.registerResource(
    'cached',
    'mem://cached',
    { cache: { ttlMs: 5000, cacheScope: 'private' } },
    () => 'c',
  );
  server.registerResourceTemplate('t', 'mem://items/{id}', {}, (_uri, { id }) => `item ${id}`);
  return server;
}

const SERVER_INFO_META = { [META.serverInfo]: INFO };
/** What every other result carries: what the spec asks of serverInfo (name and version), no more. */
const BRIEF_INFO_META = { [META.serverInfo]: { name: INFO.name, version: INFO.version } };

describe('server/discover', () => {
  test('answers versions, capabilities, instructions, cache hints and serverInfo', async () => {
    const wire = await openWire(makeServer(), { check: true });
    const response = await wire.modern('server/discover');
    assert.deepEqual(response.result, {
      supportedVersions: [MODERN],
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
        logging: {},
      },
      instructions: 'Be modern.',
      resultType: 'complete',
      ttlMs: 60000,
      cacheScope: 'public',
      _meta: SERVER_INFO_META,
    });
    wire.assertClean();
    await wire.close();
  });

  test('listCache sets the hint; no instructions configured means none sent', async () => {
    const server = new Server(INFO, { listCache: { ttlMs: 1234, cacheScope: 'private' } });
    const wire = await openWire(server, { check: true });
    const { result } = await wire.modern('server/discover');
    assert.equal(result.ttlMs, 1234);
    assert.equal(result.cacheScope, 'private');
    assert.equal('instructions' in result, false);
    assert.deepEqual(result.capabilities, { logging: {} });
    wire.assertClean();
    await wire.close();
  });

  test('the client reads the discover result into its negotiated facts', async () => {
    const pair = await connectPair(makeServer(), { version: { pin: MODERN } });
    const { client } = pair;
    assert.equal(client.revision, MODERN);
    assert.equal(client.era, 'modern');
    assert.deepEqual(client.serverInfo, INFO);
    assert.equal(client.instructions, 'Be modern.');
    assert.deepEqual(client.serverCapabilities.tools, { listChanged: true });
    pair.assertClean();
    await pair.close();
  });
});

describe('the _meta envelope', () => {
  test('the client sends it on every request, with its capabilities and info', async () => {
    const server = makeServer();
    const [clientEnd, serverEnd] = createLinkedChannels();
    server.connect(serverEnd);
    const sent: Frame[] = [];
    const recording: Channel = {
      start: (sink: ChannelSink) => clientEnd.start(sink),
      send: (frame: string, info?: FrameInfo) => {
        sent.push(JSON.parse(frame));
        clientEnd.send(frame, info);
      },
      close: () => clientEnd.close(),
    };
    const client = new Client(
      { name: 'env', version: '9' },
      { version: { pin: MODERN }, capabilities: { elicitation: {} } },
    );
    await client.connect(recording);
    await client.listTools();
    await client.callTool('add', { a: 1, b: 2 }, { meta: { [META.logLevel]: 'debug', traceparent: 'x' } });
    await client.listPrompts();
    await client.getPrompt('p');
    await client.listResources();
    await client.listResourceTemplates();
    await client.readResource('mem://r');
    await client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } });
    const requests = sent.filter((f) => 'id' in f);
    assert.equal(requests.length, 9);
    for (const request of requests) {
      const meta = request.params._meta;
      assert.equal(meta[META.protocolVersion], MODERN, request.method);
      assert.deepEqual(meta[META.clientCapabilities], { elicitation: {} });
      assert.deepEqual(meta[META.clientInfo], { name: 'env', version: '9' });
    }
    const call = requests.find((r) => r.method === 'tools/call')!;
    assert.equal(call.params._meta[META.logLevel], 'debug');
    assert.equal(call.params._meta.traceparent, 'x');
    await client.close();
  });

  for (const version of ['2027-01-01', '2025-06-18', 'draft', 5]) {
    test(`an unsupported version ${JSON.stringify(version)} → -32022 with data.supported/requested`, async () => {
      const wire = await openWire(makeServer(), { check: true });
      const response = await wire.modern('tools/list', {}, { [META.protocolVersion]: version });
      assert.equal(response.error.code, ErrorCode.UnsupportedProtocolVersion);
      assert.deepEqual(response.error.data, { supported: [MODERN], requested: String(version) });
      assert.match(response.error.message, /Unsupported protocol version/);
      wire.assertClean();
      await wire.close();
    });
  }

  test('a legacy-only server answers a modern request with -32022 and no modern version', async () => {
    const wire = await openWire(makeServer({ revisions: LEGACY_REVISIONS }));
    const response = await wire.modern('server/discover');
    assert.equal(response.error.code, ErrorCode.UnsupportedProtocolVersion);
    assert.deepEqual(response.error.data, { supported: [], requested: MODERN });
    assert.match(response.error.message, /send initialize/);
    await wire.close();
  });

  test('no envelope on a fresh connection → -32602', async () => {
    const wire = await openWire(makeServer());
    for (const params of [{}, { _meta: {} }, { _meta: { progressToken: 1 } }]) {
      const response = await wire.request('tools/list', params);
      assert.equal(response.error.code, ErrorCode.InvalidParams);
      assert.match(response.error.message, /_meta\["io.modelcontextprotocol\/protocolVersion"\]/);
    }
    await wire.close();
  });

  for (const capabilities of [undefined, null, [], 'x']) {
    test(`clientCapabilities ${JSON.stringify(capabilities)} → -32602`, async () => {
      const wire = await openWire(makeServer(), { check: true });
      const meta = envelope();
      if (capabilities === undefined) delete meta[META.clientCapabilities];
      else meta[META.clientCapabilities] = capabilities;
      const response = await wire.request('tools/list', { _meta: meta });
      assert.equal(response.error.code, ErrorCode.InvalidParams);
      assert.match(response.error.message, /clientCapabilities/);
      wire.assertClean();
      await wire.close();
    });
  }

  for (const level of ['verbose', 3, null]) {
    test(`a bad logLevel ${JSON.stringify(level)} → -32602`, async () => {
      const wire = await openWire(makeServer(), { check: true });
      const response = await wire.modern('tools/list', {}, { [META.logLevel]: level });
      assert.equal(response.error.code, ErrorCode.InvalidParams);
      assert.match(response.error.message, /logLevel/);
      assert.match(response.error.message, /debug, info/);
      wire.assertClean();
      await wire.close();
    });
  }

  test('clientInfo is optional (SHOULD): a request without it is served', async () => {
    const wire = await openWire(makeServer(), { check: true });
    const meta = envelope();
    delete meta[META.clientInfo];
    const response = await wire.request('tools/call', { name: 'ctx', _meta: meta });
    const seen = JSON.parse(response.result.content[0].text);
    assert.deepEqual(seen.client, { capabilities: {} });
    wire.assertClean();
    await wire.close();
  });
});

describe('results', () => {
  const calls: [string, Record<string, unknown>, boolean][] = [
    ['tools/list', {}, true],
    ['tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, false],
    ['prompts/list', {}, true],
    ['prompts/get', { name: 'p' }, false],
    ['resources/list', {}, true],
    ['resources/templates/list', {}, true],
    ['resources/read', { uri: 'mem://r' }, true],
    ['resources/read', { uri: 'mem://items/7' }, true],
    [
      'completion/complete',
      { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } },
      false,
    ],
    ['server/discover', {}, true],
  ];
  for (const [method, params, cacheable] of calls) {
    test(`${method}: resultType "complete", serverInfo${cacheable ? ', ttlMs and cacheScope' : ', no cache hints'}`, async () => {
      const wire = await openWire(makeServer(), { check: true });
      const { result } = await wire.modern(method, params);
      assert.equal(result.resultType, 'complete');
      // The whole Implementation (title, icons...) once, in the discover result; name and version elsewhere.
      assert.deepEqual(result._meta, method === 'server/discover' ? SERVER_INFO_META : BRIEF_INFO_META);
      if (cacheable) {
        assert.equal(typeof result.ttlMs, 'number');
        assert.equal(result.cacheScope, 'public');
      } else {
        assert.equal('ttlMs' in result, false);
        assert.equal('cacheScope' in result, false);
      }
      wire.assertClean();
      await wire.close();
    });
  }

  test('lists use the server list hint; reads default to ttlMs 0 unless the resource sets one', async () => {
    const wire = await openWire(makeServer(), { check: true });
    assert.equal((await wire.modern('tools/list')).result.ttlMs, 60000);
    const plain = (await wire.modern('resources/read', { uri: 'mem://r' })).result;
    assert.deepEqual([plain.ttlMs, plain.cacheScope], [0, 'public']);
    const cached = (await wire.modern('resources/read', { uri: 'mem://cached' })).result;
    assert.deepEqual([cached.ttlMs, cached.cacheScope], [5000, 'private']);
    wire.assertClean();
    await wire.close();
  });

  test('the same memoized list serves both eras correctly, in any order', async () => {
    const server = makeServer();
    const wire = await openWire(server, { check: true });
    await wire.initialize('2024-11-05');
    for (let i = 0; i < 2; i++) {
      const legacy = (await wire.request('tools/list')).result;
      assert.equal(legacy.resultType, undefined);
      assert.equal(legacy.tools[0].title, undefined);
      const modern = (await wire.modern('tools/list')).result;
      assert.equal(modern.resultType, 'complete');
      assert.equal(modern.tools[0].title, 'Add');
    }
    wire.assertClean();
    await wire.close();
  });
});

describe('what 2026-07-28 removed', () => {
  for (const [method, params] of [
    ['ping', {}],
    ['logging/setLevel', { level: 'info' }],
    ['resources/subscribe', { uri: 'mem://r' }],
    ['resources/unsubscribe', { uri: 'mem://r' }],
    ['initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
    ['tasks/result', { taskId: 'x' }],
    ['no/such-method', {}],
  ] as const) {
    test(`${method} → -32601`, async () => {
      const wire = await openWire(makeServer());
      const response = await wire.modern(method, params);
      assert.equal(response.error.code, ErrorCode.MethodNotFound);
      assert.match(response.error.message, new RegExp(`Method not found: ${method}`));
      await wire.close();
    });
  }

  test('a missing resource is -32602 on 2026-07-28 and -32002 on legacy revisions', async () => {
    const wire = await openWire(makeServer(), { check: true });
    const modern = await wire.modern('resources/read', { uri: 'mem://nope' });
    assert.equal(modern.error.code, ErrorCode.InvalidParams);
    assert.deepEqual(modern.error.data, { uri: 'mem://nope' });
    await wire.initialize('2025-11-25');
    const legacy = await wire.request('resources/read', { uri: 'mem://nope' });
    assert.equal(legacy.error.code, ErrorCode.ResourceNotFound);
    assert.match(legacy.error.message, /Resource not found: mem:\/\/nope/);
    wire.assertClean();
    await wire.close();
  });
});

describe('a dual-era server', () => {
  test('serves legacy and modern clients at once from the same definitions', async () => {
    const server = makeServer();
    const legacy = await connectPair(server, { version: { pin: '2025-06-18' } });
    const modern = await connectPair(server, { version: 'auto' });
    assert.equal(legacy.client.era, 'legacy');
    assert.equal(modern.client.era, 'modern');
    const [a, b] = await Promise.all([
      legacy.client.callTool('add', { a: 1, b: 1 }),
      modern.client.callTool('add', { a: 2, b: 2 }),
    ]);
    assert.deepEqual(a.content, [{ type: 'text', text: '2' }]);
    assert.deepEqual(b.content, [{ type: 'text', text: '4' }]);
    const legacyTools = await legacy.client.listTools();
    const modernTools = await modern.client.listTools();
    assert.equal(legacyTools.tools[0]!.icons, undefined, '2025-06-18 has no icons');
    assert.deepEqual(modernTools.tools[0]!.icons, [{ src: 'https://example.com/add.png' }]);
    legacy.assertClean();
    modern.assertClean();
    await legacy.close();
    await modern.close();
  });

  test('modern requests after a legacy initialize are handled statelessly, from their own envelope', async () => {
    const wire = await openWire(makeServer(), { check: true });
    await wire.initialize('2024-11-05', { roots: { listChanged: true } });
    const legacy = JSON.parse((await wire.request('tools/call', { name: 'ctx' })).result.content[0].text);
    assert.deepEqual(legacy, {
      era: 'legacy',
      revision: '2024-11-05',
      client: { info: { name: 'wire', version: '1.0.0' }, capabilities: { roots: { listChanged: true } } },
    });
    const response = await wire.modern(
      'tools/call',
      { name: 'ctx' },
      {
        [META.clientCapabilities]: { elicitation: {} },
        [META.clientInfo]: { name: 'other', version: '2' },
      },
    );
    assert.equal(response.result.resultType, 'complete');
    assert.deepEqual(JSON.parse(response.result.content[0].text), {
      era: 'modern',
      revision: MODERN,
      client: { info: { name: 'other', version: '2' }, capabilities: { elicitation: {} } },
    });
    // The legacy session is untouched.
    assert.equal(wire.connection.session?.revision, '2024-11-05');
    wire.assertClean();
    await wire.close();
  });

  test('a modern request on a fresh connection opens no session: initialize still works afterwards', async () => {
    const wire = await openWire(makeServer());
    assert.equal((await wire.modern('tools/list')).result.resultType, 'complete');
    assert.equal(wire.connection.session, undefined);
    const legacyRequest = await wire.request('tools/list');
    assert.equal(legacyRequest.error.code, ErrorCode.InvalidParams, 'still not initialized');
    assert.equal((await wire.initialize('2025-03-26')).protocolVersion, '2025-03-26');
    await wire.close();
  });
});

describe('per-request logging and progress', () => {
  test('notifications/message only when the request names a logLevel the message passes', async () => {
    const wire = await openWire(makeServer(), { check: true });
    await wire.modern('tools/call', { name: 'ctx' });
    assert.deepEqual(wire.notifications, []);
    await wire.modern('tools/call', { name: 'ctx' }, { [META.logLevel]: 'warning' });
    assert.deepEqual(wire.notifications, []);
    await wire.modern('tools/call', { name: 'ctx' }, { [META.logLevel]: 'info' });
    assert.deepEqual(wire.notifications, [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'an info log' } },
    ]);
    wire.assertClean();
    await wire.close();
  });

  test('progress flows when the request carries a progressToken', async () => {
    const wire = await openWire(makeServer(), { check: true });
    await wire.modern('tools/call', { name: 'ctx' }, { progressToken: 'tok' });
    assert.deepEqual(wire.notifications, [
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 2, message: 'half' },
      },
    ]);
    wire.assertClean();
    await wire.close();
  });

  test('the client receives progress through onprogress on both eras', async () => {
    for (const version of [MODERN, '2025-03-26', '2024-11-05'] as const) {
      const pair = await connectPair(makeServer(), { version: { pin: version } });
      const updates: unknown[] = [];
      await pair.client.callTool('ctx', {}, { onprogress: (u) => updates.push(u) });
      assert.deepEqual(
        updates,
        [version === '2024-11-05' ? { progress: 1, total: 2 } : { progress: 1, total: 2, message: 'half' }],
        version,
      );
      pair.assertClean();
      await pair.close();
    }
  });
});

test('RequestContext exposes revision, era, client and meta to handlers on 2026-07-28', async () => {
  const server = new Server(INFO);
  let seen: RequestContext | undefined;
  server.registerTool('see', {}, (_args, ctx) => {
    seen = ctx;
    return 'x';
  });
  const pair = await connectPair(server, { version: { pin: MODERN }, capabilities: { roots: {} } });
  await pair.client.callTool('see', undefined, { meta: { custom: 1 } });
  assert.equal(seen?.method, 'tools/call');
  assert.equal(seen?.revision, MODERN);
  assert.equal(seen?.era, 'modern');
  assert.deepEqual(seen?.client.capabilities, { roots: {} });
  assert.equal(seen?.meta?.custom, 1);
  assert.equal(typeof seen?.requestId, 'number');
  pair.assertClean();
  await pair.close();
});

test('an unknown prompt reaches the modern client as a ProtocolError -32602', async () => {
  const pair = await connectPair(makeServer(), { version: { pin: MODERN } });
  await assert.rejects(pair.client.getPrompt('nope'), (error: unknown) => {
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, ErrorCode.InvalidParams);
    return true;
  });
  pair.assertClean();
  await pair.close();
});

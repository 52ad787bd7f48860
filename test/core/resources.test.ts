/**
 * Resources: static text and binary resources, RFC 6570 templates (matching, variables), template
 * `list` feeding resources/list, what read handlers may return, and the missing-resource code of each
 * revision.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { featuresOf, REVISIONS } from '../../src/protocol/revisions.js';
import type { RequestContext } from '../../src/server/context.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { openWire } from '../helpers/wire.js';

trapUnhandledRejections();

const BYTES = new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]);
const BYTES_B64 = '3q2+7wD/';

function makeServer() {
  const server = new Server({ name: 'res', version: '1.0.0' });
  server.registerResource(
    'notes',
    'file:///notes.txt',
    { mimeType: 'text/plain', description: 'notes' },
    () => 'my notes',
  );
  server.registerResource('logo', 'file:///logo.png', { mimeType: 'image/png', size: 6 }, () => BYTES);
  server.registerResource('untyped', 'mem://untyped', {}, () => 'no mime');
  server.registerResource('contents', 'mem://contents', {}, (uri) => ({
    uri,
    text: 'one',
    mimeType: 'text/x-one',
  }));
  server.registerResource('many', 'mem://many', {}, (uri) => [
    { uri: `${uri}#a`, text: 'a' },
    { uri: `${uri}#b`, blob: 'AA==' },
  ]);
  server.registerResource('full', 'mem://full', {}, (uri) => ({
    contents: [{ uri, text: 'full' }],
    _meta: { m: 1 },
  }));
  server.registerResource('async', 'mem://async', {}, async () => {
    await Promise.resolve();
    return 'later';
  });
  server.registerResource('throws', 'mem://throws', {}, () => {
    throw new Error('storage offline');
  });
  server.registerResource('protocol', 'mem://protocol', {}, () => {
    throw new ProtocolError(-31000, 'custom', { why: 'because' });
  });
  server.registerResource('weird', 'mem://weird', {}, () => 42 as never);
  server.registerResource('shadow', 'mem://users/static', {}, () => 'the static one wins');
  server.registerResourceTemplate('user', 'mem://users/{id}', { mimeType: 'application/json' }, (uri, vars) =>
    JSON.stringify({ uri, vars }),
  );
  server.registerResourceTemplate(
    'file',
    'file:///docs/{+path}',
    { mimeType: 'text/markdown' },
    (_uri, { path }) => `doc ${path}`,
  );
  server.registerResourceTemplate('search', 'mem://search{?q,limit}', {}, (_uri, vars) =>
    JSON.stringify(vars),
  );
  server.registerResourceTemplate('pair', 'mem://pair/{a}/{b}', {}, (_uri, vars) => JSON.stringify(vars));
  return server;
}

const textOf = (result: { contents: unknown[] }) => (result.contents[0] as { text: string }).text;

for (const revision of REVISIONS) {
  describe(`resources on ${revision}`, () => {
    test('static text and binary resources, mimeType applied to bodies', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      assert.deepEqual((await client.readResource('file:///notes.txt')).contents, [
        { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'my notes' },
      ]);
      assert.deepEqual((await client.readResource('file:///logo.png')).contents, [
        { uri: 'file:///logo.png', mimeType: 'image/png', blob: BYTES_B64 },
      ]);
      assert.deepEqual((await client.readResource('mem://untyped')).contents, [
        { uri: 'mem://untyped', text: 'no mime' },
      ]);
      assert.equal(textOf(await client.readResource('mem://async')), 'later');
      pair.assertClean();
      await pair.close();
    });

    test('read handlers may return contents, an array of them, or a full result', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      assert.deepEqual((await client.readResource('mem://contents')).contents, [
        { uri: 'mem://contents', text: 'one', mimeType: 'text/x-one' },
      ]);
      assert.deepEqual((await client.readResource('mem://many')).contents, [
        { uri: 'mem://many#a', text: 'a' },
        { uri: 'mem://many#b', blob: 'AA==' },
      ]);
      const full = await client.readResource('mem://full');
      assert.deepEqual(full.contents, [{ uri: 'mem://full', text: 'full' }]);
      assert.equal(full._meta?.m, 1);
      pair.assertClean();
      await pair.close();
    });

    test('read failures: a thrown Error → -32603, a ProtocolError as is, a bad return → -32603', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      const expectError = (uri: string, code: number, fragment: string) =>
        assert.rejects(client.readResource(uri), (error: unknown) => {
          assert.ok(error instanceof ProtocolError);
          assert.equal(error.code, code);
          assert.ok(error.message.includes(fragment), error.message);
          return true;
        });
      await expectError('mem://throws', ErrorCode.InternalError, 'storage offline');
      await expectError('mem://protocol', -31000, 'custom');
      await expectError(
        'mem://weird',
        ErrorCode.InternalError,
        'return a string, bytes, contents, or { contents }',
      );
      pair.assertClean();
      await pair.close();
    });

    test(`a missing resource is ${featuresOf(revision).resourceNotFoundCode} with data.uri`, async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      for (const uri of ['mem://missing', 'file:///notes.txt.bak', 'mem://pair/only-one']) {
        await assert.rejects(pair.client.readResource(uri), (error: unknown) => {
          assert.ok(error instanceof ProtocolError);
          assert.equal(error.code, featuresOf(revision).resourceNotFoundCode);
          assert.deepEqual(error.data, { uri });
          assert.equal(
            error.message,
            `Resource not found: ${uri}. Call resources/list or resources/templates/list for what exists.`,
          );
          return true;
        });
      }
      pair.assertClean();
      await pair.close();
    });

    test('templates match RFC 6570 style and pass the variables', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      const user = JSON.parse(textOf(await client.readResource('mem://users/42')));
      assert.deepEqual(user, { uri: 'mem://users/42', vars: { id: '42' } });
      const encoded = JSON.parse(textOf(await client.readResource('mem://users/a%20b')));
      assert.deepEqual(encoded.vars, { id: 'a b' });
      assert.equal(textOf(await client.readResource('file:///docs/guide/intro.md')), 'doc guide/intro.md');
      assert.deepEqual(JSON.parse(textOf(await client.readResource('mem://search?limit=5&q=cats'))), {
        q: 'cats',
        limit: '5',
      });
      assert.deepEqual(JSON.parse(textOf(await client.readResource('mem://search'))), {});
      assert.deepEqual(JSON.parse(textOf(await client.readResource('mem://pair/x/y'))), { a: 'x', b: 'y' });
      // A static resource wins over a template that would also match.
      assert.equal(textOf(await client.readResource('mem://users/static')), 'the static one wins');
      // The template's mimeType applies to its bodies.
      assert.equal((await client.readResource('mem://users/1')).contents[0]!.mimeType, 'application/json');
      pair.assertClean();
      await pair.close();
    });

    test('resources/list and resources/templates/list', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { resources } = await pair.client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        [
          'file:///logo.png',
          'file:///notes.txt',
          'mem://async',
          'mem://contents',
          'mem://full',
          'mem://many',
          'mem://protocol',
          'mem://throws',
          'mem://untyped',
          'mem://users/static',
          'mem://weird',
        ],
      );
      assert.deepEqual(resources[0], {
        uri: 'file:///logo.png',
        name: 'logo',
        mimeType: 'image/png',
        size: 6,
      });
      const { resourceTemplates } = await pair.client.listResourceTemplates();
      assert.deepEqual(
        resourceTemplates.map((t) => [t.name, t.uriTemplate]),
        [
          ['file', 'file:///docs/{+path}'],
          ['pair', 'mem://pair/{a}/{b}'],
          ['search', 'mem://search{?q,limit}'],
          ['user', 'mem://users/{id}'],
        ],
      );
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('templates that enumerate resources', () => {
  test('their list feeds resources/list, merged with static ones in URI order, with the request context', async () => {
    const server = new Server({ name: 'dyn', version: '1.0.0' });
    server.registerResource('b-static', 'mem://b', {}, () => 'b');
    let seen: RequestContext | undefined;
    server.registerResourceTemplate(
      'item',
      'mem://items/{id}',
      {
        list: (ctx) => {
          seen = ctx;
          return [
            { uri: 'mem://items/2', name: 'two', title: 'Two', annotations: { priority: 1 } },
            { uri: 'mem://items/1', name: 'one', icons: [{ src: 'https://example.com/1.png' }] },
          ];
        },
      },
      (_uri, { id }) => `item ${id}`,
    );
    server.registerResourceTemplate(
      'other',
      'mem://a/{x}',
      { list: async () => [{ uri: 'mem://a/z', name: 'z' }] },
      () => 'z',
    );
    for (const revision of REVISIONS) {
      const pair = await connectPair(server, { version: { pin: revision } });
      const { resources } = await pair.client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ['mem://a/z', 'mem://b', 'mem://items/1', 'mem://items/2'],
        revision,
      );
      const f = featuresOf(revision);
      assert.equal(resources[3]!.title, f.structured ? 'Two' : undefined);
      assert.deepEqual(resources[2]!.icons, f.icons ? [{ src: 'https://example.com/1.png' }] : undefined);
      assert.equal(seen?.revision, revision);
      assert.equal(textOf(await pair.client.readResource('mem://items/1')), 'item 1');
      pair.assertClean();
      await pair.close();
    }
  });

  test('a list that throws fails resources/list with -32603, not the connection', async () => {
    const server = new Server({ name: 'dyn', version: '1.0.0' });
    server.registerResourceTemplate(
      'bad',
      'mem://x/{id}',
      {
        list: () => {
          throw new Error('db down');
        },
      },
      () => 'x',
    );
    const pair = await connectPair(server);
    await assert.rejects(pair.client.listResources(), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.InternalError);
      assert.match(error.message, /db down/);
      return true;
    });
    assert.equal(textOf(await pair.client.readResource('mem://x/1')), 'x');
    pair.assertClean();
    await pair.close();
  });
});

describe('registration and params', () => {
  test('a resource URI needs a scheme', () => {
    const server = new Server({ name: 'x', version: '1' });
    for (const uri of ['notes.txt', '/abs/path', '', '1abc://x']) {
      assert.throws(
        () => server.registerResource('n', uri, {}, () => ''),
        (error: unknown) =>
          error instanceof SwitchboardError && error.code === 'CONFIG' && /absolute URI/.test(error.message),
      );
    }
  });

  test('a malformed template is a CONFIG error at registration', () => {
    const server = new Server({ name: 'x', version: '1' });
    assert.throws(
      () => server.registerResourceTemplate('t', 'mem://{unclosed', {}, () => ''),
      (error: unknown) => error instanceof SwitchboardError && error.code === 'CONFIG',
    );
  });

  test('duplicate URIs and duplicate templates are refused', () => {
    const server = new Server({ name: 'x', version: '1' });
    server.registerResource('a', 'mem://a', {}, () => '');
    assert.throws(() => server.registerResource('a2', 'mem://a', {}, () => ''), /already registered/);
    server.registerResourceTemplate('t', 'mem://{x}', {}, () => '');
    assert.throws(
      () => server.registerResourceTemplate('t2', 'mem://{x}', {}, () => ''),
      /already registered/,
    );
  });

  test('resources/read without a string uri → -32602', async () => {
    const wire = await openWire(makeServer());
    await wire.initialize('2025-06-18');
    for (const params of [{}, { uri: 5 }, { uri: null }]) {
      const response = await wire.request('resources/read', params);
      assert.equal(response.error.code, ErrorCode.InvalidParams);
      assert.match(response.error.message, /"uri" must be a string/);
    }
    await wire.close();
  });

  test('resource descriptor fields are copied from the config (and the cache hint is not)', async () => {
    const server = new Server({ name: 'x', version: '1' });
    server.registerResource(
      'r',
      'mem://r',
      {
        title: 'R',
        description: 'd',
        mimeType: 'text/plain',
        size: 3,
        annotations: { priority: 0.1 },
        _meta: { k: 'v' },
        cache: { ttlMs: 5 },
      },
      () => 'abc',
    );
    const pair = await connectPair(server, { version: { pin: '2025-11-25' } });
    const { resources } = await pair.client.listResources();
    assert.deepEqual(resources, [
      {
        uri: 'mem://r',
        name: 'r',
        title: 'R',
        description: 'd',
        mimeType: 'text/plain',
        size: 3,
        annotations: { priority: 0.1 },
        _meta: { k: 'v' },
      },
    ]);
    pair.assertClean();
    await pair.close();
  });
});

/**
 * Tools: name rules, every supported schema flavour (zod 4, valibot, arktype, raw JSON Schema
 * 2020-12 and draft-07), argument validation, the error split (isError vs JSON-RPC error), output
 * schemas, content helpers and the shapes a handler may return.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { REVISIONS } from '../../src/protocol/revisions.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import type { SchemaLike } from '../../src/schema/index.js';
import {
  audio,
  embeddedResource,
  image,
  resourceContents,
  resourceLink,
  text,
  toolError,
} from '../../src/server/content.js';
import { connectPair } from '../helpers/pair.js';
import { rejectsProtocol } from '../helpers/rejects.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { openWire } from '../helpers/wire.js';

trapUnhandledRejections();

const newServer = () => new Server({ name: 'tools', version: '1.0.0' });

function configError(fn: () => unknown, ...fragments: string[]) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SwitchboardError, String(error));
    assert.equal(error.code, 'CONFIG');
    for (const f of fragments) assert.ok(error.message.includes(f), `"${f}" in ${error.message}`);
    return true;
  });
}

const textOf = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : `<${c.type}>`)).join('\n');

describe('tool names', () => {
  test('1-128 characters of [A-Za-z0-9_.-] are accepted', () => {
    const server = newServer();
    for (const name of ['a', 'Z', '0', 'get_weather', 'files.read', 'a-b', 'A.b_C-9', 'x'.repeat(128)]) {
      assert.equal(server.registerTool(name, {}, () => 'x').name, name);
    }
  });

  test('anything else is a CONFIG error naming the rule', () => {
    const server = newServer();
    for (const name of [
      '',
      'x'.repeat(129),
      'has space',
      'slash/name',
      'colon:name',
      'ümlaut',
      'tab\t',
      'a,b',
    ]) {
      configError(() => server.registerTool(name, {}, () => 'x'), 'Invalid tool name', '1-128 characters');
    }
    configError(() => server.registerTool(42 as never, {}, () => 'x'), 'Invalid tool name');
  });

  test('names are unique; a removed name can be registered again', () => {
    const server = newServer();
    const handle = server.registerTool('dup', {}, () => 'x');
    configError(() => server.registerTool('dup', {}, () => 'y'), 'already registered', '"dup"');
    handle.remove();
    server.registerTool('dup', {}, () => 'z');
  });

  test('prompt names follow the same rule', () => {
    const server = newServer();
    server.registerPrompt('ok.prompt-1', {}, () => 'x');
    configError(() => server.registerPrompt('bad name', {}, () => 'x'), 'Invalid prompt name');
    configError(() => server.registerPrompt('ok.prompt-1', {}, () => 'x'), 'already registered');
  });
});

/** The same arguments schema in every flavour: `{ city: string, days?: integer 1..7 }`. */
const FLAVOURS: [string, SchemaLike][] = [
  ['zod 4', z.object({ city: z.string(), days: z.number().int().min(1).max(7).optional() })],
  [
    'valibot',
    toStandardJsonSchema(
      v.object({
        city: v.string(),
        days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(7))),
      }),
    ),
  ],
  ['arktype', type({ city: 'string', 'days?': '1 <= number.integer <= 7' })],
  [
    'JSON Schema 2020-12',
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city'],
    },
  ],
  [
    'JSON Schema draft-07',
    {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city'],
      additionalProperties: false,
    },
  ],
];

for (const [flavour, schema] of FLAVOURS) {
  describe(`input schema: ${flavour}`, () => {
    for (const revision of REVISIONS) {
      test(`${revision}: advertised, valid arguments reach the handler, invalid ones → isError naming the fields`, async () => {
        const server = newServer();
        const received: unknown[] = [];
        server.registerTool('forecast', { inputSchema: schema }, (args) => {
          received.push(args);
          return 'sunny';
        });
        const pair = await connectPair(server, { version: { pin: revision } });
        const { tools } = await pair.client.listTools();
        const inputSchema = tools[0]!.inputSchema;
        assert.equal(inputSchema.type, 'object');
        assert.deepEqual(Object.keys(inputSchema.properties ?? {}).sort(), ['city', 'days']);
        assert.deepEqual(inputSchema.required, ['city']);

        const ok = await pair.client.callTool('forecast', { city: 'Oslo', days: 3 });
        assert.equal(ok.isError, undefined);
        assert.deepEqual(ok.content, [{ type: 'text', text: 'sunny' }]);
        assert.deepEqual(received, [{ city: 'Oslo', days: 3 }]);

        const bad = await pair.client.callTool('forecast', { city: 7, days: 9 });
        assert.equal(bad.isError, true);
        const message = textOf(bad);
        assert.ok(message.startsWith('Invalid arguments for tool "forecast": '), message);
        assert.match(message, /"city": /);
        assert.match(message, /"days": /);

        const missing = await pair.client.callTool('forecast', {});
        assert.equal(missing.isError, true);
        assert.match(textOf(missing), /city/);
        assert.equal(received.length, 1, 'the handler never ran for bad arguments');
        pair.assertClean();
        await pair.close();
      });
    }
  });
}

test('zod transforms and defaults shape what the handler receives', async () => {
  const server = newServer();
  let got: unknown;
  server.registerTool(
    'shape',
    {
      inputSchema: z.object({ name: z.string().trim().toUpperCase(), unit: z.enum(['c', 'f']).default('c') }),
    },
    (args) => {
      got = args;
      return 'ok';
    },
  );
  const pair = await connectPair(server);
  await pair.client.callTool('shape', { name: '  ada ' });
  assert.deepEqual(got, { name: 'ADA', unit: 'c' });
  pair.assertClean();
  await pair.close();
});

test('a tool without an input schema advertises an empty object schema and gets {}', async () => {
  const server = newServer();
  let got: unknown;
  server.registerTool('bare', {}, (args) => {
    got = args;
    return 'ok';
  });
  const pair = await connectPair(server);
  const { tools } = await pair.client.listTools();
  assert.deepEqual(tools[0]!.inputSchema, { type: 'object' });
  await pair.client.callTool('bare');
  assert.deepEqual(got, {});
  pair.assertClean();
  await pair.close();
});

function errorServer() {
  const server = newServer();
  server.registerTool('throws', {}, () => {
    throw new Error('disk on fire');
  });
  server.registerTool('throwsAsync', {}, async () => {
    await Promise.resolve();
    throw new Error('async fire');
  });
  server.registerTool('throwsString', {}, () => {
    throw 'a bare string';
  });
  server.registerTool('throwsEmpty', {}, () => {
    throw new Error('');
  });
  server.registerTool('protocol', {}, () => {
    throw new ProtocolError(-31999, 'custom protocol failure', { detail: 1 });
  });
  server.registerTool('invalidParams', {}, () => {
    throw new ProtocolError(ErrorCode.InvalidParams, 'bad id', { field: 'id' });
  });
  server.registerTool('toolError', {}, () => toolError('quota exceeded, retry tomorrow'));
  server.registerTool('returnsNull', {}, () => null as never);
  server.registerTool('returnsNumber', {}, () => 42 as never);
  server.registerTool('noContent', {}, () => ({ isError: false }) as never);
  server.registerTool(
    'typed',
    { outputSchema: z.object({ total: z.number(), tags: z.array(z.string()) }) },
    (_args, ctx) => {
      const mode = (ctx.meta?.mode as string | undefined) ?? 'good';
      if (mode === 'wrong') return { structuredContent: { total: 'many', tags: [1] } as never };
      if (mode === 'missing') return { content: [text('no structure')] } as never;
      if (mode === 'error') return { isError: true, content: [text('failed politely')] };
      return { structuredContent: { total: 3, tags: ['a'] } };
    },
  );
  return server;
}

for (const revision of REVISIONS) {
  describe(`tool errors on ${revision}`, () => {
    test('unknown tool → -32602 naming it', async () => {
      const pair = await connectPair(errorServer(), { version: { pin: revision } });
      await rejectsProtocol(
        pair.client.callTool('nope'),
        ErrorCode.InvalidParams,
        'Unknown tool: "nope"',
        'tools/list',
      );
      pair.assertClean();
      await pair.close();
    });

    test('a handler that throws → isError with its message (sync, async, non-Error, empty)', async () => {
      const pair = await connectPair(errorServer(), { version: { pin: revision } });
      for (const [name, message] of [
        ['throws', 'disk on fire'],
        ['throwsAsync', 'async fire'],
        ['throwsString', 'a bare string'],
        ['throwsEmpty', 'Tool "throwsEmpty" failed.'],
        ['toolError', 'quota exceeded, retry tomorrow'],
      ]) {
        const result = await pair.client.callTool(name!);
        assert.equal(result.isError, true, name);
        assert.deepEqual(result.content, [{ type: 'text', text: message }]);
      }
      pair.assertClean();
      await pair.close();
    });

    test('a thrown ProtocolError becomes the JSON-RPC error, code, message and data intact', async () => {
      const pair = await connectPair(errorServer(), { version: { pin: revision } });
      await assert.rejects(pair.client.callTool('protocol'), (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.deepEqual(error.toObject(), {
          code: -31999,
          message: 'custom protocol failure',
          data: { detail: 1 },
        });
        return true;
      });
      await rejectsProtocol(pair.client.callTool('invalidParams'), ErrorCode.InvalidParams, 'bad id');
      pair.assertClean();
      await pair.close();
    });

    test('a handler returning nothing usable → -32603 saying what to return', async () => {
      const pair = await connectPair(errorServer(), { version: { pin: revision } });
      await rejectsProtocol(
        pair.client.callTool('returnsNull'),
        ErrorCode.InternalError,
        'returned null',
        'return a string',
      );
      await rejectsProtocol(
        pair.client.callTool('returnsNumber'),
        ErrorCode.InternalError,
        'returned number',
      );
      await rejectsProtocol(
        pair.client.callTool('noContent'),
        ErrorCode.InternalError,
        'without a "content" array',
      );
      pair.assertClean();
      await pair.close();
    });

    test('outputSchema: conforming structuredContent passes; a violation or none at all → -32603; isError skips the check', async () => {
      const pair = await connectPair(errorServer(), { version: { pin: revision } });
      const good = await pair.client.callTool('typed');
      assert.deepEqual(good.content, [{ type: 'text', text: '{"total":3,"tags":["a"]}' }]);
      await rejectsProtocol(
        pair.client.callTool('typed', {}, { meta: { mode: 'wrong' } }),
        ErrorCode.InternalError,
        'Tool "typed" returned structuredContent that does not match its outputSchema',
        '"total"',
        '"tags[0]"',
      );
      await rejectsProtocol(
        pair.client.callTool('typed', {}, { meta: { mode: 'missing' } }),
        ErrorCode.InternalError,
        'declares an outputSchema but returned no structuredContent',
      );
      const failed = await pair.client.callTool('typed', {}, { meta: { mode: 'error' } });
      assert.deepEqual(failed, {
        content: [{ type: 'text', text: 'failed politely' }],
        isError: true,
        ...modernExtras(pair),
      });
      pair.assertClean();
      await pair.close();
    });

    test('malformed tools/call params → -32602', async () => {
      const wire = await openWire(errorServer());
      const call = (params: Record<string, unknown>) =>
        revision === '2026-07-28' ? wire.modern('tools/call', params) : wire.request('tools/call', params);
      if (revision !== '2026-07-28') await wire.initialize(revision);
      for (const params of [
        {},
        { name: 7 },
        { name: 'throws', arguments: [] },
        { name: 'throws', arguments: 'x' },
      ]) {
        const response = await call(params);
        assert.equal(response.error?.code, ErrorCode.InvalidParams, JSON.stringify(params));
        assert.match(response.error.message, /Invalid params for 'tools\/call'/);
      }
      await wire.close();
    });
  });
}

/** Fields a 2026-07-28 result carries beyond the legacy shape. */
function modernExtras(pair: Awaited<ReturnType<typeof connectPair>>) {
  return pair.client.era === 'modern'
    ? { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': pair.client.serverInfo } }
    : {};
}

describe('what a handler may return', () => {
  test('a string, a content array, or a CallToolResult', async () => {
    const server = newServer();
    server.registerTool('str', {}, () => 'just text');
    server.registerTool('arr', {}, () => [text('one'), text('two')]);
    server.registerTool('full', {}, async () => ({ content: [text('full')], _meta: { k: 1 } }));
    server.registerTool('empty', {}, () => []);
    const pair = await connectPair(server, { version: { pin: '2025-11-25' } });
    assert.deepEqual(await pair.client.callTool('str'), { content: [{ type: 'text', text: 'just text' }] });
    assert.deepEqual(await pair.client.callTool('arr'), {
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
    });
    assert.deepEqual(await pair.client.callTool('full'), {
      content: [{ type: 'text', text: 'full' }],
      _meta: { k: 1 },
    });
    assert.deepEqual(await pair.client.callTool('empty'), { content: [] });
    pair.assertClean();
    await pair.close();
  });

  test('given content is kept next to structuredContent (no duplicate text added)', async () => {
    const server = newServer();
    server.registerTool('both', { outputSchema: z.object({ n: z.number() }) }, () => ({
      structuredContent: { n: 1 },
      content: [text('one')],
    }));
    const pair = await connectPair(server, { version: { pin: '2025-06-18' } });
    assert.deepEqual(await pair.client.callTool('both'), {
      content: [{ type: 'text', text: 'one' }],
      structuredContent: { n: 1 },
    });
    pair.assertClean();
    await pair.close();
  });

  test('the handler gets the RequestContext', async () => {
    const server = newServer();
    server.registerTool('who', {}, (_args, ctx) => `${ctx.method} ${ctx.revision} ${ctx.client.info?.name}`);
    const pair = await connectPair(server, { version: { pin: '2025-03-26' } });
    assert.equal(textOf(await pair.client.callTool('who')), 'tools/call 2025-03-26 test-client');
    pair.assertClean();
    await pair.close();
  });
});

describe('content helpers', () => {
  const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);

  test('text, image, audio (bytes are base64-encoded; strings pass through)', () => {
    assert.deepEqual(text('hi'), { type: 'text', text: 'hi' });
    assert.deepEqual(text('hi', { annotations: { priority: 1 }, _meta: { a: 1 } }), {
      type: 'text',
      text: 'hi',
      annotations: { priority: 1 },
      _meta: { a: 1 },
    });
    assert.deepEqual(image(bytes, 'image/png'), { type: 'image', data: 'AAEC/f7/', mimeType: 'image/png' });
    assert.deepEqual(image('AAEC', 'image/gif'), { type: 'image', data: 'AAEC', mimeType: 'image/gif' });
    assert.deepEqual(audio(bytes, 'audio/wav', { annotations: { audience: ['user'] } }), {
      type: 'audio',
      data: 'AAEC/f7/',
      mimeType: 'audio/wav',
      annotations: { audience: ['user'] },
    });
  });

  test('resourceContents, embeddedResource, resourceLink, toolError', () => {
    assert.deepEqual(resourceContents('mem://a', 'text'), { uri: 'mem://a', text: 'text' });
    assert.deepEqual(resourceContents('mem://b', bytes, 'application/octet-stream'), {
      uri: 'mem://b',
      blob: 'AAEC/f7/',
      mimeType: 'application/octet-stream',
    });
    assert.deepEqual(embeddedResource({ uri: 'mem://a', text: 't' }, { annotations: { priority: 0 } }), {
      type: 'resource',
      resource: { uri: 'mem://a', text: 't' },
      annotations: { priority: 0 },
    });
    assert.deepEqual(resourceLink({ uri: 'mem://l', name: 'l', mimeType: 'text/plain' }), {
      type: 'resource_link',
      uri: 'mem://l',
      name: 'l',
      mimeType: 'text/plain',
    });
    assert.deepEqual(toolError('nope'), { content: [{ type: 'text', text: 'nope' }], isError: true });
  });

  test('a large binary survives the trip through image()', async () => {
    const big = new Uint8Array(200_000).map((_, i) => i % 256);
    const server = newServer();
    server.registerTool('big', {}, () => [image(big, 'image/png')]);
    const pair = await connectPair(server);
    const result = await pair.client.callTool('big');
    const block = result.content[0]!;
    assert.equal(block.type, 'image');
    const decoded = Uint8Array.from(atob(block.type === 'image' ? block.data : ''), (c) => c.charCodeAt(0));
    assert.deepEqual(decoded, big);
    pair.assertClean();
    await pair.close();
  });
});

test('schemas that cannot work are refused at registration', () => {
  const server = newServer();
  configError(
    () => server.registerTool('arr', { inputSchema: { type: 'array' } }, () => 'x'),
    'inputSchema of tool "arr"',
    'type": "object"',
  );
  configError(
    () =>
      server.registerTool(
        'dialect',
        { inputSchema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' } },
        () => 'x',
      ),
    'draft-04',
  );
  configError(
    () => server.registerTool('bare', { inputSchema: v.object({}) as never }, () => 'x'),
    'toStandardJsonSchema',
  );
});

describe('x-mcp-header at registration', () => {
  test('a tool whose annotations HTTP clients would drop is refused, naming the fault', () => {
    const server = new Server({ name: 's', version: '1' });
    assert.throws(
      () =>
        server.registerTool(
          'bad',
          { inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } },
          () => '',
        ),
      (e: unknown) =>
        e instanceof SwitchboardError &&
        e.code === 'CONFIG' &&
        /x-mcp-header "N" at "n" is on a property of type "number"/.test(e.message),
    );
    // A valid annotation registers.
    server.registerTool(
      'good',
      {
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
      },
      () => '',
    );
  });
});

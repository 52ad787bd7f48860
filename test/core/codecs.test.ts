/**
 * Per-revision codecs, end to end: a server that uses every feature (titles, icons, annotations with
 * lastModified, _meta, output schemas, audio, resource links, embedded text and blob resources) is
 * listed, called, read and prompted on every revision. The strict schema checks on both sides catch
 * any field a revision lacks; the assertions below pin what each revision keeps and how what it cannot
 * carry is downgraded.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Server } from '../../src/extensions/server.js';
import {
  encodeCallToolResult,
  encodeContentBlock,
  encodeGetPromptResult,
  encodeResource,
  encodeTool,
} from '../../src/protocol/codec.js';
import { featuresOf, REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import type { Annotations, ContentBlock, Icon, Tool } from '../../src/protocol/types.js';
import {
  audio,
  embeddedResource,
  image,
  resourceContents,
  resourceLink,
  text,
} from '../../src/server/content.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';

trapUnhandledRejections();

const ICONS: Icon[] = [
  { src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['16x16'], theme: 'dark' },
];
const ANNOTATIONS: Annotations = {
  audience: ['user', 'assistant'],
  priority: 0.5,
  lastModified: '2025-01-02T03:04:05Z',
};
const META = { 'example.com/tag': 'x' };
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
const PNG_B64 = 'iVBORwABAv8=';

const LINK = resourceLink({
  uri: 'mem://linked',
  name: 'linked',
  title: 'Linked Doc',
  description: 'a linked document',
  mimeType: 'text/plain',
  size: 12,
  icons: ICONS,
  annotations: ANNOTATIONS,
  _meta: META,
});

/** One block of every kind, each carrying every optional field. */
const ALL_BLOCKS: ContentBlock[] = [
  text('plain', { annotations: ANNOTATIONS, _meta: META }),
  image(PNG, 'image/png', { annotations: ANNOTATIONS, _meta: META }),
  audio(PNG, 'audio/wav', { annotations: ANNOTATIONS, _meta: META }),
  LINK,
  embeddedResource(
    { uri: 'mem://e1', mimeType: 'text/plain', text: 'embedded', _meta: META },
    {
      annotations: ANNOTATIONS,
      _meta: META,
    },
  ),
  embeddedResource({ uri: 'mem://e2', mimeType: 'application/octet-stream', blob: PNG_B64 }),
];

function kitchenSink() {
  const server = new Server({
    name: 'sink',
    version: '1.0.0',
    title: 'Kitchen Sink',
    description: 'everything',
    websiteUrl: 'https://example.com',
    icons: ICONS,
  });
  server.registerTool(
    'everything',
    {
      title: 'Everything',
      description: 'returns every content kind',
      icons: ICONS,
      annotations: {
        title: 'Ann Title',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      execution: { taskSupport: 'optional' },
      _meta: META,
      inputSchema: z.object({ n: z.number().describe('a number') }),
      outputSchema: z.object({ doubled: z.number() }),
    },
    ({ n }) => ({ structuredContent: { doubled: n * 2 }, content: ALL_BLOCKS, _meta: META }),
  );
  server.registerTool(
    'structuredOnly',
    { outputSchema: z.object({ ok: z.boolean(), items: z.array(z.string()) }) },
    () => ({
      structuredContent: { ok: true, items: ['a', 'b'] },
    }),
  );
  server.registerResource(
    'doc',
    'mem://doc',
    {
      title: 'Doc',
      description: 'a doc',
      mimeType: 'text/plain',
      size: 4,
      icons: ICONS,
      annotations: ANNOTATIONS,
      _meta: META,
    },
    () => [
      { uri: 'mem://doc', mimeType: 'text/plain', text: 'body', _meta: META },
      resourceContents('mem://doc#bin', PNG, 'application/octet-stream'),
    ],
  );
  server.registerResource('bytes', 'mem://bytes', { mimeType: 'image/png' }, () => PNG);
  server.registerResourceTemplate(
    'item',
    'mem://items/{id}',
    {
      title: 'Item',
      description: 'an item',
      mimeType: 'text/plain',
      icons: ICONS,
      annotations: ANNOTATIONS,
      _meta: META,
    },
    (_uri, { id }) => `item ${id}`,
  );
  server.registerPrompt(
    'show',
    {
      title: 'Show',
      description: 'shows everything',
      icons: ICONS,
      _meta: META,
      arguments: [{ name: 'topic', title: 'Topic', description: 'what to show', required: true }],
    },
    ({ topic }) => ({
      description: `about ${topic}`,
      messages: ALL_BLOCKS.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content })),
      _meta: META,
    }),
  );
  return server;
}

const without = <T extends object>(value: T, ...keys: string[]): T =>
  Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k))) as T;

/** What `annotations` look like on `revision`. */
const annotationsOn = (revision: Revision) =>
  featuresOf(revision).structured ? ANNOTATIONS : without(ANNOTATIONS, 'lastModified');

/** The blocks of {@link ALL_BLOCKS} as `revision` carries them. */
function expectedBlocks(revision: Revision): unknown[] {
  const f = featuresOf(revision);
  if (f.icons) return ALL_BLOCKS;
  const ann = annotationsOn(revision);
  const meta = f.structured ? { _meta: META } : {};
  return [
    { type: 'text', text: 'plain', annotations: ann, ...meta },
    { type: 'image', data: PNG_B64, mimeType: 'image/png', annotations: ann, ...meta },
    f.annotations
      ? { type: 'audio', data: PNG_B64, mimeType: 'audio/wav', annotations: ann, ...meta }
      : {
          type: 'text',
          text: `[audio content (audio/wav) omitted: protocol revision ${revision} cannot carry audio]`,
        },
    f.structured
      ? without(LINK, 'icons')
      : { type: 'text', text: 'Resource: Linked Doc <mem://linked> — a linked document', annotations: ann },
    {
      type: 'resource',
      resource: { uri: 'mem://e1', mimeType: 'text/plain', text: 'embedded', ...meta },
      annotations: ann,
      ...meta,
    },
    { type: 'resource', resource: { uri: 'mem://e2', mimeType: 'application/octet-stream', blob: PNG_B64 } },
  ];
}

for (const revision of REVISIONS) {
  const f = featuresOf(revision);
  describe(`codecs on ${revision}`, () => {
    test('tools/list: descriptor fields the revision has, nothing else', async () => {
      const pair = await connectPair(kitchenSink(), { version: { pin: revision } });
      const { tools } = await pair.client.listTools();
      const tool = tools.find((t) => t.name === 'everything')!;
      assert.equal(tool.description, 'returns every content kind');
      assert.equal(tool.inputSchema.type, 'object');
      assert.deepEqual(tool.inputSchema.required, ['n']);
      assert.equal(tool.title, f.structured ? 'Everything' : undefined);
      assert.deepEqual(tool.icons, f.icons ? ICONS : undefined);
      assert.equal(tool.outputSchema === undefined, !f.structured);
      assert.equal(tool._meta === undefined, !f.structured);
      assert.equal(tool.annotations === undefined, !f.annotations);
      if (f.annotations) assert.equal(tool.annotations?.title, 'Ann Title');
      assert.equal(
        tool.execution === undefined,
        revision !== '2025-11-25',
        'execution is core only in 2025-11-25',
      );
      pair.assertClean();
      await pair.close();
    });

    test('tools/call: content blocks fitted or downgraded; structuredContent where it exists', async () => {
      const pair = await connectPair(kitchenSink(), { version: { pin: revision } });
      await pair.client.listTools(); // so the client validates structured output against the schema
      const result = await pair.client.callTool('everything', { n: 21 });
      assert.deepEqual(result.content, expectedBlocks(revision));
      assert.deepEqual(result.structuredContent, f.structured ? { doubled: 42 } : undefined);
      // A result names the server by name and version only; discover gave the whole Implementation.
      const { name, version } = pair.client.serverInfo!;
      const serverInfo = f.modern ? { 'io.modelcontextprotocol/serverInfo': { name, version } } : {};
      assert.deepEqual(result._meta, { ...META, ...serverInfo });
      pair.assertClean();
      await pair.close();
    });

    test('structured output also arrives as text (the only form old clients see)', async () => {
      const pair = await connectPair(kitchenSink(), { version: { pin: revision } });
      const result = await pair.client.callTool('structuredOnly');
      assert.deepEqual(result.content, [{ type: 'text', text: '{"ok":true,"items":["a","b"]}' }]);
      assert.deepEqual(result.structuredContent, f.structured ? { ok: true, items: ['a', 'b'] } : undefined);
      pair.assertClean();
      await pair.close();
    });

    test('resources/list and templates/list: titles, icons, annotations, _meta per revision', async () => {
      const pair = await connectPair(kitchenSink(), { version: { pin: revision } });
      const { resources } = await pair.client.listResources();
      const doc = resources.find((r) => r.uri === 'mem://doc')!;
      const expected: Record<string, unknown> = {
        uri: 'mem://doc',
        name: 'doc',
        description: 'a doc',
        mimeType: 'text/plain',
        size: 4,
        annotations: annotationsOn(revision),
      };
      if (f.structured) Object.assign(expected, { title: 'Doc', _meta: META });
      if (f.icons) expected.icons = ICONS;
      assert.deepEqual(doc, expected);
      const { resourceTemplates } = await pair.client.listResourceTemplates();
      const expectedTemplate: Record<string, unknown> = {
        uriTemplate: 'mem://items/{id}',
        name: 'item',
        description: 'an item',
        mimeType: 'text/plain',
        annotations: annotationsOn(revision),
      };
      if (f.structured) Object.assign(expectedTemplate, { title: 'Item', _meta: META });
      if (f.icons) expectedTemplate.icons = ICONS;
      assert.deepEqual(resourceTemplates, [expectedTemplate]);
      pair.assertClean();
      await pair.close();
    });

    test('resources/read: text with _meta where it exists, blob as base64, bytes from a handler', async () => {
      const pair = await connectPair(kitchenSink(), { version: { pin: revision } });
      const read = await pair.client.readResource('mem://doc');
      assert.deepEqual(read.contents, [
        { uri: 'mem://doc', mimeType: 'text/plain', text: 'body', ...(f.structured ? { _meta: META } : {}) },
        { uri: 'mem://doc#bin', mimeType: 'application/octet-stream', blob: PNG_B64 },
      ]);
      const bytes = await pair.client.readResource('mem://bytes');
      assert.deepEqual(bytes.contents, [{ uri: 'mem://bytes', mimeType: 'image/png', blob: PNG_B64 }]);
      const item = await pair.client.readResource('mem://items/9');
      assert.deepEqual(item.contents, [{ uri: 'mem://items/9', mimeType: 'text/plain', text: 'item 9' }]);
      pair.assertClean();
      await pair.close();
    });

    test('prompts/list and prompts/get: argument titles, icons, every content kind in messages', async () => {
      const pair = await connectPair(kitchenSink(), { version: { pin: revision } });
      const { prompts } = await pair.client.listPrompts();
      const expected: Record<string, unknown> = {
        name: 'show',
        description: 'shows everything',
        arguments: [
          {
            name: 'topic',
            description: 'what to show',
            required: true,
            ...(f.structured ? { title: 'Topic' } : {}),
          },
        ],
      };
      if (f.structured) Object.assign(expected, { title: 'Show', _meta: META });
      if (f.icons) expected.icons = ICONS;
      assert.deepEqual(prompts, [expected]);
      const got = await pair.client.getPrompt('show', { topic: 'all' });
      assert.equal(got.description, 'about all');
      assert.deepEqual(
        got.messages.map((m) => m.content),
        expectedBlocks(revision),
      );
      assert.deepEqual(
        got.messages.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
      );
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('codec functions', () => {
  const deepFreeze = <T>(value: T): T => {
    if (typeof value === 'object' && value !== null) {
      for (const v of Object.values(value)) deepFreeze(v);
      Object.freeze(value);
    }
    return value;
  };

  test('never mutate their input (handlers may return shared constants)', () => {
    const result = deepFreeze({
      content: structuredClone(ALL_BLOCKS),
      structuredContent: { a: 1 },
      _meta: META,
    });
    const before = JSON.stringify(result);
    for (const revision of REVISIONS) {
      const f = featuresOf(revision);
      encodeCallToolResult(result, f);
      encodeGetPromptResult(
        deepFreeze({ messages: result.content.map((content) => ({ role: 'user' as const, content })) }),
        f,
      );
      for (const block of result.content) encodeContentBlock(block, f);
    }
    assert.equal(JSON.stringify(result), before);
  });

  test('return their input untouched when the revision carries everything', () => {
    const tool: Tool = { name: 't', title: 'T', icons: ICONS, inputSchema: { type: 'object' } };
    const modern = featuresOf('2026-07-28');
    assert.equal(encodeTool(tool, modern), tool);
    const resource = { uri: 'mem://x', name: 'x', icons: ICONS, annotations: ANNOTATIONS };
    assert.equal(encodeResource(resource, featuresOf('2025-11-25')), resource);
    const result = { content: ALL_BLOCKS, structuredContent: {} };
    assert.equal(encodeCallToolResult(result, modern), result);
  });

  test('a resource link without title or description still reads well as text', () => {
    const block = encodeContentBlock(
      { type: 'resource_link', uri: 'mem://a', name: 'a' },
      featuresOf('2024-11-05'),
    );
    assert.deepEqual(block, { type: 'text', text: 'Resource: a <mem://a>' });
  });

  test('execution goes out on 2025-11-25 only (the 2026-07-28 tasks extension is server-directed)', () => {
    const tool: Tool = { name: 't', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } };
    const modern = featuresOf('2026-07-28');
    assert.equal(encodeTool(tool, modern).execution, undefined);
    assert.deepEqual(encodeTool(tool, featuresOf('2025-11-25')).execution, { taskSupport: 'required' });
    assert.equal(encodeTool(tool, featuresOf('2025-06-18')).execution, undefined);
  });
});

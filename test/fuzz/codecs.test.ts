/**
 * Codec downgrades, property-tested: random valid results (every kind of content block, with and
 * without annotations, icons, `_meta`, structured content) returned by a tool are fitted to each
 * revision, and what goes on the wire must pass that revision's official schema, closed so that a
 * field the revision lacks is a violation (the schema-checked channel is the oracle).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Server } from '../../src/extensions/server.js';
import { REVISIONS } from '../../src/protocol/revisions.js';
import type { CallToolResult, ContentBlock } from '../../src/protocol/types.js';
import { openWire } from '../helpers/wire.js';

const text = fc.string({ maxLength: 20 });
const uri = fc.webUrl({ withQueryParameters: true });
const base64 = fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b).toString('base64'));
const mime = fc.constantFrom('image/png', 'audio/wav', 'text/plain', 'application/octet-stream');
const meta = fc.dictionary(fc.constantFrom('example.com/a', 'acme/b'), fc.jsonValue({ maxDepth: 1 }), {
  maxKeys: 2,
});
const annotations = fc.record(
  {
    audience: fc.uniqueArray(fc.constantFrom('user', 'assistant'), { maxLength: 2 }),
    priority: fc.double({ min: 0, max: 1, noNaN: true }),
    lastModified: fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  { requiredKeys: [] },
);
const icon = fc.record(
  {
    src: uri,
    mimeType: fc.constantFrom('image/png', 'image/svg+xml'),
    sizes: fc.array(fc.constantFrom('48x48', 'any'), { maxLength: 2 }),
    theme: fc.constantFrom('light', 'dark'),
  },
  { requiredKeys: ['src'] },
);
const optional = { annotations, _meta: meta };

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text'), text, ...optional }, { requiredKeys: ['type', 'text'] }),
  fc.record(
    { type: fc.constant('image'), data: base64, mimeType: mime, ...optional },
    { requiredKeys: ['type', 'data', 'mimeType'] },
  ),
  fc.record(
    { type: fc.constant('audio'), data: base64, mimeType: mime, ...optional },
    { requiredKeys: ['type', 'data', 'mimeType'] },
  ),
  fc.record(
    {
      type: fc.constant('resource_link'),
      uri,
      name: text,
      title: text,
      description: text,
      mimeType: mime,
      size: fc.nat(),
      icons: fc.array(icon, { maxLength: 2 }),
      ...optional,
    },
    { requiredKeys: ['type', 'uri', 'name'] },
  ),
  fc.record(
    {
      type: fc.constant('resource'),
      resource: fc.oneof(
        fc.record({ uri, mimeType: mime, text, _meta: meta }, { requiredKeys: ['uri', 'text'] }),
        fc.record({ uri, mimeType: mime, blob: base64, _meta: meta }, { requiredKeys: ['uri', 'blob'] }),
      ),
      ...optional,
    },
    { requiredKeys: ['type', 'resource'] },
  ),
) as fc.Arbitrary<ContentBlock>;

const result: fc.Arbitrary<CallToolResult> = fc.record(
  {
    content: fc.array(block, { maxLength: 5 }),
    structuredContent: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: 3,
    }),
    isError: fc.boolean(),
    _meta: meta,
  },
  { requiredKeys: ['content'] },
);

describe('codec downgrades (property)', () => {
  for (const revision of REVISIONS) {
    test(`${revision}: random results always pass the revision's closed schema`, async () => {
      let next: CallToolResult = { content: [] };
      const server = new Server({ name: 'codecs', version: '1.0.0' });
      server.registerTool('gen', {}, () => next);
      const wire = await openWire(server, { check: true });
      const modern = revision === '2026-07-28';
      if (!modern) await wire.initialize(revision);
      let calls = 0;
      await fc.assert(
        fc.asyncProperty(result, async (generated) => {
          next = generated;
          const answer = modern
            ? await wire.modern('tools/call', { name: 'gen' })
            : await wire.request('tools/call', { name: 'gen' });
          assert.ok(answer.result, JSON.stringify(answer).slice(0, 300));
          // Every block survives in some form: dropped fields and downgrades, never lost content.
          assert.ok(answer.result.content.length >= generated.content.length);
          calls++;
        }),
        { numRuns: 120 },
      );
      assert.equal(calls, 120);
      wire.assertClean();
      await wire.close();
    });
  }
});

/**
 * explainErrors reads the validator's error list by the same table as the argument checks
 * (util/schema-errors.ts): an error that only wraps a subschema is skipped, and one that carries
 * the detail is explained, whichever explainer reads it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { compileSchema } from '../../src/schema/index.js';
import { explainErrors } from '../../src/testing/explain-errors.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { MessageSchemaChecker } from '../../src/testing/message-schema-checker.js';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { list: { type: 'array' }, count: { type: 'integer' } },
  dependencies: { list: ['count'], count: { properties: { list: { minItems: 1 } } } },
};

function explain(instance: unknown, root: Record<string, unknown> = schema) {
  const { errors } = new Validator(root as never, '7', false).validate(instance);
  return explainErrors(errors, {
    root,
    rootName: 'Thing',
    instance,
    revision: '2025-06-18',
    resolve: (node) => {
      const name = String(node.$ref).split('/').pop()!;
      return { schema: (root.definitions as Record<string, unknown> | undefined)?.[name], name };
    },
  });
}

describe('explainErrors', () => {
  test('a draft-07 dependency on a list of names is explained, as the argument checks explain it', () => {
    const findings = explain({ list: ['a'] });
    assert.equal(findings.length, 1, JSON.stringify(findings));
    assert.equal(findings[0]!.keyword, 'dependencies');
    assert.match(findings[0]!.reason, /"list" but does not have "count"/);
    const checked = compileSchema(schema, { role: 'input', name: 'thing' }).validate({ list: ['a'] });
    assert.deepEqual(checked, {
      ok: false,
      issues: [{ path: 'count', message: 'required when "list" is present' }],
    });
  });

  test('a dependency on a schema only wraps it: the subschema error is the finding', () => {
    const findings = explain({ list: [], count: 1 });
    assert.deepEqual(
      findings.map((f) => [f.pointer, f.keyword]),
      [['/list', 'minItems']],
    );
  });
});

/** Object branches told apart by a title, a discriminator, their required members and a `$ref`. */
const shapes = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  definitions: { Square: { type: 'object', properties: { side: { type: 'number' } }, required: ['side'] } },
  anyOf: [
    { title: 'Circle', type: 'object', properties: { r: { type: 'number' } }, required: ['r'] },
    { type: 'object', properties: { kind: { const: 'line' }, length: { type: 'number' } } },
    { type: 'object', required: ['points'] },
    { $ref: '#/definitions/Square' },
  ],
};
const BRANCH_NAMES = ['"Circle"', 'kind "line"', 'the one with "points"', 'Square'];

describe('explainErrors on an anyOf no branch fits', () => {
  test('names each branch (title, discriminator, required members, $ref) with why it failed', () => {
    const findings = explain({ kind: 'line', length: 'long' }, shapes);
    assert.equal(findings.length, 1, JSON.stringify(findings));
    const [finding] = findings;
    assert.equal(finding!.keyword, 'anyOf');
    assert.equal(finding!.pointer, '');
    assert.match(finding!.reason, /matches none of "Circle", kind "line", the one with "points", Square/);
    assert.match(finding!.reason, /kind "line": \/length: expected number, got string/);
    assert.match(finding!.reason, /"Circle": missing "r"/);
    assert.match(finding!.reason, /the one with "points": missing "points"; 1 more\)$/);
  });

  test('a value of the wrong type for every branch is said once', () => {
    const findings = explain(null, shapes);
    assert.equal(findings.length, 1, JSON.stringify(findings));
    assert.match(findings[0]!.reason, /\(each: expected object, got null\)/);
    assert.equal(findings[0]!.value, null);
  });

  test('property: every failed value gets findings; one for the anyOf names every branch and says why', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const valid = new Validator(shapes as never, '7', false).validate(value).valid;
        const findings = explain(value, shapes);
        if (valid) return findings.length === 0;
        if (findings.length === 0) return false;
        for (const finding of findings) {
          if (/undefined|\[object/.test(finding.reason)) return false;
          if (finding.keyword !== 'anyOf' || finding.pointer !== '') continue;
          if (!BRANCH_NAMES.every((name) => finding.reason.includes(name))) return false;
          if (!/\(.+\)$/.test(finding.reason)) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });
});

describe('explainErrors on the specification schemas', () => {
  const checked = async (method: string, body: unknown) => {
    const checker = new MessageSchemaChecker(await loadSchemaCatalog(), { strict: false });
    checker.checkMessage('2025-06-18', 'client', {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { name: 'x', uri: 'a://b' },
    });
    return checker.checkMessage('2025-06-18', 'server', { jsonrpc: '2.0', id: 1, result: body });
  };

  test('resource contents with neither text nor blob name both branches and what each misses', async () => {
    const found = await checked('resources/read', { contents: [{ uri: 'a://b' }] });
    assert.deepEqual(
      found.map((v) => `${v.pointer}: ${v.reason}`),
      [
        '/result/contents/0: value matches none of TextResourceContents, BlobResourceContents in revision 2025-06-18 (TextResourceContents: missing "text"; BlobResourceContents: missing "blob")',
      ],
    );
  });

  test('a content block whose type names a branch is explained by that branch alone', async () => {
    const found = await checked('tools/call', { content: [{ type: 'text', text: 5 }] });
    assert.deepEqual(
      found.map((v) => `${v.pointer}: ${v.reason} (${v.schemaLocation})`),
      ['/result/content/0/text: expected string, got integer (TextContent/properties/text/type)'],
    );
  });

  test('a null result is shown as null', async () => {
    const found = await checked('tools/call', null);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.value, null);
    assert.match(found[0]!.message, /\/result: expected object, got null; value: null$/);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileFastPath } from '../../src/schema/fast-path.js';
import { compileJsonSchema } from '../../src/schema/json-schema.js';
import type { JsonSchemaDocument } from '../../src/schema/types.js';

/**
 * Each schema is in the fast path's subset; every value must get the same verdict AND the same issues
 * from the fast path and from the generic validator (@cfworker/json-schema).
 */
const objectWithProto = Object.assign(Object.create({ inherited: 1 }), { text: 'x' });
const table: Array<{ name: string; schema: JsonSchemaDocument; values: unknown[] }> = [
  {
    name: 'one required string',
    schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    values: [
      { text: 'hi' },
      { text: '' },
      {},
      { text: 1 },
      { text: null },
      { text: 'a', extra: true },
      { text: undefined },
      { text: () => 1 },
      { other: 10n },
      [],
      null,
      'text',
      42,
      undefined,
      objectWithProto,
    ],
  },
  {
    name: 'numbers, integers and bounds',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'number', minimum: 0, maximum: 10 },
        b: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 5 },
        c: { type: ['integer', 'string'], minimum: 2, minLength: 2 },
      },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    values: [
      { a: 0, b: 1 },
      { a: 10, b: 4 },
      { a: -1, b: 5 },
      { a: 11, b: 0 },
      { a: 1.5, b: 1.5 },
      { a: '1', b: '2' },
      { a: Number.NaN, b: -0 },
      { a: Number.POSITIVE_INFINITY, b: 2 },
      { a: 1, b: 2, c: 1 },
      { a: 1, b: 2, c: 2.5 },
      { a: 1, b: 2, c: 'x' },
      { a: 1, b: 2, c: 'xy' },
      { a: 1, b: 2, c: true },
      { a: 1, b: 2, d: 1, e: 2 },
      {},
    ],
  },
  {
    name: 'strings: lengths in code points, pattern, format',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 3, description: 'a name' },
        code: { type: 'string', pattern: '^[A-Z]{3}$' },
        mail: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
        home: { type: 'string', format: 'uri' },
        odd: { type: 'string', format: 'no-such-format' },
        emoji: { type: 'string', pattern: '^\\p{Emoji}+$', maxLength: 2 },
      },
    },
    values: [
      { name: 'ab' },
      { name: 'a' },
      { name: 'abcd' },
      { name: '😀😀' },
      { name: '😀😀😀😀' },
      { name: '😀' },
      { name: '\uD800' },
      { name: '\uD800\uD800' },
      { code: 'ABC' },
      { code: 'abc' },
      { code: 'ABCD' },
      { mail: 'a@example.com' },
      { mail: 'not an email' },
      { when: '2026-07-28T12:00:00Z' },
      { when: 'yesterday' },
      { home: 'https://example.com/x' },
      { home: 'no scheme' },
      { odd: 'anything' },
      { emoji: '😀' },
      { emoji: '😀😀😀' },
      { emoji: 'a' },
      { name: 1, code: 2, mail: 3 },
    ],
  },
  {
    name: 'enums and nullable types',
    schema: {
      type: 'object',
      properties: {
        unit: { type: 'string', enum: ['c', 'f'] },
        level: { enum: [1, 2, 'three', null, true] },
        note: { type: ['string', 'null'] },
        any: {},
      },
      required: ['unit'],
    },
    values: [
      { unit: 'c' },
      { unit: 'k' },
      { unit: 1 },
      { unit: 'c', level: 2 },
      { unit: 'c', level: '2' },
      { unit: 'c', level: null },
      { unit: 'c', level: false },
      { unit: 'c', level: [1] },
      { unit: 'c', level: { a: 1 } },
      { unit: 'c', note: null },
      { unit: 'c', note: 1 },
      { unit: 'c', any: [1, { b: 2 }] },
      { unit: 'c', any: undefined },
      { level: 3, note: false },
    ],
  },
  {
    name: 'arrays of primitives',
    schema: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 3 },
        grid: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      },
      additionalProperties: true,
    },
    values: [
      { tags: ['a'] },
      { tags: [] },
      { tags: ['a', 'b', 'c', 'd'] },
      { tags: ['a', '', 3] },
      { tags: 'a' },
      // biome-ignore lint/suspicious/noSparseArray: a hole is not JSON; both validators must reject it.
      { tags: ['a', , 'b'] },
      { grid: [[1, 2], [3]] },
      { grid: [[1, 2.5], 'x', [null]] },
      { extra: 1, more: { deep: true } },
      { '\uD800': 1 },
    ],
  },
  {
    name: 'nested objects and awkward keys',
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://example.com/nested',
      title: 'Nested',
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: { id: { type: 'integer' }, 'display name': { type: 'string' } },
          required: ['id', 'display name'],
          additionalProperties: false,
        },
        'a/b~c': { type: 'boolean' },
        toString: { type: 'string' },
      },
      required: ['user'],
      additionalProperties: false,
      'x-mcp-extra': { anything: true },
    },
    values: [
      { user: { id: 1, 'display name': 'Ann' } },
      { user: { id: '1' } },
      { user: { id: 1, 'display name': 2, extra: 1 } },
      { user: null },
      { user: { id: 1, 'display name': 'x' }, 'a/b~c': 'yes' },
      { user: { id: 1, 'display name': 'x' }, toString: 1 },
      { user: { id: 1, 'display name': 'x' }, constructor: 1, 'x y': 2 },
      JSON.parse('{"user": {"id": 1, "display name": "x"}, "__proto__": 1}'),
      { user: { id: 1, 'display name': 'x', '\uDC00': 1 } },
      { user: { id: 1, 'display name': undefined } },
    ],
  },
  {
    name: 'draft-07',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'number', exclusiveMinimum: 1 } },
    },
    values: [{ n: 2 }, { n: 1 }, { n: 'x' }, {}],
  },
];

describe('fast path', () => {
  for (const { name, schema, values } of table) {
    test(`agrees with the generic validator: ${name}`, () => {
      const fast = compileJsonSchema(schema, 'test schema');
      const generic = compileJsonSchema(schema, 'test schema', { fastPath: false });
      assert.equal(fast.strategy, 'fast-path', 'the schema must be in the fast-path subset');
      assert.equal(generic.strategy, 'json-schema');
      for (const value of values) {
        assert.deepEqual(fast.validate(value), generic.validate(value), `value: ${describeValue(value)}`);
      }
    });
  }

  test('agrees with the generic validator on random values', () => {
    const random = seeded(20260728);
    let invalid = 0;
    for (const { schema } of table) {
      const fast = compileJsonSchema(schema, 'test schema');
      const generic = compileJsonSchema(schema, 'test schema', { fastPath: false });
      const keys = [...collectKeys(schema), 'extra', '\uD800'];
      for (let i = 0; i < 400; i++) {
        const value = randomValue(random, keys, 3);
        const expected = generic.validate(value);
        if (!expected.ok) invalid++;
        assert.deepEqual(fast.validate(value), expected, `value: ${describeValue(value)}`);
      }
    }
    assert.ok(invalid > 100, 'the random values must exercise failures too');
  });

  test('reports every issue, in order, with readable paths', () => {
    const { validate } = compileJsonSchema(table[1]!.schema, 'test schema');
    assert.deepEqual(validate({ a: '1', c: 1.5, d: 1 }), {
      ok: false,
      issues: [
        { path: 'b', message: 'required' },
        { path: 'a', message: 'expected number, received string' },
        { path: 'c', message: 'expected integer or string, received 1.5' },
        { path: 'c', message: 'expected a number >= 2, received 1.5' },
        { path: 'd', message: 'unexpected property (not allowed by the schema)' },
      ],
    });
    const tags = compileJsonSchema(table[4]!.schema, 'test schema');
    assert.deepEqual(tags.validate({ tags: ['a', '', 3] }), {
      ok: false,
      issues: [
        { path: 'tags[1]', message: 'expected at least 1 characters, received 0' },
        { path: 'tags[2]', message: 'expected string, received number' },
      ],
    });
  });

  test('returns the same value object and allocates no issues when valid', () => {
    const { validate } = compileJsonSchema(table[0]!.schema, 'test schema');
    const args = { text: 'hi' };
    const result = validate(args);
    assert.ok(result.ok);
    assert.equal(result.value, args);
  });

  test('declines schemas outside its subset', () => {
    const outside: JsonSchemaDocument[] = [
      { type: 'array', items: { type: 'string' } },
      { type: ['object'], properties: {} },
      { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'number', multipleOf: 0.1 } } },
      { type: 'object', properties: { a: { type: 'array', uniqueItems: true } } },
      { type: 'object', properties: { a: { const: 'x' } } },
      { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } },
      { type: 'object', properties: { a: true } },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'string', minLength: '2' } } },
      { type: 'object', properties: { a: { type: 'text' } } },
      { type: 'object', properties: { a: { enum: [{ x: 1 }] } } },
      { type: 'object', properties: { a: { enum: [Number.NaN] } } },
      { type: 'object', properties: { a: { type: 'string', someFutureKeyword: 1 } } },
      { type: 'object', required: 'a' },
    ];
    for (const schema of outside) {
      assert.equal(compileFastPath(schema), undefined, JSON.stringify(schema));
    }
  });
});

function describeValue(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function collectKeys(schema: unknown, into = new Set<string>()): Set<string> {
  if (typeof schema === 'object' && schema !== null) {
    const properties = (schema as { properties?: Record<string, unknown> }).properties;
    for (const [key, sub] of Object.entries(properties ?? {})) {
      into.add(key);
      collectKeys(sub, into);
    }
    collectKeys((schema as { items?: unknown }).items, into);
  }
  return into;
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAMPLES: unknown[] = [
  '',
  'a',
  'ab',
  'abc',
  'ABC',
  'abcd',
  '😀',
  'c',
  'f',
  'three',
  'a@example.com',
  '2026-07-28T12:00:00Z',
  'https://example.com',
  0,
  -0,
  1,
  2,
  3,
  1.5,
  -1,
  5,
  10,
  11,
  true,
  false,
  null,
];

function randomValue(random: () => number, keys: string[], depth: number): unknown {
  const pick = random();
  if (depth > 0 && pick < 0.35) {
    const object: Record<string, unknown> = {};
    for (const key of keys) if (random() < 0.5) object[key] = randomValue(random, keys, depth - 1);
    return object;
  }
  if (depth > 0 && pick < 0.5) {
    return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, keys, depth - 1));
  }
  return SAMPLES[Math.floor(random() * SAMPLES.length)];
}

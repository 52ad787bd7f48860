import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { compileSchema } from '../../src/schema/index.js';
import type { JsonSchemaDocument } from '../../src/schema/types.js';

const input = (name: string) => ({ role: 'input' as const, name });
const output = (name: string) => ({ role: 'output' as const, name });

function configError(fn: () => unknown, ...fragments: string[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SwitchboardError, `expected a SwitchboardError, got ${error}`);
    assert.equal(error.code, 'CONFIG');
    for (const fragment of fragments)
      assert.ok(error.message.includes(fragment), `"${fragment}" in: ${error.message}`);
    return true;
  });
}

describe('raw JSON Schema', () => {
  test('2020-12 by default: advertised as given, validated', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    };
    const compiled = compileSchema(schema, input('add'));
    assert.equal(compiled.dialect, '2020-12');
    assert.equal(compiled.rootIsObject, true);
    assert.deepEqual(compiled.jsonSchema, schema);
    assert.deepEqual(compiled.validate({ a: 1, b: 2 }), { ok: true, value: { a: 1, b: 2 } });
    assert.deepEqual(compiled.validate({ a: 'x' }), {
      ok: false,
      issues: [
        { path: 'b', message: 'required' },
        { path: 'a', message: 'expected number, received string' },
      ],
    });
  });

  test('2020-12 keywords the fast path does not cover go through the generic validator', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        items: { type: 'array', prefixItems: [{ type: 'string' }], items: false },
        choice: { $ref: '#/$defs/choice' },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        step: { type: 'number', multipleOf: 0.5 },
      },
      $defs: { choice: { oneOf: [{ const: 'a' }, { const: 'b' }] } },
      unevaluatedProperties: false,
    };
    const compiled = compileSchema(schema, input('generic'));
    assert.equal(compiled.strategy, 'json-schema');
    assert.deepEqual(compiled.validate({ items: ['x'], choice: 'a', note: null, step: 1.5 }), {
      ok: true,
      value: { items: ['x'], choice: 'a', note: null, step: 1.5 },
    });
    assert.deepEqual(compiled.validate({ items: ['x', 'y'], choice: 'c', note: 1, step: 0.3, zzz: 1 }), {
      ok: false,
      issues: [
        { path: 'items[1]', message: 'unexpected item (not allowed by the schema)' },
        {
          path: 'choice',
          message:
            'does not match any of the 2 allowed alternatives (#1: expected "a", received "c"; #2: expected "b", received "c")',
        },
        { path: 'note', message: 'expected string or null, received number' },
        { path: 'step', message: 'expected a multiple of 0.5, received 0.3' },
        { path: 'zzz', message: 'unexpected property (not allowed by the schema)' },
      ],
    });
  });

  test('an anyOf no alternative matches says why each failed, by its title or $ref name', () => {
    const schema = {
      type: 'object',
      properties: {
        shape: {
          anyOf: [
            { title: 'Circle', type: 'object', properties: { r: { type: 'number' } }, required: ['r'] },
            { $ref: '#/$defs/Square' },
          ],
        },
      },
      $defs: { Square: { type: 'object', properties: { side: { type: 'number' } }, required: ['side'] } },
    };
    assert.deepEqual(compileSchema(schema, input('shapes')).validate({ shape: { r: 'big' } }), {
      ok: false,
      issues: [
        {
          path: 'shape',
          message:
            'does not match any of the 2 allowed alternatives (#1 "Circle": r: expected number, received string; #2 "Square": side: required)',
        },
      ],
    });
  });

  test('draft-07 is accepted when $schema says so', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { list: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
      definitions: { n: { type: 'integer' } },
      dependencies: { list: ['count'] },
    };
    const compiled = compileSchema(schema, input('legacy'));
    assert.equal(compiled.dialect, 'draft-07');
    assert.equal(compiled.jsonSchema.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.deepEqual(compiled.validate({ list: ['a'], count: 1 }), {
      ok: true,
      value: { list: ['a'], count: 1 },
    });
    const result = compiled.validate({ list: ['a', 'b'] });
    assert.equal(result instanceof Promise, false);
    assert.deepEqual(result, {
      ok: false,
      issues: [
        { path: 'count', message: 'required when "list" is present' },
        { path: 'list[1]', message: 'unexpected item (not allowed by the schema)' },
      ],
    });
    assert.equal(
      compileSchema({ ...schema, $schema: 'https://json-schema.org/draft-07/schema' }, input('x')).dialect,
      'draft-07',
    );
  });

  test('any other dialect is a CONFIG error at registration', () => {
    for (const $schema of [
      'http://json-schema.org/draft-04/schema#',
      'https://json-schema.org/draft/2019-09/schema',
      42,
    ]) {
      configError(
        () => compileSchema({ $schema, type: 'object' }, input('old')),
        'tool "old"',
        '2020-12',
        'Omit "$schema"',
      );
    }
  });

  test('network $refs are refused at registration, never fetched', () => {
    configError(
      () =>
        compileSchema(
          { type: 'object', properties: { a: { $ref: 'https://example.com/schemas/a.json' } } },
          input('remote'),
        ),
      'inputSchema of tool "remote"',
      'https://example.com/schemas/a.json',
      'never fetches',
      '#/$defs/',
    );
    configError(
      () =>
        compileSchema({ type: 'object', properties: { a: { $ref: 'other.json#/x' } } }, input('relative')),
      'points outside the schema',
    );
    configError(
      () =>
        compileSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, input('dangling')),
      'points nowhere inside the schema',
    );
  });

  test('local $refs resolve: JSON Pointers, anchors and embedded $id resources', () => {
    const schema = {
      $id: 'https://example.com/root',
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/positive' },
        b: { $ref: '#named' },
        c: { $ref: 'https://example.com/embedded' },
        tree: { $ref: '#/$defs/tree' },
      },
      $defs: {
        positive: { type: 'number', minimum: 0 },
        named: { $anchor: 'named', type: 'string' },
        embedded: { $id: 'https://example.com/embedded', type: 'boolean' },
        tree: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/$defs/tree' } } },
        },
      },
    };
    const compiled = compileSchema(schema, input('refs'));
    const good = { a: 1, b: 'x', c: true, tree: { children: [{ children: [] }] } };
    assert.deepEqual(compiled.validate(good), { ok: true, value: good });
    assert.deepEqual(compiled.validate({ a: -1, b: 1, c: 'no', tree: { children: [{ children: 'x' }] } }), {
      ok: false,
      issues: [
        { path: 'a', message: 'expected a number >= 0, received -1' },
        { path: 'b', message: 'expected string, received number' },
        { path: 'c', message: 'expected boolean, received string' },
        { path: 'tree.children[0].children', message: 'expected array, received string' },
      ],
    });
  });

  test('unsupported or broken schemas fail at registration, not on the first call', () => {
    configError(
      () => compileSchema({ type: 'object', properties: { a: { $dynamicRef: '#meta' } } }, input('dyn')),
      '$dynamicRef',
    );
    configError(
      () =>
        compileSchema({ type: 'object', properties: { a: { type: 'string', pattern: '([' } } }, input('re')),
      'pattern "(["',
      'not a valid regular expression',
    );
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    configError(() => compileSchema(cyclic, input('cyclic')), 'not JSON-serializable');
    configError(() => compileSchema({ type: 'object', n: 10n }, input('bigint')), 'not JSON-serializable');
  });

  test('input schemas must have type "object" at the root', () => {
    configError(
      () => compileSchema({ type: 'string' }, input('echo')),
      'tool "echo"',
      '"type": "string"',
      '"type": "object"',
    );
    configError(
      () => compileSchema({ anyOf: [{ type: 'object' }, { type: 'null' }] }, input('union')),
      '"anyOf" and no "type"',
      'wrap a union',
    );
    configError(() => compileSchema({ type: ['object', 'null'] }, input('nullable')), '["object","null"]');
    configError(
      () => compileSchema({}, { role: 'input', name: 'greet', kind: 'prompt' }),
      'arguments schema of prompt "greet"',
    );
    configError(() => compileSchema(null as unknown as JsonSchemaDocument, input('nothing')), 'got null');
    configError(() => compileSchema([] as unknown as JsonSchemaDocument, input('list')), 'an array');
  });

  test('output schemas may have any root; rootIsObject records it', () => {
    const list = compileSchema({ type: 'array', items: { type: 'string' } }, output('list'));
    assert.equal(list.rootIsObject, false);
    assert.deepEqual(list.validate(['a']), { ok: true, value: ['a'] });
    assert.deepEqual(list.validate(['a', 1]), {
      ok: false,
      issues: [{ path: '[1]', message: 'expected string, received number' }],
    });
    assert.equal(compileSchema({ type: 'object' }, output('obj')).rootIsObject, true);
  });

  test('the advertised schema is a frozen snapshot, independent of the caller object', () => {
    const schema: Record<string, any> = { type: 'object', properties: { a: { type: 'string' } } };
    const compiled = compileSchema(schema, input('snap'));
    assert.notEqual(compiled.jsonSchema, schema);
    assert.ok(Object.isFrozen(compiled.jsonSchema));
    assert.ok(Object.isFrozen((compiled.jsonSchema.properties as Record<string, object>).a));
    assert.equal(Object.isFrozen(schema), false, 'the caller object is left alone');
    assert.deepEqual(Object.getOwnPropertyNames(schema.properties.a), ['type'], 'and not annotated');
    assert.throws(() => {
      (compiled.jsonSchema as Record<string, unknown>).type = 'string';
    }, TypeError);
  });

  test('values JSON cannot carry, or that overflow the validator, become issues, never throws', () => {
    const generic = compileSchema(
      { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'number' }] } } },
      input('odd'),
    );
    assert.equal(generic.strategy, 'json-schema');
    assert.deepEqual(generic.validate({ a: undefined }), {
      ok: false,
      issues: [{ path: '$', message: 'contains a value of type undefined, which is not JSON' }],
    });
    assert.deepEqual(generic.validate(undefined), {
      ok: false,
      issues: [{ path: '$', message: 'contains a value of type undefined, which is not JSON' }],
    });
    const recursive = compileSchema(
      { type: 'object', properties: { next: { $ref: '#' } }, additionalProperties: false },
      input('deep'),
    );
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { next: deep };
    assert.deepEqual(recursive.validate(deep), {
      ok: false,
      issues: [{ path: '$', message: 'is nested too deeply to validate' }],
    });
  });

  test('issue messages cover the common keywords', () => {
    const compiled = compileSchema(
      {
        type: 'object',
        properties: {
          list: { type: 'array', uniqueItems: true, maxItems: 1, contains: { type: 'number' } },
          map: { type: 'object', minProperties: 2 },
          k: { const: 'fixed' },
          not: { not: { type: 'string' } },
          one: { oneOf: [{ type: 'number' }, { type: 'integer' }] },
        },
        dependentRequired: { k: ['one', 'two'] },
      },
      input('kitchen'),
    );
    assert.deepEqual(compiled.validate({ list: ['a', 'a'], map: { x: 1 }, k: 'other', not: 's', one: 1 }), {
      ok: false,
      issues: [
        { path: 'two', message: 'required when "k" is present' },
        { path: 'list', message: 'expected at most 1 items, received 2' },
        { path: 'list', message: 'expected at least one item matching the "contains" schema' },
        { path: 'list', message: 'expected unique items, found duplicates' },
        { path: 'map', message: 'expected at least 2 properties, received 1' },
        { path: 'k', message: 'expected "fixed", received "other"' },
        { path: 'not', message: 'matches a schema it must not match ("not")' },
        { path: 'one', message: 'matches 2 alternatives, but must match exactly one' },
      ],
    });
  });
});

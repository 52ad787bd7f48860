import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type } from 'arktype';
import * as z from 'zod';
import { compileSchema, formatIssues, jsonSchema } from '../../src/schema/index.js';

describe('compileSchema cache', () => {
  test('one compile per schema object and role', () => {
    const raw = { type: 'object', properties: { text: { type: 'string' } } };
    const zod = z.object({ text: z.string() });
    const ark = type({ text: 'string' });
    for (const schema of [raw, zod, ark]) {
      const first = compileSchema(schema, { role: 'input', name: 'one' });
      assert.equal(compileSchema(schema, { role: 'input', name: 'two' }), first, 'same object, same result');
      assert.ok(Object.isFrozen(first));
      const asOutput = compileSchema(schema, { role: 'output', name: 'one' });
      assert.notEqual(asOutput, first, 'roles are compiled separately');
      assert.equal(compileSchema(schema, { role: 'output', name: 'three' }), asOutput);
    }
    const lookalike = { type: 'object', properties: { text: { type: 'string' } } };
    assert.notEqual(
      compileSchema(lookalike, { role: 'input', name: 'x' }),
      compileSchema(raw, { role: 'input', name: 'x' }),
    );
  });

  test('a shared schema costs one conversion across many registrations', () => {
    let conversions = 0;
    const base = z.object({ q: z.string() });
    const counting = {
      '~standard': {
        ...base['~standard'],
        jsonSchema: {
          input: (options: { target: string }) => {
            conversions++;
            return base['~standard'].jsonSchema.input(options);
          },
          output: base['~standard'].jsonSchema.output,
        },
      },
    };
    // E.g. a server rebuilt per request from a factory that closes over module-level schemas.
    for (let request = 0; request < 50; request++)
      compileSchema(counting, { role: 'input', name: `search${request}` });
    assert.equal(conversions, 1);
  });

  test('failures are not cached: each registration reports its own tool', () => {
    const scalar = { type: 'string' };
    assert.throws(() => compileSchema(scalar, { role: 'input', name: 'first' }), /tool "first"/);
    assert.throws(() => compileSchema(scalar, { role: 'input', name: 'second' }), /tool "second"/);
  });

  test('jsonSchema() brands without copying', () => {
    const raw = { type: 'object', properties: { a: { type: 'number' } } };
    assert.equal(jsonSchema<{ a: number }>(raw), raw);
  });
});

describe('formatIssues', () => {
  test('names every field; root issues carry no path', () => {
    assert.equal(
      formatIssues(
        [
          { path: 'a', message: 'expected number, received string' },
          { path: 'b', message: 'required' },
          { path: 'items[2].name', message: 'expected string, received null' },
        ],
        'Invalid arguments for tool "add"',
      ),
      'Invalid arguments for tool "add": "a": expected number, received string; "b": required; ' +
        '"items[2].name": expected string, received null',
    );
    assert.equal(
      formatIssues([{ path: '$', message: 'expected object, received array' }]),
      'expected object, received array',
    );
    assert.equal(
      formatIssues([], 'Invalid arguments for tool "x"'),
      'Invalid arguments for tool "x": invalid value',
    );
    const many = Array.from({ length: 25 }, (_, i) => ({ path: `f${i}`, message: 'required' }));
    const text = formatIssues(many);
    assert.ok(text.includes('"f19": required') && !text.includes('"f20"'));
    assert.ok(text.endsWith('; and 5 more issues'));
  });

  test('end to end from a raw schema, as a model would read it', () => {
    const compiled = compileSchema(
      {
        type: 'object',
        properties: {
          a: { type: 'number' },
          b: { type: 'number' },
          op: { enum: ['add', 'sub'] },
          'odd key': { type: 'string', maxLength: 2 },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      { role: 'input', name: 'add' },
    );
    const result = compiled.validate({ a: '1', op: 'mul', 'odd key': 'long', extra: 1 });
    assert.ok(!(result instanceof Promise) && !result.ok);
    assert.equal(
      formatIssues(result.issues, 'Invalid arguments for tool "add"'),
      'Invalid arguments for tool "add": "b": required; "a": expected number, received string; ' +
        '"op": expected one of "add", "sub", received "mul"; ' +
        '["odd key"]: expected at most 2 characters, received 4; ' +
        '"extra": unexpected property (not allowed by the schema)',
    );
  });
});

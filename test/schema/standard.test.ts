import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z from 'zod';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { compileSchema, formatIssues } from '../../src/schema/index.js';
import type { StandardJsonSchema } from '../../src/schema/types.js';

const input = (name: string) => ({ role: 'input' as const, name });
const output = (name: string) => ({ role: 'output' as const, name });
const bad = { a: 'x', items: [{}, { name: 1 }] };

function configError(fn: () => unknown, ...fragments: string[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SwitchboardError, `expected a SwitchboardError, got ${error}`);
    assert.equal(error.code, 'CONFIG');
    for (const fragment of fragments)
      assert.ok(error.message.includes(fragment), `"${fragment}" in: ${error.message}`);
    return true;
  });
}

describe('Standard Schema libraries', () => {
  test('zod 4: JSON Schema export, validation, issue paths', () => {
    const schema = z.object({
      a: z.number(),
      items: z.array(z.object({ name: z.string() })),
      unit: z.enum(['c', 'f']).default('c'),
    });
    const compiled = compileSchema(schema, input('zod'));
    assert.equal(compiled.strategy, 'standard');
    assert.equal(compiled.dialect, '2020-12');
    assert.equal(compiled.rootIsObject, true);
    assert.equal(compiled.jsonSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.deepEqual(
      compiled.jsonSchema.required,
      ['a', 'items'],
      'the input side: a defaulted field is optional',
    );
    const ok = compiled.validate({ a: 1, items: [{ name: 'x' }] });
    assert.deepEqual(ok, { ok: true, value: { a: 1, items: [{ name: 'x' }], unit: 'c' } });
    const failed = compiled.validate(bad);
    assert.ok(!(failed instanceof Promise) && !failed.ok);
    assert.deepEqual(
      failed.issues.map((i) => i.path),
      ['a', 'items[0].name', 'items[1].name'],
    );
    assert.equal(failed.issues[0]!.message, 'Invalid input: expected number, received string');
  });

  test('valibot via toStandardJsonSchema', () => {
    const schema = toStandardJsonSchema(
      v.object({ a: v.number(), items: v.array(v.object({ name: v.string() })) }),
    );
    const compiled = compileSchema(schema, input('valibot'));
    assert.equal(compiled.strategy, 'standard');
    assert.equal(compiled.jsonSchema.type, 'object');
    assert.deepEqual(compiled.jsonSchema.required, ['a', 'items']);
    assert.deepEqual(compiled.validate({ a: 1, items: [] }), { ok: true, value: { a: 1, items: [] } });
    const failed = compiled.validate(bad);
    assert.ok(!(failed instanceof Promise) && !failed.ok);
    assert.deepEqual(
      failed.issues.map((i) => i.path),
      ['a', 'items[0].name', 'items[1].name'],
    );
    assert.match(failed.issues[0]!.message, /Expected number/);
  });

  test('a bare valibot schema is refused with the wrapper to use', () => {
    configError(
      () => compileSchema(v.object({ a: v.number() }) as never, input('bare')),
      'valibot',
      'toStandardJsonSchema',
    );
  });

  test('arktype: messages lose the duplicated path prefix', () => {
    const schema = type({ a: 'number', items: type({ name: 'string' }).array() });
    const compiled = compileSchema(schema, input('ark'));
    assert.equal(compiled.strategy, 'standard');
    assert.equal(compiled.jsonSchema.type, 'object');
    assert.deepEqual(compiled.validate({ a: 1, items: [] }), { ok: true, value: { a: 1, items: [] } });
    const failed = compiled.validate(bad);
    assert.ok(!(failed instanceof Promise) && !failed.ok);
    assert.deepEqual(failed.issues, [
      { path: 'a', message: 'must be a number (was a string)' },
      { path: 'items[0].name', message: 'must be a string (was missing)' },
      { path: 'items[1].name', message: 'must be a string (was a number)' },
    ]);
  });

  test('input schemas advertise the input side, output schemas the output side', () => {
    const parsed = type({ n: 'string.numeric.parse' });
    assert.equal((compileSchema(parsed, input('in')).jsonSchema.properties as any).n.type, 'string');
    const out = compileSchema(parsed, output('out'));
    assert.equal((out.jsonSchema.properties as any).n.type, 'number');
    assert.deepEqual(out.validate({ n: '42' }), { ok: true, value: { n: 42 } });
  });

  test('async validation returns a Promise; sync validation does not', async () => {
    const zodAsync = z
      .object({ a: z.string() })
      .refine(async (x) => x.a === 'ok', { message: 'a must be "ok"' });
    const compiled = compileSchema(zodAsync, input('zod-async'));
    const pending = compiled.validate({ a: 'no' });
    assert.ok(pending instanceof Promise);
    assert.deepEqual(await pending, { ok: false, issues: [{ path: '$', message: 'a must be "ok"' }] });
    assert.deepEqual(await compiled.validate({ a: 'ok' }), { ok: true, value: { a: 'ok' } });

    // toStandardJsonSchema is typed for sync schemas only; async ones convert fine at run time.
    const valibotAsync = toStandardJsonSchema(
      v.objectAsync({
        a: v.pipeAsync(
          v.string(),
          v.transformAsync(async (s) => s.toUpperCase()),
        ),
      }) as never,
    );
    const vr = compileSchema(valibotAsync, input('valibot-async')).validate({ a: 'x' });
    assert.ok(vr instanceof Promise);
    assert.deepEqual(await vr, { ok: true, value: { a: 'X' } });
  });

  test('falls back to draft-07 when the library cannot export 2020-12', () => {
    const targets: string[] = [];
    const draft07Only: StandardJsonSchema = {
      '~standard': {
        version: 1,
        vendor: 'draft07-only',
        validate: (value) => ({ value }),
        jsonSchema: {
          input: ({ target }) => {
            targets.push(target);
            if (target !== 'draft-07') throw new Error(`unsupported target ${target}`);
            return { type: 'object', properties: { a: { type: 'string' } } };
          },
          output: () => ({}),
        },
      },
    };
    const compiled = compileSchema(draft07Only, input('old-lib'));
    assert.deepEqual(targets, ['draft-2020-12', 'draft-07']);
    assert.equal(compiled.dialect, 'draft-07');
    assert.equal(compiled.jsonSchema.$schema, 'http://json-schema.org/draft-07/schema#', '$schema is added');
    assert.deepEqual(compiled.validate({ a: 'x' }), { ok: true, value: { a: 'x' } });
  });

  test('export failures and non-object inputs are CONFIG errors naming the tool', () => {
    configError(
      () => compileSchema(z.object({ when: z.date() }), input('dates')),
      'tool "dates"',
      'zod',
      'Date',
    );
    configError(
      () => compileSchema(z.object({ n: z.string().transform((s) => s.length) }), output('transformed')),
      'outputSchema of tool "transformed"',
      'Transforms',
    );
    configError(() => compileSchema(z.string(), input('scalar')), 'tool "scalar"', '"type": "string"');
    configError(
      () =>
        compileSchema(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]), input('union')),
      '"anyOf" and no "type"',
    );
    // Output schemas may be anything.
    assert.equal(compileSchema(z.string(), output('scalar')).rootIsObject, false);
  });

  test('schemas without Standard JSON Schema support are refused with a hint', () => {
    const validateOnly = {
      '~standard': { version: 1, vendor: 'zod', validate: (value: unknown) => ({ value }) },
    };
    configError(
      () => compileSchema(validateOnly as never, input('zod3')),
      'no "~standard.jsonSchema"',
      'zod >= 4.2',
    );
    const wrongVersion = { '~standard': { version: 2, vendor: 'future', validate: () => ({}) } };
    configError(() => compileSchema(wrongVersion as never, input('v2')), 'not Standard Schema v1');
  });

  test('formatted messages name every bad field', () => {
    const schema = z.object({ a: z.number(), b: z.number() });
    const result = compileSchema(schema, input('add')).validate({ a: 'x' });
    assert.ok(!(result instanceof Promise) && !result.ok);
    assert.equal(
      formatIssues(result.issues, 'Invalid arguments for tool "add"'),
      'Invalid arguments for tool "add": "a": Invalid input: expected number, received string; ' +
        '"b": Invalid input: expected number, received undefined',
    );
  });
});

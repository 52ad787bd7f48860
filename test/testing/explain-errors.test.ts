/**
 * explainErrors reads the validator's error list by the same table as the argument checks
 * (util/schema-errors.ts): an error that only wraps a subschema is skipped, and one that carries
 * the detail is explained, whichever explainer reads it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@cfworker/json-schema';
import { compileSchema } from '../../src/schema/index.js';
import { explainErrors } from '../../src/testing/explain-errors.js';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { list: { type: 'array' }, count: { type: 'integer' } },
  dependencies: { list: ['count'], count: { properties: { list: { minItems: 1 } } } },
};

function explain(instance: unknown) {
  const { errors } = new Validator(schema as never, '7', false).validate(instance);
  return explainErrors(errors, {
    root: schema,
    rootName: 'Thing',
    instance,
    revision: '2025-06-18',
    resolve: (node) => ({ schema: node }),
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

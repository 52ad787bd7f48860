import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { promptArguments, toolArguments, typeLabel } from '../../src/cli/arguments.js';
import type { Tool } from '../../src/protocol/types.js';

const tool = (properties: Record<string, object>, extra: object = {}): Tool => ({
  name: 't',
  inputSchema: { type: 'object', properties: properties as Tool['inputSchema']['properties'], ...extra },
});

describe('toolArguments', () => {
  test('coerces by declared type, through anyOf/oneOf and type arrays', () => {
    const t = tool({
      n: { type: 'number' },
      i: { type: 'integer' },
      b: { type: 'boolean' },
      s: { type: 'string' },
      u: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      v: { type: ['boolean', 'null'] },
      w: { oneOf: [{ type: 'array' }, { type: 'object' }] },
      e: { enum: [1, 2, 'three'] },
      c: { const: true },
      any: {},
    });
    assert.deepEqual(
      toolArguments(
        t,
        ['n=1.5', 'i=-2', 'b=true', 's=12', 'u=x', 'v=null', 'w={"a":[1]}', 'e=2', 'c=true', 'any=5'],
        undefined,
      ),
      { n: 1.5, i: -2, b: true, s: '12', u: 'x', v: null, w: { a: [1] }, e: 2, c: true, any: '5' },
    );
    assert.deepEqual(toolArguments(t, ['u=7', 'e=three', 'w=[1]'], undefined), { u: 7, e: 'three', w: [1] });
  });

  test('a value containing "=" keeps everything after the first one', () => {
    assert.deepEqual(toolArguments(tool({ q: { type: 'string' } }), ['q=a=b'], undefined), { q: 'a=b' });
  });

  test('refuses what the schema cannot take', () => {
    const t = tool({ n: { type: 'number' }, b: { type: 'boolean' } });
    assert.throws(() => toolArguments(t, ['n='], undefined), /"n" must be a number, got ""/);
    assert.throws(() => toolArguments(t, ['n=0x10'], undefined), /must be a number/);
    assert.throws(() => toolArguments(t, ['b=yes'], undefined), /"b" must be true or false/);
    assert.throws(() => toolArguments(t, ['n=1', 'n=2'], undefined), /given twice/);
    assert.throws(() => toolArguments(t, ['=1'], undefined), /Expected key=value/);
    assert.throws(
      () => toolArguments(t, ['x=1'], undefined),
      /has no parameter "x"\. Its parameters: n \(number\), b \(boolean\)/,
    );
    assert.throws(() => toolArguments(tool({}), ['x=1'], undefined), /takes no parameters/);
  });

  test('additionalProperties lets undeclared keys through, typed by its schema', () => {
    assert.deepEqual(
      toolArguments(tool({}, { additionalProperties: { type: 'integer' } }), ['k=4'], undefined),
      {
        k: 4,
      },
    );
    assert.deepEqual(toolArguments(tool({}, { additionalProperties: true }), ['k=4'], undefined), { k: '4' });
  });

  test('--args is the base; pairs override; required keys must be present', () => {
    const t = tool({ a: { type: 'number' }, b: { type: 'number' } }, { required: ['a', 'b'] });
    assert.deepEqual(toolArguments(t, ['b=3'], '{"a": 1, "b": 2, "extra": [true]}'), {
      a: 1,
      b: 3,
      extra: [true],
    });
    assert.throws(() => toolArguments(t, ['a=1'], undefined), /Missing required argument b for tool "t"/);
    assert.throws(() => toolArguments(t, [], 'nope'), /--args is not valid JSON/);
  });
});

describe('promptArguments', () => {
  const prompt = { name: 'p', arguments: [{ name: 'who', required: true }, { name: 'tone' }] };
  test('strings as they are, from pairs and --args', () => {
    assert.deepEqual(promptArguments(prompt, ['who=42'], '{"tone":"dry"}'), { who: '42', tone: 'dry' });
  });
  test('unknown and missing arguments', () => {
    assert.throws(() => promptArguments(prompt, ['who=a', 'x=1'], undefined), /has no argument "x"/);
    assert.throws(() => promptArguments(prompt, [], undefined), /Missing required argument who/);
    assert.throws(() => promptArguments({ name: 'q' }, ['x=1'], undefined), /takes no arguments/);
  });
});

describe('typeLabel', () => {
  test('types, unions, enums, arrays', () => {
    assert.equal(typeLabel({ type: 'string' }), 'string');
    assert.equal(typeLabel({ type: ['string', 'null'] }), 'string | null');
    assert.equal(typeLabel({ enum: ['a', 1] }), '"a" | 1');
    assert.equal(typeLabel({ type: 'array', items: { type: 'integer' } }), 'integer[]');
    assert.equal(
      typeLabel({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }),
      '(string | number)[]',
    );
    assert.equal(typeLabel({ type: 'array' }), 'array');
    assert.equal(typeLabel({}), 'any');
  });
});

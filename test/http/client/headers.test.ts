import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeHeaderValue, headerValueOf, scanToolHeaders } from '../../../src/protocol/mcp-headers.js';
import { methodSpec } from '../../../src/protocol/methods.js';
import { ToolHeaderIndex } from '../../../src/transports/http/client/tool-headers.js';

describe('header value encoding', () => {
  test("the spec's examples", () => {
    assert.equal(encodeHeaderValue('us-west1'), 'us-west1');
    assert.equal(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
    assert.equal(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
    assert.equal(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
    assert.equal(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  test('tabs and other control characters are encoded; inner spaces and printable ASCII are not', () => {
    assert.equal(encodeHeaderValue('a\tb'), `=?base64?${btoa('a\tb')}?=`);
    assert.equal(encodeHeaderValue('a\x7fb'), `=?base64?${btoa('a\x7fb')}?=`);
    assert.equal(encodeHeaderValue('a b ~!'), 'a b ~!');
    assert.equal(encodeHeaderValue('=?base64?x'), '=?base64?x', 'only a full sentinel match is ambiguous');
    assert.equal(encodeHeaderValue(''), '');
  });

  test('argument values: strings, integers and booleans; nothing for the rest', () => {
    assert.equal(headerValueOf('x'), 'x');
    assert.equal(headerValueOf(42), '42');
    assert.equal(headerValueOf(-7), '-7');
    assert.equal(headerValueOf(false), 'false');
    assert.equal(headerValueOf(1.5), undefined);
    assert.equal(headerValueOf(2 ** 53), undefined);
    assert.equal(headerValueOf(null), undefined);
    assert.equal(headerValueOf(undefined), undefined);
    assert.equal(headerValueOf({}), undefined);
  });

  test('Mcp-Name sources', () => {
    const nameField = (method: string) => methodSpec(method)?.nameParam;
    assert.equal(nameField('tools/call'), 'name');
    assert.equal(nameField('prompts/get'), 'name');
    assert.equal(nameField('resources/read'), 'uri');
    assert.equal(nameField('tasks/get'), 'taskId');
    assert.equal(nameField('tasks/update'), 'taskId');
    assert.equal(nameField('tools/list'), undefined);
  });
});

describe('x-mcp-header rules', () => {
  const h = (name: unknown, type: unknown = 'string') => ({ type, 'x-mcp-header': name });
  const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    ...extra,
  });

  test('collects annotated properties at any depth of "properties"', () => {
    const scan = scanToolHeaders(
      object({ region: h('Region'), deep: object({ n: h('N', 'integer'), flag: h('Flag', 'boolean') }) }),
    );
    assert.deepEqual(scan, {
      ok: true,
      params: [
        { path: ['region'], header: 'mcp-param-region', name: 'Mcp-Param-Region' },
        { path: ['deep', 'n'], header: 'mcp-param-n', name: 'Mcp-Param-N' },
        { path: ['deep', 'flag'], header: 'mcp-param-flag', name: 'Mcp-Param-Flag' },
      ],
    });
    assert.deepEqual(scanToolHeaders(undefined), { ok: true, params: [] });
    assert.deepEqual(scanToolHeaders(object({ 'x-mcp-header': { type: 'string' } })), {
      ok: true,
      params: [],
    });
  });

  const invalid: [string, unknown, RegExp][] = [
    ['empty name', object({ a: h('') }), /not a non-empty HTTP token/],
    ['not a token', object({ a: h('a:b') }), /not a non-empty HTTP token/],
    ['CR/LF', object({ a: h('a\r\nX-Evil') }), /not a non-empty HTTP token/],
    ['not a string', object({ a: h(5) }), /not a non-empty HTTP token/],
    ['type number', object({ a: h('A', 'number') }), /type "number"/],
    ['no type', object({ a: { 'x-mcp-header': 'A' } }), /type null/],
    ['type list', object({ a: h('A', ['string', 'null']) }), /only string, integer and boolean/],
    ['object type', object({ a: h('A', 'object') }), /type "object"/],
    ['duplicate ignoring case', object({ a: h('Tenant'), b: h('TENANT') }), /repeats "Tenant"/],
    ['on the root', { type: 'object', 'x-mcp-header': 'Root' }, /the schema root/],
    ['under items', object({ a: { type: 'array', items: h('A') } }), /not on a property reachable/],
    [
      'under prefixItems',
      object({ a: { type: 'array', prefixItems: [h('A')] } }),
      /not on a property reachable/,
    ],
    [
      'under additionalProperties',
      object({}, { additionalProperties: h('A') }),
      /not on a property reachable/,
    ],
    ['under anyOf', object({}, { anyOf: [object({ a: h('A') })] }), /not on a property reachable/],
    ['under not', object({}, { not: object({ a: h('A') }) }), /not on a property reachable/],
    ['under else', object({}, { if: {}, else: object({ a: h('A') }) }), /not on a property reachable/],
    [
      'in $defs (behind a $ref)',
      object({ a: { $ref: '#/$defs/A' } }, { $defs: { A: h('A') } }),
      /not on a property reachable/,
    ],
    [
      'under patternProperties',
      object({}, { patternProperties: { '^a': h('A') } }),
      /not on a property reachable/,
    ],
    [
      'under properties of an anyOf branch',
      object({ a: { anyOf: [object({ b: h('B') })] } }),
      /not on a property reachable/,
    ],
  ];
  for (const [what, schema, reason] of invalid) {
    test(`invalid: ${what}`, () => {
      const scan = scanToolHeaders(schema);
      assert.equal(scan.ok, false);
      assert.match((scan as { reason: string }).reason, reason);
    });
  }

  test('the index drops invalid tools in place and mirrors the arguments of valid ones', () => {
    const index = new ToolHeaderIndex();
    const result = {
      tools: [
        { name: 'ok', inputSchema: object({ r: h('Region'), n: h('Count', 'integer') }) },
        { name: 'bad', inputSchema: object({ r: h('Region', 'number') }) },
      ],
    };
    const warnings = index.learn(result);
    assert.deepEqual(
      result.tools.map((t) => t.name),
      ['ok'],
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /^Tool "bad" was dropped from tools\/list: x-mcp-header "Region" at "r"/);
    const headers: Record<string, string> = {};
    index.addHeaders('ok', { r: 'Köln', n: 3 }, headers);
    assert.deepEqual(headers, { 'mcp-param-region': '=?base64?S8O2bG4=?=', 'mcp-param-count': '3' });
    const none: Record<string, string> = {};
    index.addHeaders('bad', { r: 1 }, none);
    index.addHeaders('ok', 'not an object', none);
    assert.deepEqual(none, {});
  });
});

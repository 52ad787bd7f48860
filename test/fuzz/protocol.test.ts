/**
 * Property tests of the protocol's pure functions: JSON-RPC envelope classification on arbitrary
 * JSON, `Mcp-*` header values encoded and decoded, and RFC 6570 URI templates expanded and matched.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { classify, isRequestId } from '../../src/protocol/jsonrpc.js';
import { decodeHeaderValue, encodeHeaderValue, headerValueOf } from '../../src/protocol/mcp-headers.js';
import { UriTemplate } from '../../src/server/uri-template.js';

const id = fc.oneof(fc.string({ maxLength: 10 }), fc.integer());
const params = fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 })), {
  nil: undefined,
});
const method = fc.string({ minLength: 1, maxLength: 20 });

describe('classify (property)', () => {
  test('any JSON value: never throws, and what it accepts has the shape it claims', () => {
    const anyMessage = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 0 })),
          id: fc.oneof(id, fc.jsonValue({ maxDepth: 1 })),
          method: fc.oneof(method, fc.jsonValue({ maxDepth: 1 })),
          params: fc.jsonValue({ maxDepth: 2 }),
          result: fc.jsonValue({ maxDepth: 2 }),
          error: fc.oneof(
            fc.record({ code: fc.integer(), message: fc.string() }),
            fc.jsonValue({ maxDepth: 1 }),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(anyMessage, (value) => {
        const c = classify(value);
        const v = value as Record<string, any>;
        switch (c.kind) {
          case 'request':
            assert.ok(isRequestId(v.id) && typeof v.method === 'string' && v.method !== '');
            assert.ok(
              v.params === undefined ||
                (typeof v.params === 'object' && v.params !== null && !Array.isArray(v.params)),
            );
            break;
          case 'notification':
            assert.ok(!('id' in v) && typeof v.method === 'string' && v.method !== '');
            break;
          case 'result':
            assert.ok(
              isRequestId(v.id) && typeof v.result === 'object' && v.result !== null && !('error' in v),
            );
            break;
          case 'error':
            assert.ok((isRequestId(v.id) || v.id === null) && typeof v.error.code === 'number');
            break;
          case 'invalid':
            assert.equal(typeof c.reason, 'string');
            assert.ok(c.id === null || isRequestId(c.id));
            break;
        }
        if (c.kind !== 'invalid') assert.equal(v.jsonrpc, '2.0');
      }),
      { numRuns: 2000 },
    );
  });

  test('well-formed messages are classified as what they are', () => {
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constant('2.0'), id, method, params }).map((m) => ({ m, kind: 'request' })),
      fc.record({ jsonrpc: fc.constant('2.0'), method, params }).map((m) => ({ m, kind: 'notification' })),
      fc
        .record({
          jsonrpc: fc.constant('2.0'),
          id,
          result: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })),
        })
        .map((m) => ({ m, kind: 'result' })),
      fc
        .record({
          jsonrpc: fc.constant('2.0'),
          id: fc.oneof(id, fc.constant(null)),
          error: fc.record({ code: fc.integer(), message: fc.string() }),
        })
        .map((m) => ({ m, kind: 'error' })),
    );
    fc.assert(
      fc.property(message, ({ m, kind }) => {
        // Through JSON, as a peer's message arrives (drops undefined params, normalizes -0).
        const value = JSON.parse(JSON.stringify(m));
        assert.equal(classify(value).kind, kind);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('Mcp-* header values (property)', () => {
  test('any string survives encode then decode, and the encoded form is a valid header value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (s) => {
        const encoded = encodeHeaderValue(s);
        assert.match(encoded, /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$|^$/, 'visible ASCII, no edge spaces');
        assert.equal(decodeHeaderValue(encoded), s);
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
        // Lone surrogates are not UTF-8: they are encoded as U+FFFD, like every UTF-8 encoder does.
        const wellFormed = new TextDecoder().decode(new TextEncoder().encode(s));
        assert.equal(decodeHeaderValue(encodeHeaderValue(s)), wellFormed);
      }),
      { numRuns: 1000 },
    );
  });

  test('arguments: strings, safe integers and booleans round trip; other values get no header', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 1 }), (value) => {
        const header = headerValueOf(value);
        if (typeof value === 'string') assert.equal(decodeHeaderValue(header!), value);
        else if (typeof value === 'boolean') assert.equal(header, String(value));
        // -0 goes out as "0", as JSON itself writes it.
        else if (typeof value === 'number' && Number.isSafeInteger(value))
          assert.ok(Number(header) === value);
        else assert.equal(header, undefined);
      }),
      { numRuns: 1000 },
    );
  });

  test('decoding arbitrary header text never throws, and never yields a control character it did not carry', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string().map((s) => `=?base64?${s}?=`),
        ),
        (raw) => {
          const decoded = decodeHeaderValue(raw);
          if (decoded !== undefined && !raw.startsWith('=?base64?')) assert.equal(decoded, raw);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('URI templates (property)', () => {
  /** Values as a client would send them: any string, percent-encoded by expansion. */
  const value = fc.string({ unit: 'grapheme', maxLength: 12 });

  test('expand then match gives the values back: simple, reserved, path, query and fragment expressions', () => {
    const cases: [string, (v: { a: string; b: string }) => boolean][] = [
      // Separated by a literal that expansion always encodes in a simple value.
      ['mem://items/{a}/{b}', () => true],
      ['mem://q{?a,b}', () => true],
      ['mem://p{/a,b}', () => true],
      // '.' is unreserved (never encoded): ambiguous when the first value holds one (shortest wins).
      ['mem://x/{a}.{b}', (v) => !v.a.includes('.')],
      // Reserved expansion keeps '/', so the values must not contain the separator.
      ['mem://{+a}!{b}', (v) => !v.a.includes('!') && v.a !== ''],
    ];
    for (const [source, applies] of cases) {
      const template = new UriTemplate(source);
      fc.assert(
        fc.property(
          fc.record({ a: value.filter((s) => s !== ''), b: value.filter((s) => s !== '') }),
          (v) => {
            fc.pre(applies(v));
            const uri = template.expand(v);
            assert.deepEqual({ ...template.match(uri) }, { ...v }, `${source} → ${uri}`);
          },
        ),
        { numRuns: 300 },
      );
    }
  });

  test('matching any URI never throws, and values come back decoded (a%2Fb is a/b: the round trip above)', () => {
    const template = new UriTemplate('file:///docs/{name}');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (tail) => {
        const match = template.match(`file:///docs/${tail}`);
        if (match) assert.equal(typeof match.name, 'string');
      }),
      { numRuns: 2000 },
    );
    assert.deepEqual({ ...template.match('file:///docs/a%2Fb') }, { name: 'a/b' });
  });
});

/**
 * The stdio line decoder under random chunking and random bytes, against a reference splitter: split
 * the whole byte stream at every '\n', and decode each line on its own. Whatever the chunk boundaries
 * (inside a multi-byte character, between '\r' and '\n', in a BOM), the decoder must deliver exactly
 * what the reference does, in the same order.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { JsonLineDecoder } from '../../src/transports/stdio/framing.js';
import { cut } from '../helpers/cut.js';

type Out = { message: unknown } | { malformed: number };

/** What the decoder delivers for `bytes` pushed as the given pieces. */
function decode(pieces: Uint8Array[], maxMessageBytes?: number): Out[] {
  const out: Out[] = [];
  const decoder = new JsonLineDecoder(
    {
      message: (value) => out.push({ message: value }),
      malformed: (error) => out.push({ malformed: error.code }),
    },
    { maxMessageBytes },
  );
  for (const piece of pieces) decoder.push(piece);
  decoder.end();
  return out;
}

/** The reference: the spec of the framing, applied to the whole stream at once. */
function reference(bytes: Uint8Array, max = Number.POSITIVE_INFINITY): Out[] {
  const out: Out[] = [];
  const text = new TextDecoder('utf-8', { ignoreBOM: true });
  let start = 0;
  let first = true;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    const last = end === -1;
    if (last) end = bytes.length;
    const line = bytes.subarray(start, end);
    start = end + 1;
    if (line.length > max) {
      out.push({ malformed: -32600 });
      first = false;
      continue;
    }
    let from = 0;
    let to = line.length;
    if (first && to >= 3 && line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) from = 3;
    first = false;
    if (to > from && line[to - 1] === 0x0d) to--;
    const decoded = text.decode(line.subarray(from, to));
    if (decoded.trim() === '') continue;
    try {
      out.push({ message: JSON.parse(decoded) });
    } catch {
      out.push({ malformed: -32700 });
    }
  }
  return out;
}

const encoder = new TextEncoder();

describe('JsonLineDecoder (property)', () => {
  test('JSON messages on lines, cut anywhere, come out whole and in order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            value: fc.jsonValue({ maxDepth: 4 }),
            crlf: fc.boolean(),
            blankBefore: fc.boolean(),
          }),
          { maxLength: 20 },
        ),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 30 }),
        (lines, bom, offsets) => {
          let text = bom ? '\ufeff' : '';
          for (const { value, crlf, blankBefore } of lines) {
            if (blankBefore) text += crlf ? '  \r\n' : '\n';
            text += JSON.stringify(value) + (crlf ? '\r\n' : '\n');
          }
          const bytes = encoder.encode(text);
          const got = decode(cut(bytes, offsets));
          assert.deepEqual(got, reference(bytes));
          assert.deepEqual(
            got.map((o) => ('message' in o ? o.message : o)),
            lines.map((l) => JSON.parse(JSON.stringify(l.value))),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  test('random bytes (invalid UTF-8, stray CRs, BOMs), cut anywhere, under a size cap', () => {
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x0a, 0x0d, 0x7b, 0x7d, 0x22, 0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0xf0, 0x9f),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 40 }),
            fc.array(byte, { maxLength: 40 }).map((a) => Uint8Array.from(a)),
            fc.jsonValue({ maxDepth: 2 }).map((v) => encoder.encode(`${JSON.stringify(v)}\n`)),
          ),
          { maxLength: 12 },
        ),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
        (parts, offsets, max) => {
          const bytes = Uint8Array.from(parts.flatMap((p) => [...p]));
          assert.deepEqual(decode(cut(bytes, offsets), max), reference(bytes, max));
        },
      ),
      { numRuns: 500 },
    );
  });
});

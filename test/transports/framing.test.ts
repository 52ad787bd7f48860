import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProtocolError } from '../../src/protocol/errors.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { MAX_JSON_DEPTH } from '../../src/protocol/json-depth.js';
import { encodeFrame, JsonLineDecoder } from '../../src/transports/stdio/framing.js';

const utf8 = new TextEncoder();

function collect(maxMessageBytes?: number) {
  const messages: unknown[] = [];
  const errors: ProtocolError[] = [];
  const decoder = new JsonLineDecoder(
    { message: (value) => messages.push(value), malformed: (error) => errors.push(error) },
    { maxMessageBytes },
  );
  return { decoder, messages, errors };
}

function bytes(text: string): Uint8Array {
  return utf8.encode(text);
}

describe('JsonLineDecoder', () => {
  test('a line too short to nest deeper than the limit is marked shallow (the engine skips its walk); a longer one never is', () => {
    const extras: unknown[] = [];
    const decoder = new JsonLineDecoder({
      message: (_value, extra) => extras.push(extra),
      malformed: () => {},
    });
    const limit = MAX_JSON_DEPTH;
    // 2 * limit characters can hold `limit` levels at most; one character more may hold limit + 1.
    const nested = (n: number, pad = 0) => `${'['.repeat(n)}${' '.repeat(pad)}${']'.repeat(n)}`;
    decoder.push(bytes(`${nested(limit)}\n${nested(limit, 1)}\n{"a":1}\n`));
    assert.deepEqual(extras, [{ shallow: true }, undefined, { shallow: true }]);
    decoder.push(bytes(`${nested(limit + 1)}`));
    decoder.end();
    assert.equal(extras[3], undefined, 'a line deep enough to be refused was marked shallow');
  });

  test('delivers many messages from one chunk, in order', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes('{"a":1}\n{"b":2}\n[1,2]\n"s"\n'));
    assert.deepEqual(messages, [{ a: 1 }, { b: 2 }, [1, 2], 's']);
    assert.deepEqual(errors, []);
  });

  test('one chunk of many lines follows the same rules as lines pushed one by one', () => {
    // Whole lines of a chunk are decoded together; every rule must hold inside such a run.
    const stream = Buffer.concat([
      bytes('\uFEFF{"a":1}\r\n\n   \n{"b":"é"}\n'),
      Uint8Array.of(0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xe2, 0x22, 0x7d, 0x0a), // {"c":"<bad UTF-8>"}
      bytes(`{"big":"${'x'.repeat(40)}"}\nnot json\n\uFEFF{"d":4}\n{"e":5}`),
    ]);
    const whole = collect(30);
    whole.decoder.push(stream);
    whole.decoder.end();
    const byteWise = collect(30);
    for (const byte of stream) byteWise.decoder.push(Uint8Array.of(byte));
    byteWise.decoder.end();
    assert.deepEqual(whole.messages, [{ a: 1 }, { b: 'é' }, { c: '\uFFFD' }, { e: 5 }]);
    assert.deepEqual(whole.messages, byteWise.messages);
    assert.deepEqual(
      whole.errors.map((e) => e.code),
      [-32600, -32700, -32700],
    );
    assert.deepEqual(
      whole.errors.map((e) => e.code),
      byteWise.errors.map((e) => e.code),
    );
  });

  test('reassembles messages pushed one byte at a time, including multi-byte UTF-8', () => {
    const { decoder, messages, errors } = collect();
    const text = '{"text":"héllo → 世界 🎉"}\n{"n":2}\n';
    for (const byte of bytes(text)) decoder.push(Uint8Array.of(byte));
    assert.deepEqual(messages, [{ text: 'héllo → 世界 🎉' }, { n: 2 }]);
    assert.deepEqual(errors, []);
    assert.equal(decoder.pendingBytes, 0);
  });

  test('decodes a 4-byte character split across two chunks at every position', () => {
    const encoded = bytes('{"e":"🎉"}\n');
    for (let cut = 1; cut < encoded.length; cut++) {
      const { decoder, messages } = collect();
      decoder.push(encoded.subarray(0, cut));
      decoder.push(encoded.subarray(cut));
      assert.deepEqual(messages, [{ e: '🎉' }], `cut at ${cut}`);
    }
  });

  test('strips a byte order mark at the start of the stream, even when split', () => {
    const { decoder, messages, errors } = collect();
    const encoded = bytes('\uFEFF{"a":1}\n');
    decoder.push(encoded.subarray(0, 1));
    decoder.push(encoded.subarray(1, 2));
    decoder.push(encoded.subarray(2));
    assert.deepEqual(messages, [{ a: 1 }]);
    assert.deepEqual(errors, []);
  });

  test('a byte order mark later in the stream is not stripped', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes('{"a":1}\n\uFEFF{"b":2}\n'));
    assert.deepEqual(messages, [{ a: 1 }]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, -32700);
  });

  test('accepts CRLF line endings and ignores empty and blank lines', () => {
    const { decoder, messages, errors } = collect();
    decoder.push(bytes('\n\r\n{"a":1}\r\n  \n\t\r\n{"b":2}\r'));
    decoder.push(bytes('\n\n'));
    assert.deepEqual(messages, [{ a: 1 }, { b: 2 }]);
    assert.deepEqual(errors, []);
  });

  test('reports a non-JSON line with a safe, quoted prefix and goes on with the next line', () => {
    const { decoder, messages, errors } = collect();
    const log = `Server started \u001b[31mred\u001b[0m \u202e ${'z'.repeat(200)}`;
    decoder.push(bytes(`${log}\n{"ok":true}\n`));
    assert.deepEqual(messages, [{ ok: true }]);
    assert.equal(errors.length, 1);
    const error = errors[0]!;
    assert.equal(error.code, -32700);
    assert.match(error.message, /^Received a line that is not valid JSON: "Server started \\u001b\[31mred/);
    assert.match(error.message, /stderr/);
    const unsafe = [...error.message].filter((c) => c.charCodeAt(0) < 0x20 || c === '\u202e');
    assert.deepEqual(unsafe, [], 'control characters are escaped');
    assert.ok(!error.message.includes('z'.repeat(100)), 'only a prefix is quoted');
  });

  test('drops an oversized line without buffering it, reports it once, then continues', () => {
    const { decoder, messages, errors } = collect(100);
    decoder.push(bytes('{"small":1}\n{"big":"'));
    for (let i = 0; i < 50; i++) {
      decoder.push(bytes('x'.repeat(1000)));
      assert.ok(decoder.pendingBytes <= 100, 'oversized bytes are not kept');
    }
    decoder.push(bytes('"}\n{"after":2}\n'));
    assert.deepEqual(messages, [{ small: 1 }, { after: 2 }]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, -32600);
    assert.match(
      errors[0]!.message,
      /at least \d+ bytes.*maxMessageBytes=100; raise maxMessageBytes or send smaller/,
    );
  });

  test('an oversized line inside a single chunk is dropped too', () => {
    const { decoder, messages, errors } = collect(10);
    decoder.push(bytes(`{"x":"${'y'.repeat(20)}"}\n{"a":1}\n`));
    assert.deepEqual(messages, [{ a: 1 }]);
    assert.equal(errors.length, 1);
  });

  test('a line of exactly maxMessageBytes is accepted', () => {
    const line = '{"a":"12345"}';
    const { decoder, messages, errors } = collect(line.length);
    decoder.push(bytes(`${line}\n`));
    assert.deepEqual(messages, [{ a: '12345' }]);
    assert.deepEqual(errors, []);
  });

  test('end() decodes a last line without a newline', () => {
    const { decoder, messages } = collect();
    decoder.push(bytes('{"a":1}\n{"b"'));
    decoder.push(bytes(':2}'));
    assert.deepEqual(messages, [{ a: 1 }]);
    decoder.end();
    assert.deepEqual(messages, [{ a: 1 }, { b: 2 }]);
  });

  test('rejects a maxMessageBytes that is not a positive integer', () => {
    assert.throws(() => collect(0), SwitchboardError);
    assert.throws(() => collect(1.5), /positive integer/);
  });

  test('a 10 MB message in 64 KiB chunks is scanned once per byte', () => {
    // Counts every byte the decoder scans for '\n'; a decoder that re-scans or re-joins its buffer
    // per chunk (the quadratic pattern) would scan ~80x more here.
    let scanned = 0;
    class CountingChunk extends Uint8Array {
      override indexOf(value: number, from = 0): number {
        const found = super.indexOf(value, from);
        scanned += (found === -1 ? this.length : found + 1) - from;
        return found;
      }
    }
    const payload = 'é'.repeat(5 * 1024 * 1024);
    const encoded = bytes(`${JSON.stringify({ id: 1, payload })}\n{"id":2}\n`);
    const { decoder, messages, errors } = collect();
    const chunkSize = 64 * 1024;
    for (let offset = 0; offset < encoded.length; offset += chunkSize) {
      const chunk = new CountingChunk(encoded.subarray(offset, offset + chunkSize));
      decoder.push(chunk);
    }
    assert.deepEqual(errors, []);
    assert.equal(messages.length, 2);
    assert.equal((messages[0] as { payload: string }).payload, payload);
    assert.equal(scanned, encoded.length);
  });
});

describe('encodeFrame', () => {
  test('appends the newline', () => {
    assert.equal(encodeFrame('{"a":1}'), '{"a":1}\n');
  });

  test('refuses a frame with a raw newline', () => {
    assert.throws(
      () => encodeFrame('{\n  "a": 1\n}'),
      (error: unknown) =>
        error instanceof SwitchboardError &&
        error.code === 'TRANSPORT' &&
        /raw line break/.test(error.message),
    );
  });
});

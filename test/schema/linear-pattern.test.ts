/** Peer patterns under RE2: ECMA-262 escapes rewritten, the same answers as V8 on ordinary patterns. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadLinearPatterns, toRe2Syntax } from '../../src/schema/linear-pattern.js';

describe('linear patterns', () => {
  test('\\u escapes become \\x{...}; escaped backslashes and lone surrogates are handled', () => {
    assert.equal(toRe2Syntax('^[\\u0041-\\u005A]+$'), '^[\\x{41}-\\x{5a}]+$');
    assert.equal(toRe2Syntax('\\\\u0041'), '\\\\u0041');
    assert.equal(toRe2Syntax('\\ud83d\\ude00'), '\\x{1f600}');
    assert.equal(toRe2Syntax('\\u{1F600}x'), '\\x{1F600}x');
    assert.throws(() => toRe2Syntax('\\ud83d'), /lone surrogate/);
    assert.throws(() => toRe2Syntax('\\ude00'), /lone surrogate/);
    assert.throws(() => toRe2Syntax('\\u12'), /invalid escape/);
  });

  test('ordinary patterns answer as V8 does', async () => {
    const patterns = await loadLinearPatterns();
    const cases: [string, string[]][] = [
      ['^\\d{4}-\\d{2}-\\d{2}$', ['2024-01-31', '2024-1-31', 'x2024-01-31', '']],
      ['^[a-z0-9-]+$', ['abc-1', 'ABC', 'a b', '-']],
      ['^https?://', ['https://x', 'http://', 'ftp://x']],
      ['[^@]+@[^@]+\\.[^@]+', ['a@b.c', 'a@b', '@b.c']],
      ['^\\p{Lu}\\p{Ll}+$', ['Élan', 'élan', 'E']],
      ['^.$', ['😀', 'ab', '\n']],
      ['^[\\u0041-\\u005A]{2}$', ['AZ', 'az', 'A']],
      ['colou?r', ['color', 'colour', 'colr']],
    ];
    for (const [source, values] of cases) {
      const linear = patterns.compile(source, 'test');
      const native = new RegExp(source, 'u');
      for (const value of values)
        assert.equal(linear(value), native.test(value), `${source} on ${JSON.stringify(value)}`);
    }
  });

  test('patterns RE2 cannot run are a CONFIG error naming the schema', async () => {
    const patterns = await loadLinearPatterns();
    for (const source of ['(?=a)b', '(a)\\1', '(?<!x)y']) {
      assert.throws(
        () => patterns.compile(source, 'The outputSchema of tool "t"'),
        (error: Error) => {
          assert.match(
            error.message,
            /outputSchema of tool "t" has the pattern .* cannot be matched in linear time/,
          );
          return true;
        },
      );
    }
  });
});

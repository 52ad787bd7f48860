/**
 * Regular expressions a peer supplied (the `pattern`s of a server's outputSchema, as the client
 * checks results against it) are matched in linear time, with RE2 (`re2js`, a pure-JavaScript port):
 * a backtracking engine such as V8's runs `^(a+)+$` on 28 characters for 20 seconds, and nothing can
 * interrupt it. A pattern RE2 cannot run (lookaround, backreferences) is not run at all.
 *
 * Patterns are JSON Schema's ECMA-262 regexes with the `u` flag; RE2 runs their common subset with the
 * same meaning (code points, unanchored search), after `\uXXXX` and `\u{X}` escapes are rewritten
 * into RE2's `\x{X}`. The rare differences (`\s` is ASCII whitespace in RE2) only make a check
 * slightly looser or stricter; never slow.
 *
 * `re2js` is loaded on first use (it is 260 KB, and most peers' schemas have no pattern).
 */
import { SwitchboardError } from '../protocol/errors.js';
import { errorMessage } from '../util/guards.js';

/** A compiled pattern: whether `value` contains a match (JSON Schema patterns are not anchored). */
export type PatternTest = (value: string) => boolean;

/** Compiles peer patterns for linear-time matching. */
export interface LinearPatterns {
  /** The test for `source`, or a CONFIG error naming `where` when RE2 cannot run it. */
  compile(source: string, where: string): PatternTest;
}

let loading: Promise<LinearPatterns> | undefined;

/** The linear-time pattern compiler, loading `re2js` the first time. */
export function loadLinearPatterns(): Promise<LinearPatterns> {
  loading ??= import('re2js').then(({ RE2JS }) => {
    const cache = new Map<string, PatternTest>();
    return {
      compile(source, where) {
        const cached = cache.get(source);
        if (cached) return cached;
        let re: InstanceType<typeof RE2JS>;
        try {
          re = RE2JS.compile(toRe2Syntax(source));
        } catch (error) {
          throw new SwitchboardError(
            'CONFIG',
            `${where} has the pattern ${JSON.stringify(source)}, which cannot be matched in linear time ` +
              `(${errorMessage(error)}; lookaround and backreferences ` +
              'can take exponential time): values are not checked against this schema.',
            { cause: error },
          );
        }
        const test: PatternTest = (value) => re.matcher(value).find();
        // Peers send the same few patterns again with every list; a hostile one cannot grow this.
        if (cache.size >= 1000) cache.delete(cache.keys().next().value!);
        cache.set(source, test);
        return test;
      },
    };
  });
  return loading;
}

/** Whether a schema's JSON text may hold a pattern (then the engine is loaded before compiling it). */
export const mayHavePatterns = (json: string): boolean => json.includes('"pattern');

/**
 * Rewrites the escapes ECMA-262 has and RE2 spells differently: `\uXXXX` (a surrogate pair as one
 * code point, as the `u` flag reads it) and `\u{X}` become `\x{X}`. A lone surrogate is refused.
 */
export function toRe2Syntax(source: string): string {
  if (!source.includes('\\u')) return source;
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = source[i + 1];
    if (next !== 'u') {
      // Any other escape (`\\` included) passes through whole, so `\\u` is not read as `\u`.
      out += c + (next ?? '');
      i++;
      continue;
    }
    const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(source.slice(i + 2));
    if (braced) {
      out += `\\x{${braced[1]}}`;
      i += 1 + braced[0].length;
      continue;
    }
    const unit = readUnit(source, i);
    if (unit === undefined) throw new Error(`invalid escape \\u at ${i}`);
    let codePoint = unit;
    i += 5;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const low = readUnit(source, i + 1);
      if (low === undefined || low < 0xdc00 || low > 0xdfff) throw new Error('a lone surrogate');
      codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      i += 6;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      throw new Error('a lone surrogate');
    }
    out += `\\x{${codePoint.toString(16)}}`;
  }
  return out;
}

/** The code unit of a `\uXXXX` escape starting at `at`, if there is one. */
function readUnit(source: string, at: number): number | undefined {
  if (source[at] !== '\\' || source[at + 1] !== 'u') return undefined;
  const hex = source.slice(at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? Number.parseInt(hex, 16) : undefined;
}

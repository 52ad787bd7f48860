/**
 * A test's expectations held against its answer. Every condition that fails is reported, each with
 * what was expected, what came, and (for values) a line diff.
 */
import type { LinearPatterns } from '../schema/linear-pattern.js';
import type { Answer } from './answer.js';
import { canonicalJson, deepEqual, lineDiff, subsetMismatch } from './compare.js';
import type { Bound, Expectations, TextExpectation } from './format.js';
import { lookUp } from './json-path.js';

export interface Failure {
  /** What did not hold, in one sentence. */
  readonly message: string;
  readonly expected?: string;
  readonly actual?: string;
  /** `-` expected, `+` actual. */
  readonly diff?: string;
}

export function evaluate(expect: Expectations, answer: Answer, patterns: LinearPatterns): Failure[] {
  const failures: Failure[] = [];
  if (answer.outcome !== expect.outcome) {
    failures.push({
      message: `expected outcome ${expect.outcome}, got ${answer.outcome}${answer.outcome === 'error' ? ` (${describeError(answer.value)})` : ''}`,
      expected: expect.outcome,
      actual: canonicalJson(answer.value),
    });
    // The other checks describe the answer the outcome names; against another kind they only add noise.
    return failures;
  }
  if (expect.text) {
    const failure = textFailure('text', expect.text, answer.text, patterns);
    if (failure) failures.push(failure);
  }
  if ('structuredContent' in expect) {
    const actual = (answer.value as { structuredContent?: unknown }).structuredContent;
    const at = subsetMismatch(expect.structuredContent, actual);
    if (at !== undefined) {
      const expected = canonicalJson(expect.structuredContent);
      const shown = canonicalJson(actual);
      failures.push({
        message: `structuredContent differs at ${at.replace(/^\$/, '$.structuredContent')}`,
        expected,
        actual: shown,
        diff: lineDiff(expected, shown),
      });
    }
  }
  for (const check of expect.json ?? []) {
    const found = lookUp(answer.value, check.path);
    if ('exists' in check) {
      if (found.found !== check.exists) {
        failures.push({
          message: `${check.source} ${check.exists ? 'is missing' : 'is present but should not be'}`,
          actual: found.found ? canonicalJson(found.value) : '(nothing)',
        });
      }
      continue;
    }
    if (!found.found) {
      failures.push({
        message: `${check.source} is missing from the answer`,
        actual: canonicalJson(answer.value),
      });
      continue;
    }
    if ('equals' in check) {
      if (!deepEqual(check.equals, found.value)) {
        const expected = canonicalJson(check.equals);
        const actual = canonicalJson(found.value);
        failures.push({
          message: `${check.source} differs`,
          expected,
          actual,
          diff: lineDiff(expected, actual),
        });
      }
      continue;
    }
    if (typeof found.value !== 'string') {
      failures.push({
        message: `${check.source} is not a string, so it cannot ${'contains' in check ? 'contain' : 'match'} text`,
        actual: canonicalJson(found.value),
      });
      continue;
    }
    const failure = textFailure(check.source, check, found.value, patterns);
    if (failure) failures.push(failure);
  }
  if (expect.error) {
    const error = answer.value as { code?: unknown; message?: unknown };
    if (expect.error.code !== undefined && error.code !== expect.error.code) {
      failures.push({
        message: `expected error code ${expect.error.code}, got ${String(error.code)}`,
        expected: String(expect.error.code),
        actual: describeError(error),
      });
    }
    if (expect.error.message) {
      const failure = textFailure(
        'error.message',
        expect.error.message,
        String(error.message ?? ''),
        patterns,
      );
      if (failure) failures.push(failure);
    }
  }
  if (expect.durationMs) {
    const broken = brokenBound(expect.durationMs, answer.durationMs);
    if (broken)
      failures.push({ message: `the answer took ${Math.round(answer.durationMs)} ms; expected ${broken}` });
  }
  return failures;
}

function textFailure(
  what: string,
  expected: TextExpectation,
  actual: string,
  patterns: LinearPatterns,
): Failure | undefined {
  if ('equals' in expected) {
    if (actual === expected.equals) return undefined;
    return {
      message: `${what} differs`,
      expected: expected.equals,
      actual,
      diff: lineDiff(expected.equals, actual),
    };
  }
  if ('contains' in expected) {
    if (actual.includes(expected.contains)) return undefined;
    return {
      message: `${what} does not contain ${JSON.stringify(expected.contains)}`,
      expected: `contains ${expected.contains}`,
      actual,
    };
  }
  // Compiled once already when the file was read, so this cannot fail here.
  if (patterns.compile(expected.matches, 'matches')(actual)) return undefined;
  return {
    message: `${what} does not match /${expected.matches}/`,
    expected: `matches ${expected.matches}`,
    actual,
  };
}

function brokenBound(bound: Bound, value: number): string | undefined {
  if (bound.lt !== undefined && !(value < bound.lt)) return `under ${bound.lt} ms`;
  if (bound.lte !== undefined && !(value <= bound.lte)) return `at most ${bound.lte} ms`;
  if (bound.gt !== undefined && !(value > bound.gt)) return `over ${bound.gt} ms`;
  if (bound.gte !== undefined && !(value >= bound.gte)) return `at least ${bound.gte} ms`;
  return undefined;
}

function describeError(value: unknown): string {
  const error = value as { code?: unknown; message?: unknown };
  return `JSON-RPC error ${String(error.code)}: ${String(error.message)}`;
}

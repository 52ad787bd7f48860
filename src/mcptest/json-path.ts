/**
 * The JSONPath subset test files use to point into an answer: `$`, then `.name`, `['name']` or
 * `["name"]`, and `[index]` (a negative index counts from the end). No wildcards or filters: a
 * path names one place, so `equals` and `save` have one value to look at.
 */
import { isPlainObject } from '../util/guards.js';

export type JsonPath = readonly (string | number)[];

export class JsonPathError extends Error {
  override readonly name = 'JsonPathError';
}

export function parseJsonPath(source: string): JsonPath {
  if (!source.startsWith('$')) {
    throw new JsonPathError(
      `the path ${JSON.stringify(source)} does not start with $; write it from the answer's root, e.g. "$.content[0].text".`,
    );
  }
  const steps: (string | number)[] = [];
  let i = 1;
  while (i < source.length) {
    const c = source[i];
    if (c === '.') {
      const name = /^[A-Za-z_$][\w$-]*/.exec(source.slice(i + 1))?.[0];
      if (name === undefined) {
        throw new JsonPathError(
          `the path ${JSON.stringify(source)} has no member name after the "." at character ${i + 1}; for an unusual name write ['the name'].`,
        );
      }
      steps.push(name);
      i += 1 + name.length;
    } else if (c === '[') {
      const rest = source.slice(i);
      const index = /^\[(-?\d+)\]/.exec(rest);
      const quoted = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
      if (index) {
        steps.push(Number(index[1]));
        i += index[0].length;
      } else if (quoted) {
        steps.push((quoted[1] ?? quoted[2] ?? '').replace(/\\(.)/g, '$1'));
        i += quoted[0].length;
      } else {
        throw new JsonPathError(
          `the path ${JSON.stringify(source)} has a "[" at character ${i + 1} that is neither [index] nor ['name']; wildcards and filters are not supported.`,
        );
      }
    } else {
      throw new JsonPathError(
        `the path ${JSON.stringify(source)} has ${JSON.stringify(c)} at character ${i + 1} where "." or "[" should be.`,
      );
    }
  }
  return steps;
}

/** The value at `path`, or `found: false` when the answer has nothing there. */
export function lookUp(value: unknown, path: JsonPath): { found: true; value: unknown } | { found: false } {
  let node = value;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(node)) return { found: false };
      const index = step < 0 ? node.length + step : step;
      if (index < 0 || index >= node.length) return { found: false };
      node = node[index];
    } else {
      if (!isPlainObject(node) || !Object.hasOwn(node, step)) return { found: false };
      node = node[step];
    }
  }
  return { found: true, value: node };
}

/** A copy of `value` with the place at `path` replaced by `replacement` (nothing when the place is missing). */
export function replaceAt(value: unknown, path: JsonPath, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [step, ...rest] = path;
  if (typeof step === 'number' && Array.isArray(value)) {
    const index = step < 0 ? value.length + step : step;
    if (index < 0 || index >= value.length) return value;
    return value.map((item, i) => (i === index ? replaceAt(item, rest, replacement) : item));
  }
  if (typeof step === 'string' && isPlainObject(value) && Object.hasOwn(value, step)) {
    return { ...value, [step]: replaceAt(value[step], rest, replacement) };
  }
  return value;
}

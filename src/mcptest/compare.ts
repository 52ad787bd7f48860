/**
 * How answers are compared: a subset match for `structuredContent`, deep equality for `equals`,
 * text conditions, and the line diff a failure shows. JSON is always shown with its keys sorted, so
 * a diff (and a snapshot) never depends on the order a server wrote its members in.
 */
import { isPlainObject } from '../util/guards.js';

/** The value with every object's keys in sorted order (arrays keep theirs). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
    return out;
  }
  return value;
}

/** Pretty JSON with sorted keys: the form diffs and snapshots use. */
export function canonicalJson(value: unknown): string {
  return value === undefined ? '(nothing)' : JSON.stringify(sortKeys(value), null, 2);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/**
 * Whether `actual` holds `expected`: every member of an expected object is in the actual one with a
 * matching value (more members are fine), arrays match item by item and length, other values exactly.
 * Returns the path of the first difference, or undefined.
 */
export function subsetMismatch(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return path;
    for (const [key, value] of Object.entries(expected)) {
      const where = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
      if (!Object.hasOwn(actual, key)) return where;
      const inner = subsetMismatch(value, actual[key], where);
      if (inner) return inner;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return path;
    for (let i = 0; i < expected.length; i++) {
      const inner = subsetMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (inner) return inner;
    }
    return undefined;
  }
  return deepEqual(expected, actual) ? undefined : path;
}

/** The paths (`$.a[0].b`) where two values differ: leaves, or an array whose length changed. */
export function differingPaths(a: unknown, b: unknown, path = '$'): string[] {
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((item, i) => differingPaths(item, b[i], `${path}[${i}]`));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) =>
      differingPaths(
        a[key],
        b[key],
        /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
      ),
    );
  }
  return deepEqual(a, b) ? [] : [path];
}

/** The most lines a diff compares with the exact algorithm (n×m cells); longer texts are shown whole. */
const MAX_DIFF_CELLS = 4_000_000;

/**
 * A unified-style line diff from `expected` to `actual` (`-` expected, `+` actual), unchanged lines
 * kept within 3 of a change.
 */
export function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  if (a.length * b.length > MAX_DIFF_CELLS) {
    return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)].join('\n');
  }
  // Longest common subsequence, by lengths of suffixes.
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const lines: { mark: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      lines.push({ mark: ' ', text: a[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || table[i + 1]![j]! >= table[i]![j + 1]!)) {
      lines.push({ mark: '-', text: a[i]! });
      i++;
    } else {
      lines.push({ mark: '+', text: b[j]! });
      j++;
    }
  }
  const near = (k: number) => lines.slice(Math.max(0, k - 3), k + 4).some((l) => l.mark !== ' ');
  const out: string[] = [];
  let skipped = false;
  lines.forEach((line, k) => {
    if (line.mark !== ' ' || near(k)) {
      if (skipped) out.push('  ...');
      skipped = false;
      out.push(`${line.mark} ${line.text}`);
    } else skipped = true;
  });
  if (skipped) out.push('  ...');
  return out.join('\n');
}

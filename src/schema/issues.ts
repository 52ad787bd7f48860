/**
 * Issue paths and messages. A failed tool-argument check becomes the text of an `isError` tool
 * result, so everything here aims at a model reading it: say which field, what was expected, what
 * arrived. The JSON Schema validators (fast path and generic) build their messages only through
 * {@link issueText}, so both produce identical issues for the same input.
 */
import { jsonPreview } from '../util/clip.js';
import type { Issue } from './types.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends one segment to a path: `a` + `b` → `a.b`, `a` + 2 → `a[2]`, `a` + `x y` → `a["x y"]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent === '$' ? '' : parent}[${key}]`;
  if (IDENTIFIER.test(key)) return parent === '$' ? key : `${parent}.${key}`;
  return `${parent === '$' ? '' : parent}[${JSON.stringify(key)}]`;
}

/** A path from Standard Schema segments (`PropertyKey` or `{ key }`); `$` when empty. */
export function pathFromSegments(
  segments: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined,
) {
  let path = '$';
  if (!segments) return path;
  for (const segment of segments) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    path = typeof key === 'symbol' ? childPath(path, String(key)) : childPath(path, key);
  }
  return path;
}

/** The JSON type of a value, as a schema would name it. */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const PREVIEW_LIMIT = 40;

/** A short JSON rendering of a value for a message; long values are cut. */
export function preview(value: unknown): string {
  return jsonPreview(value, PREVIEW_LIMIT);
}

const ENUM_LIMIT = 10;

/** Message texts shared by both JSON Schema validators. */
export const issueText = {
  type(expected: readonly string[], value: unknown): string {
    // "received number" says nothing useful when an integer was wanted: show the value instead.
    const received =
      typeof value === 'number' && expected.includes('integer') ? String(value) : jsonTypeOf(value);
    return `expected ${expected.join(' or ')}, received ${received}`;
  },
  enum(allowed: readonly unknown[], value: unknown): string {
    const shown = allowed.slice(0, ENUM_LIMIT).map(preview).join(', ');
    const more = allowed.length > ENUM_LIMIT ? `, … (${allowed.length} values)` : '';
    return `expected one of ${shown}${more}, received ${preview(value)}`;
  },
  const: (expected: unknown, value: unknown) => `expected ${preview(expected)}, received ${preview(value)}`,
  required: 'required',
  requiredWith: (present: string) => `required when ${JSON.stringify(present)} is present`,
  unexpectedProperty: 'unexpected property (not allowed by the schema)',
  unexpectedItem: 'unexpected item (not allowed by the schema)',
  forbidden: 'not allowed by the schema',
  minLength: (min: number, length: number) => `expected at least ${min} characters, received ${length}`,
  maxLength: (max: number, length: number) => `expected at most ${max} characters, received ${length}`,
  pattern: (pattern: string, value: unknown) =>
    `expected a string matching the pattern ${pattern}, received ${preview(value)}`,
  format: (format: string, value: unknown) => `expected a valid ${format} string, received ${preview(value)}`,
  minimum: (limit: number, value: number) => `expected a number >= ${limit}, received ${value}`,
  maximum: (limit: number, value: number) => `expected a number <= ${limit}, received ${value}`,
  exclusiveMinimum: (limit: number, value: number) => `expected a number > ${limit}, received ${value}`,
  exclusiveMaximum: (limit: number, value: number) => `expected a number < ${limit}, received ${value}`,
  multipleOf: (divisor: number, value: number) => `expected a multiple of ${divisor}, received ${value}`,
  minItems: (min: number, length: number) => `expected at least ${min} items, received ${length}`,
  maxItems: (max: number, length: number) => `expected at most ${max} items, received ${length}`,
  uniqueItems: 'expected unique items, found duplicates',
  minProperties: (min: number, count: number) => `expected at least ${min} properties, received ${count}`,
  maxProperties: (max: number, count: number) => `expected at most ${max} properties, received ${count}`,
  noAlternative: (count: number) => `does not match any of the ${count} allowed alternatives`,
  manyAlternatives: (matches: number) => `matches ${matches} alternatives, but must match exactly one`,
  not: 'matches a schema it must not match ("not")',
  contains: 'expected at least one item matching the "contains" schema',
  /** The value holds something JSON cannot carry (undefined, a function, a bigint...). */
  notJson: (type: string) => `contains a value of type ${type}, which is not JSON`,
  /** A property name with a lone UTF-16 surrogate (JSON.parse can produce one). */
  malformedKey: 'contains a property name that is not well-formed Unicode',
  tooDeep: 'is nested too deeply to validate',
} as const;

/** A message listing thousands of issues helps no one (and could be made huge on purpose). */
const LISTED_ISSUES = 20;

/**
 * Joins issues into one model-readable message, e.g.
 * `Invalid arguments for tool "add": "a": expected number, received string; "b": required`.
 * Issues at the root carry no path prefix; a path that already quotes a key (`user["full name"]`)
 * is not quoted again. Only the first 20 issues are listed.
 */
export function formatIssues(issues: readonly Issue[], heading?: string): string {
  const parts = issues.slice(0, LISTED_ISSUES).map((issue) => {
    if (issue.path === '$') return issue.message;
    return issue.path.includes('"') ? `${issue.path}: ${issue.message}` : `"${issue.path}": ${issue.message}`;
  });
  if (issues.length > LISTED_ISSUES) parts.push(`and ${issues.length - LISTED_ISSUES} more issues`);
  const body = parts.length > 0 ? parts.join('; ') : 'invalid value';
  return heading ? `${heading}: ${body}` : body;
}

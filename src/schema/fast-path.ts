/**
 * A closure-compiled validator for the simple raw JSON Schemas most tools declare (`{ text: string }`
 * and friends). Validating `tools/call` arguments is the hot path; walking a schema object per call
 * the way a generic validator does costs several times more than a few precompiled closures.
 *
 * It accepts only a strict subset (see {@link compileFastPath}) and must agree with the generic
 * validator (`@cfworker/json-schema`, see `json-schema.ts`) on every input: same verdict, same issues
 * in the same order — including its quirks, e.g. a value JSON cannot carry fails the whole check.
 * Anything outside the subset returns `undefined` and the caller falls back to the generic path.
 * No `eval`, no `new Function`: it runs where code generation is forbidden (workerd, Deno Deploy).
 */
import { format as formats, ucs2length } from '@cfworker/json-schema';
import { isPlainObject } from '../util/guards.js';
import { childPath, issueText } from './issues.js';
import type { PatternTest } from './linear-pattern.js';
import type { Issue, ValidationResult } from './types.js';

export type FastValidator = (value: unknown) => ValidationResult<unknown>;

const TYPE_BITS: Readonly<Record<string, number>> = {
  string: 1,
  number: 2,
  integer: 4,
  boolean: 8,
  null: 16,
  object: 32,
  array: 64,
};

/** Keywords that never affect validation (cfworker ignores them too). */
const ANNOTATIONS = new Set([
  '$schema',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentMediaType',
  'contentEncoding',
]);

const NUMERIC_KEYWORDS = [
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
] as const;

const SUPPORTED = new Set<string>([
  ...NUMERIC_KEYWORDS,
  'type',
  'enum',
  'pattern',
  'format',
  'items',
  'properties',
  'required',
  'additionalProperties',
]);

/** Deeper schemas are legal but rare; the generic validator handles them. */
const MAX_DEPTH = 16;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The generic validator throws (and so rejects the whole value) on a value JSON cannot carry and on
 * a property name it cannot put in a JSON Pointer; the fast path mirrors that with this signal.
 */
class Unvalidatable {
  constructor(readonly message: string) {}
}

interface FastNode {
  /** True when the value is valid. Never throws. The hot path. */
  test(value: unknown): boolean;
  /** Pushes every issue in the generic validator's order; throws {@link Unvalidatable}. */
  collect(value: unknown, path: string, issues: Issue[]): void;
}

interface NodeSpec {
  typeNames: readonly string[] | undefined;
  typeMask: number;
  enumValues: ReadonlySet<unknown> | undefined;
  enumList: readonly unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: PatternTest;
  patternSource?: string;
  formatName?: string;
  formatCheck?: (s: string) => boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: FastNode;
  required: readonly string[];
  properties: ReadonlyArray<{ key: string; node: FastNode }>;
  declared: ReadonlySet<string>;
  additionalProperties: boolean | undefined;
}

/**
 * Returns a validator when `schema` is in the subset, else `undefined`. The subset: a root with
 * `type: "object"`; at any depth the keywords `type` (one or an array of the seven JSON types),
 * `enum` (primitive values), `minLength`, `maxLength`, `pattern`, `format`, `minimum`, `maximum`,
 * `exclusiveMinimum`, `exclusiveMaximum`, `properties`, `required`, `additionalProperties`
 * (boolean), `items` (one schema), `minItems`, `maxItems`; annotations (`title`, `description`,
 * `default`, `examples`, ...), `x-*` extensions, and `$id` at the root.
 */
export function compileFastPath(
  schema: Record<string, unknown>,
  compilePattern: (source: string) => PatternTest = nativePattern,
): FastValidator | undefined {
  if (schema.type !== 'object') return undefined;
  const root = compileNode(schema, 0, compilePattern);
  if (!root) return undefined;
  return (value) => {
    if (root.test(value)) return { ok: true, value };
    const issues: Issue[] = [];
    try {
      root.collect(value, '$', issues);
    } catch (error) {
      if (!(error instanceof Unvalidatable)) throw error;
      return { ok: false, issues: [{ path: '$', message: error.message }] };
    }
    return { ok: false, issues };
  };
}

/** A pattern of the server's own schema, for V8's engine (`u` flag, as JSON Schema reads it). */
function nativePattern(source: string): PatternTest {
  const re = new RegExp(source, 'u');
  return (value) => re.test(value);
}

function compileNode(
  schema: unknown,
  depth: number,
  compilePattern: (source: string) => PatternTest,
): FastNode | undefined {
  if (depth > MAX_DEPTH || !isPlainObject(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (SUPPORTED.has(key) || ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (key === '$id' && depth === 0) continue;
    return undefined;
  }
  for (const key of NUMERIC_KEYWORDS)
    if (s[key] !== undefined && typeof s[key] !== 'number') return undefined;

  let typeNames: readonly string[] | undefined;
  let typeMask = 0;
  if (s.type !== undefined) {
    typeNames =
      typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as unknown[]).map(String) : [];
    if (typeNames.length === 0 || (Array.isArray(s.type) && !s.type.every((t) => typeof t === 'string'))) {
      return undefined;
    }
    for (const name of typeNames) {
      const bit = Object.hasOwn(TYPE_BITS, name) ? TYPE_BITS[name] : undefined;
      if (bit === undefined) return undefined;
      typeMask |= bit;
    }
  }

  let enumValues: Set<unknown> | undefined;
  let enumList: unknown[] = [];
  if (s.enum !== undefined) {
    // Primitives only, and no NaN: then Set membership (SameValueZero) equals the generic `===`.
    if (!Array.isArray(s.enum) || !s.enum.every(isPrimitiveEnumValue)) return undefined;
    enumList = s.enum;
    enumValues = new Set(s.enum);
  }

  let pattern: PatternTest | undefined;
  if (s.pattern !== undefined) {
    if (typeof s.pattern !== 'string') return undefined;
    try {
      pattern = compilePattern(s.pattern);
    } catch {
      return undefined;
    }
  }

  let formatCheck: ((s: string) => boolean) | undefined;
  if (s.format !== undefined) {
    if (typeof s.format !== 'string') return undefined;
    formatCheck = Object.hasOwn(formats, s.format) ? formats[s.format] : undefined;
  }

  let items: FastNode | undefined;
  if (s.items !== undefined) {
    items = compileNode(s.items, depth + 1, compilePattern);
    if (!items) return undefined;
  }

  const properties: Array<{ key: string; node: FastNode }> = [];
  if (s.properties !== undefined) {
    if (!isPlainObject(s.properties)) return undefined;
    for (const [key, sub] of Object.entries(s.properties)) {
      const node = compileNode(sub, depth + 1, compilePattern);
      if (!node || LONE_SURROGATE.test(key)) return undefined;
      properties.push({ key, node });
    }
  }

  let required: string[] = [];
  if (s.required !== undefined) {
    if (!Array.isArray(s.required) || !s.required.every((k) => typeof k === 'string')) return undefined;
    required = s.required;
  }

  if (s.additionalProperties !== undefined && typeof s.additionalProperties !== 'boolean') return undefined;

  return buildNode({
    typeNames,
    typeMask,
    enumValues,
    enumList,
    minLength: s.minLength as number | undefined,
    maxLength: s.maxLength as number | undefined,
    pattern,
    patternSource: s.pattern as string | undefined,
    formatName: s.format as string | undefined,
    formatCheck,
    minimum: s.minimum as number | undefined,
    maximum: s.maximum as number | undefined,
    exclusiveMinimum: s.exclusiveMinimum as number | undefined,
    exclusiveMaximum: s.exclusiveMaximum as number | undefined,
    minItems: s.minItems as number | undefined,
    maxItems: s.maxItems as number | undefined,
    items,
    required,
    properties,
    declared: new Set(properties.map((p) => p.key)),
    additionalProperties: s.additionalProperties as boolean | undefined,
  });
}

function isPrimitiveEnumValue(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isNaN(v);
  return v === null || typeof v === 'string' || typeof v === 'boolean';
}

function isJsonKind(value: unknown): boolean {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'object';
}

function typeMatches(mask: number, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return (mask & 1) !== 0;
    case 'number':
      return (mask & 2) !== 0 || ((mask & 4) !== 0 && Number.isInteger(value));
    case 'boolean':
      return (mask & 8) !== 0;
    case 'object':
      if (value === null) return (mask & 16) !== 0;
      return (mask & (Array.isArray(value) ? 64 : 32)) !== 0;
    default:
      return false;
  }
}

/** Code points, the unit JSON Schema lengths count; computed only when code units cannot decide. */
function lengthWithin(s: string, min: number | undefined, max: number | undefined): boolean {
  const units = s.length;
  // A string of n code units has between ceil(n/2) and n code points.
  if ((min === undefined || Math.ceil(units / 2) >= min) && (max === undefined || units <= max)) return true;
  const length = ucs2length(s);
  return (min === undefined || length >= min) && (max === undefined || length <= max);
}

function buildNode(spec: NodeSpec): FastNode {
  const { typeMask, enumValues, minLength, maxLength, pattern, formatCheck } = spec;
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, minItems, maxItems, items } = spec;
  const { required, properties, declared, additionalProperties } = spec;
  const hasLength = minLength !== undefined || maxLength !== undefined;
  const hasNumberBounds =
    minimum !== undefined ||
    maximum !== undefined ||
    exclusiveMinimum !== undefined ||
    exclusiveMaximum !== undefined;
  const hasObjectRules = required.length > 0 || properties.length > 0 || additionalProperties !== undefined;

  function test(value: unknown): boolean {
    if (typeMask === 0 ? !isJsonKind(value) : !typeMatches(typeMask, value)) return false;
    if (enumValues !== undefined && !enumValues.has(value)) return false;
    switch (typeof value) {
      case 'string':
        if (hasLength && !lengthWithin(value, minLength, maxLength)) return false;
        if (pattern !== undefined && !pattern(value)) return false;
        return formatCheck === undefined || formatCheck(value);
      case 'number':
        if (!hasNumberBounds) return true;
        return !(
          (minimum !== undefined && value < minimum) ||
          (maximum !== undefined && value > maximum) ||
          (exclusiveMinimum !== undefined && value <= exclusiveMinimum) ||
          (exclusiveMaximum !== undefined && value >= exclusiveMaximum)
        );
      case 'object': {
        if (value === null) return true;
        if (Array.isArray(value)) return testArray(value);
        return !hasObjectRules || testObject(value as Record<string, unknown>);
      }
      default:
        return true;
    }
  }

  function testArray(value: unknown[]): boolean {
    if (maxItems !== undefined && value.length > maxItems) return false;
    if (minItems !== undefined && value.length < minItems) return false;
    if (items !== undefined) for (let i = 0; i < value.length; i++) if (!items.test(value[i])) return false;
    return true;
  }

  function testObject(value: Record<string, unknown>): boolean {
    for (let i = 0; i < required.length; i++) if (!Object.hasOwn(value, required[i]!)) return false;
    for (let i = 0; i < properties.length; i++) {
      const { key, node } = properties[i]!;
      if (Object.hasOwn(value, key) && !node.test(value[key])) return false;
    }
    if (additionalProperties !== undefined) {
      for (const key in value) {
        if (declared.has(key) && Object.hasOwn(value, key)) continue;
        if (additionalProperties === false || LONE_SURROGATE.test(key)) return false;
      }
    }
    return true;
  }

  function collect(value: unknown, path: string, issues: Issue[]): void {
    if (!isJsonKind(value)) throw new Unvalidatable(issueText.notJson(typeof value));
    if (typeMask !== 0 && !typeMatches(typeMask, value)) {
      issues.push({ path, message: issueText.type(spec.typeNames!, value) });
    }
    if (enumValues !== undefined && !enumValues.has(value)) {
      issues.push({ path, message: issueText.enum(spec.enumList, value) });
    }
    if (typeof value === 'string') collectString(value, path, issues);
    else if (typeof value === 'number') collectNumber(value, path, issues);
    else if (Array.isArray(value)) collectArray(value, path, issues);
    else if (typeof value === 'object' && value !== null)
      collectObject(value as Record<string, unknown>, path, issues);
  }

  function collectString(value: string, path: string, issues: Issue[]): void {
    const length = hasLength ? ucs2length(value) : 0;
    if (minLength !== undefined && length < minLength) {
      issues.push({ path, message: issueText.minLength(minLength, length) });
    }
    if (maxLength !== undefined && length > maxLength) {
      issues.push({ path, message: issueText.maxLength(maxLength, length) });
    }
    if (pattern !== undefined && !pattern(value)) {
      issues.push({ path, message: issueText.pattern(spec.patternSource!, value) });
    }
    if (formatCheck !== undefined && !formatCheck(value)) {
      issues.push({ path, message: issueText.format(spec.formatName!, value) });
    }
  }

  function collectNumber(value: number, path: string, issues: Issue[]): void {
    if (minimum !== undefined && value < minimum)
      issues.push({ path, message: issueText.minimum(minimum, value) });
    if (maximum !== undefined && value > maximum)
      issues.push({ path, message: issueText.maximum(maximum, value) });
    if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
      issues.push({ path, message: issueText.exclusiveMinimum(exclusiveMinimum, value) });
    }
    if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) {
      issues.push({ path, message: issueText.exclusiveMaximum(exclusiveMaximum, value) });
    }
  }

  function collectArray(value: unknown[], path: string, issues: Issue[]): void {
    if (maxItems !== undefined && value.length > maxItems) {
      issues.push({ path, message: issueText.maxItems(maxItems, value.length) });
    }
    if (minItems !== undefined && value.length < minItems) {
      issues.push({ path, message: issueText.minItems(minItems, value.length) });
    }
    if (items !== undefined)
      for (let i = 0; i < value.length; i++) items.collect(value[i], childPath(path, i), issues);
  }

  function collectObject(value: Record<string, unknown>, path: string, issues: Issue[]): void {
    for (const key of required) {
      if (!Object.hasOwn(value, key))
        issues.push({ path: childPath(path, key), message: issueText.required });
    }
    for (const { key, node } of properties) {
      if (Object.hasOwn(value, key)) node.collect(value[key], childPath(path, key), issues);
    }
    if (additionalProperties === undefined) return;
    for (const key in value) {
      if (declared.has(key) && Object.hasOwn(value, key)) continue;
      if (LONE_SURROGATE.test(key)) throw new Unvalidatable(issueText.malformedKey);
      if (!additionalProperties)
        issues.push({ path: childPath(path, key), message: issueText.unexpectedProperty });
    }
  }

  return { test, collect };
}

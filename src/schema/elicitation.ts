/**
 * Elicitation form schemas: what a server may ask for (a flat object of primitive fields), and how
 * an answer is checked against the schema that asked for it. Both the server (before it asks, and
 * on the answer) and the client (before it answers) use these checks. Fitting a request to an older
 * peer is protocol/input-requests.ts's job (`encodeElicitParams`).
 */
import { SwitchboardError } from '../protocol/errors.js';
import type { ElicitFieldSchema, ElicitFormSchema, ElicitValue } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';
import { childPath, preview } from './issues.js';
import type { Issue } from './types.js';

// --- the TypeScript type of an accepted answer ---------------------------------------------------

/** The value a field yields in an accepted answer. */
export type ElicitFieldValue<F> = F extends { type: 'array' }
  ? F extends { items: { enum: readonly (infer E extends string)[] } }
    ? E[]
    : F extends { items: { anyOf: readonly { const: infer C extends string }[] } }
      ? C[]
      : string[]
  : F extends { type: 'boolean' }
    ? boolean
    : F extends { type: 'number' | 'integer' }
      ? number
      : F extends { enum: readonly (infer E extends string)[] }
        ? E
        : F extends { oneOf: readonly { const: infer C extends string }[] }
          ? C
          : string;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The `content` of an accepted answer to a form with schema `S` (required fields present). */
export type ElicitFormContent<S> = S extends { properties: infer P }
  ? Flatten<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: ElicitFieldValue<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: ElicitFieldValue<P[K]>;
      }
    >
  : Record<string, ElicitValue>;

// --- checking a schema -------------------------------------------------------------------------

const FORMATS: ReadonlySet<string> = new Set(['email', 'uri', 'date', 'date-time']);
const COMMON = ['type', 'title', 'description', 'default'];
const ALLOWED: Record<string, readonly string[]> = {
  string: [...COMMON, 'minLength', 'maxLength', 'format'],
  number: [...COMMON, 'minimum', 'maximum'],
  boolean: COMMON,
  enum: [...COMMON, 'enum', 'enumNames'],
  oneOf: [...COMMON, 'oneOf'],
  array: [...COMMON, 'minItems', 'maxItems', 'items'],
};

export interface CheckFormSchemaOptions {
  /** Names the schema in errors, e.g. `ctx.elicit() requestedSchema`. */
  where: string;
  /**
   * The schema was exported by a schema library, which validates the answer itself: drop what
   * libraries add that a form cannot carry (`pattern` next to a `format`, `$schema`,
   * `additionalProperties: false`) instead of refusing it.
   */
  exported?: boolean;
  /**
   * Ignore keywords a form field does not define instead of refusing them: what a client does with
   * a server's form (it only needs the fields' kinds and the constraints it checks).
   */
  lenient?: boolean;
}

type Obj = Record<string, unknown>;

const configError = (where: string, path: string, problem: string) =>
  new SwitchboardError(
    'CONFIG',
    `${where}: ${path} ${problem}. Elicitation forms are flat objects of string (formats email, uri, ` +
      'date, date-time), number, integer, boolean and enum fields; see docs/input.md.',
  );

/**
 * Checks that `schema` is a form MCP can carry and returns the copy to send (root
 * `additionalProperties: false` dropped: the form never has other fields anyway). Throws
 * `SwitchboardError('CONFIG')` naming the first offending field.
 */
export function checkFormSchema(schema: unknown, options: CheckFormSchemaOptions): ElicitFormSchema {
  const { where } = options;
  if (!isPlainObject(schema) || schema.type !== 'object' || !isPlainObject(schema.properties)) {
    throw configError(where, 'the schema', 'must be { type: "object", properties: { ... } }');
  }
  for (const key of options.lenient ? [] : Object.keys(schema)) {
    if (key === 'type' || key === 'properties' || key === 'required') continue;
    if (key === '$schema' && typeof schema.$schema === 'string') continue;
    if (key === 'additionalProperties' && schema.additionalProperties === false) continue;
    throw configError(where, 'the schema', `has "${key}", which a form cannot carry`);
  }
  const properties: Record<string, ElicitFieldSchema> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    properties[name] = checkField(field, childPath('$', name), options);
  }
  const out: ElicitFormSchema = { type: 'object', properties };
  if (schema.required !== undefined) {
    const required = schema.required;
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string' || !(r in properties))) {
      throw configError(where, '"required"', 'must list names of fields in "properties"');
    }
    if (required.length > 0) out.required = required as string[];
  }
  if (typeof schema.$schema === 'string' && !options.exported) out.$schema = schema.$schema;
  return out;
}

function checkField(field: unknown, path: string, options: CheckFormSchemaOptions): ElicitFieldSchema {
  const { where } = options;
  const fail = (problem: string): never => {
    throw configError(where, `field "${path}"`, problem);
  };
  if (!isPlainObject(field)) return fail('must be a schema object');
  let source = field;
  if (options.exported && 'pattern' in source && 'format' in source) {
    const { pattern: _pattern, ...rest } = source;
    source = rest;
  }
  const kind =
    fieldKind(source) ??
    fail(`has type ${preview(source.type)}; nested objects and other types are not allowed`);
  for (const key of options.lenient ? [] : Object.keys(source)) {
    if (!ALLOWED[kind]!.includes(key)) fail(`has "${key}", which a form field of this kind cannot carry`);
  }
  for (const key of ['title', 'description'] as const) {
    if (source[key] !== undefined && typeof source[key] !== 'string') fail(`"${key}" must be a string`);
  }
  const count = (key: string) => {
    const v = source[key];
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 0))
      fail(`"${key}" must be a non-negative integer`);
  };
  const number = (key: string) => {
    if (source[key] !== undefined && typeof source[key] !== 'number') fail(`"${key}" must be a number`);
  };
  const choices = choicesOf(source, fail);
  const def = source.default;
  switch (kind) {
    case 'string':
      count('minLength');
      count('maxLength');
      if (source.format !== undefined && !FORMATS.has(source.format as string)) {
        fail(`has format ${preview(source.format)}; use email, uri, date or date-time`);
      }
      if (def !== undefined && typeof def !== 'string') fail('"default" must be a string');
      break;
    case 'number':
      number('minimum');
      number('maximum');
      if (def !== undefined && typeof def !== 'number') fail('"default" must be a number');
      break;
    case 'boolean':
      if (def !== undefined && typeof def !== 'boolean') fail('"default" must be a boolean');
      break;
    case 'enum':
    case 'oneOf':
      if (def !== undefined && !(typeof def === 'string' && choices!.includes(def))) {
        fail('"default" must be one of the choices');
      }
      break;
    case 'array':
      count('minItems');
      count('maxItems');
      if (
        def !== undefined &&
        !(Array.isArray(def) && def.every((d) => typeof d === 'string' && choices!.includes(d)))
      ) {
        fail('"default" must be an array of the choices');
      }
      break;
  }
  return source as unknown as ElicitFieldSchema;
}

type FieldKind = 'string' | 'number' | 'boolean' | 'enum' | 'oneOf' | 'array';

function fieldKind(field: Obj): FieldKind | undefined {
  switch (field.type) {
    case 'string':
      return 'oneOf' in field ? 'oneOf' : 'enum' in field ? 'enum' : 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    default:
      return undefined;
  }
}

/** The values a choice field allows (checking its shape on the way); undefined for other fields. */
function choicesOf(field: Obj, fail: (problem: string) => never): string[] | undefined {
  const titled = (list: unknown, key: string): string[] => {
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      list.some(
        (o) =>
          !isPlainObject(o) ||
          typeof o.const !== 'string' ||
          typeof o.title !== 'string' ||
          Object.keys(o).length !== 2,
      )
    ) {
      fail(`"${key}" must be a non-empty array of { const: string, title: string }`);
    }
    return (list as { const: string }[]).map((o) => o.const);
  };
  const plain = (list: unknown, key: string): string[] => {
    if (!Array.isArray(list) || list.length === 0 || list.some((v) => typeof v !== 'string')) {
      fail(`"${key}" must be a non-empty array of strings`);
    }
    return list as string[];
  };
  if (field.type === 'string' && 'oneOf' in field) return titled(field.oneOf, 'oneOf');
  if (field.type === 'string' && 'enum' in field) {
    const values = plain(field.enum, 'enum');
    const names = field.enumNames;
    if (
      names !== undefined &&
      (!Array.isArray(names) || names.length !== values.length || names.some((n) => typeof n !== 'string'))
    ) {
      fail('"enumNames" must be an array of strings as long as "enum"');
    }
    return values;
  }
  if (field.type !== 'array') return undefined;
  const items = field.items;
  if (isPlainObject(items) && items.type === 'string' && Object.keys(items).length === 2 && 'enum' in items) {
    return plain(items.enum, 'items.enum');
  }
  if (isPlainObject(items) && Object.keys(items).length === 1 && 'anyOf' in items) {
    return titled(items.anyOf, 'items.anyOf');
  }
  return fail(
    'is an array; only multi-select enums are allowed: items { type: "string", enum: [...] } or items { anyOf: [{ const, title }] }',
  );
}

// --- checking an answer ----------------------------------------------------------------------------

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

function formatProblem(format: string, value: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL.test(value) ? undefined : 'expected an email address';
    case 'uri':
      try {
        new URL(value);
        return undefined;
      } catch {
        return 'expected an absolute URI';
      }
    case 'date':
      return validDate(value) ? undefined : 'expected a date (YYYY-MM-DD)';
    case 'date-time': {
      const m = DATE_TIME.exec(value);
      return m && validDate(m[1]!) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 61
        ? undefined
        : 'expected a date-time (RFC 3339, e.g. 2026-07-28T12:00:00Z)';
    }
    default:
      return undefined;
  }
}

function fieldProblem(field: ElicitFieldSchema, value: unknown): string | undefined {
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected boolean, received ${preview(value)}`;
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return `expected ${field.type}, received ${preview(value)}`;
      if (field.type === 'integer' && !Number.isInteger(value)) return `expected integer, received ${value}`;
      if (field.minimum !== undefined && value < field.minimum) return `must be >= ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be <= ${field.maximum}`;
      return undefined;
    }
    case 'array': {
      const allowed = 'enum' in field.items ? field.items.enum : field.items.anyOf.map((o) => o.const);
      if (!Array.isArray(value) || value.some((v) => !allowed.includes(v))) {
        return `expected an array of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
      }
      if (field.minItems !== undefined && value.length < field.minItems)
        return `choose at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `choose at most ${field.maxItems}`;
      return undefined;
    }
    case 'string': {
      if (typeof value !== 'string') return `expected string, received ${preview(value)}`;
      const allowed =
        'oneOf' in field ? field.oneOf.map((o) => o.const) : 'enum' in field ? field.enum : undefined;
      if (allowed) {
        return allowed.includes(value)
          ? undefined
          : `expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`;
      }
      const plain = field as { minLength?: number; maxLength?: number; format?: string };
      const length = [...value].length;
      if (plain.minLength !== undefined && length < plain.minLength)
        return `must have at least ${plain.minLength} characters`;
      if (plain.maxLength !== undefined && length > plain.maxLength)
        return `must have at most ${plain.maxLength} characters`;
      return plain.format === undefined ? undefined : formatProblem(plain.format, value);
    }
  }
}

/**
 * Checks an accepted answer's `content` against the form that asked for it. Returns the content
 * restricted to the form's fields (anything else is dropped: the form never asked for it), with
 * each field the answer left out set to its `default` (SEP-1034: the form showed it pre-filled),
 * and the problems found, located by field. Both sides apply it: the client before it answers, the
 * server again (a client may not have, and 2025-06-18 forms carry only boolean defaults).
 */
export function checkElicitContent(
  schema: ElicitFormSchema,
  content: unknown,
): { content: Record<string, ElicitValue>; issues: Issue[] } {
  const issues: Issue[] = [];
  const out: Record<string, ElicitValue> = {};
  if (content !== undefined && !isPlainObject(content)) {
    return {
      content: out,
      issues: [{ path: '$', message: `expected an object, received ${preview(content)}` }],
    };
  }
  const given = content ?? {};
  for (const [name, field] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(given, name) || given[name] === undefined) {
      const fallback = field.default;
      if (fallback !== undefined) out[name] = typeof fallback === 'object' ? [...fallback] : fallback;
      else if (schema.required?.includes(name))
        issues.push({ path: childPath('$', name), message: 'required' });
      continue;
    }
    const problem = fieldProblem(field, given[name]);
    if (problem) issues.push({ path: childPath('$', name), message: problem });
    else out[name] = given[name] as ElicitValue;
  }
  return { content: out, issues };
}

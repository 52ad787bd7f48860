/**
 * Arguments made up from a tool's inputSchema: one value the schema accepts, and values it must
 * refuse. Deterministic (same schema, same values), so a report can be reproduced. The valid value
 * is a best effort; the caller validates it against the schema before trusting it.
 */
import { isPlainObject } from '../util/guards.js';

type Schema = Record<string, unknown>;

/** Nesting depth past which no value is attempted (recursive schemas). */
const MAX_DEPTH = 8;

const FORMATS: Record<string, string> = {
  email: 'checker@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  date: '2026-01-02',
  'date-time': '2026-01-02T03:04:05Z',
  time: '03:04:05Z',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
};

/**
 * Notes whether a value was made up by the checker (a placeholder string, the least number a
 * range allows) rather than taken from the schema (const, enum, default, examples): a server may
 * rightly refuse a made-up value, which then shows nothing about it.
 */
export interface Origin {
  madeUp: boolean;
}

/** A value `schema` accepts, or undefined when none could be made. */
export function validInstance(
  schema: unknown,
  root: unknown = schema,
  depth = 0,
  origin: Origin = { madeUp: false },
): unknown {
  const made = <T>(value: T): T => {
    if (value !== undefined) origin.madeUp = true;
    return value;
  };
  if (schema === true || (isPlainObject(schema) && Object.keys(schema).length === 0)) return made('x');
  if (!isPlainObject(schema) || depth > MAX_DEPTH) return undefined;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema && schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (typeof schema.$ref === 'string')
    return validInstance(resolveRef(root, schema.$ref), root, depth + 1, origin);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      for (const option of options) {
        const value = validInstance(option, root, depth + 1, origin);
        if (value !== undefined) return value;
      }
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Schema = {};
    for (const part of schema.allOf) if (isPlainObject(part)) mergeInto(merged, part);
    const { allOf: _allOf, ...rest } = schema;
    mergeInto(merged, rest);
    return validInstance(merged, root, depth + 1, origin);
  }
  const type = Array.isArray(schema.type)
    ? (schema.type.find((t) => t !== 'null') ?? schema.type[0])
    : schema.type;
  switch (type ?? (isPlainObject(schema.properties) ? 'object' : undefined)) {
    case 'object':
      return objectInstance(schema, root, depth, origin);
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const item = validInstance(schema.items ?? {}, root, depth + 1, origin);
      if (count > 0 && item === undefined) return undefined;
      // Distinct items when uniqueness is asked for and the item is a number or string.
      return Array.from({ length: count }, (_, i) =>
        schema.uniqueItems && typeof item === 'number'
          ? item + i
          : schema.uniqueItems && typeof item === 'string'
            ? `${item}${i}`
            : item,
      );
    }
    case 'string':
      return made(stringInstance(schema));
    case 'integer':
    case 'number':
      return made(numberInstance(schema, type === 'integer'));
    case 'boolean':
      return made(true);
    case 'null':
      return null;
    default:
      return undefined;
  }
}

function objectInstance(schema: Schema, root: unknown, depth: number, origin: Origin): unknown {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [];
  const value: Record<string, unknown> = {};
  for (const key of required) {
    const member = validInstance(properties[key] ?? {}, root, depth + 1, origin);
    if (member === undefined) return undefined;
    value[key] = member;
  }
  const min = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const key of Object.keys(properties)) {
    if (Object.keys(value).length >= min) break;
    const member = validInstance(properties[key], root, depth + 1, origin);
    if (member !== undefined) value[key] = member;
  }
  return value;
}

function stringInstance(schema: Schema): string | undefined {
  if (typeof schema.format === 'string' && FORMATS[schema.format]) return FORMATS[schema.format];
  // A pattern we cannot satisfy by construction: give up rather than guess.
  if (typeof schema.pattern === 'string') return undefined;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(min, 5);
  const length = Math.min(Math.max(min, 5), max);
  return 'check'.padEnd(length, 'x').slice(0, length);
}

function numberInstance(schema: Schema, integer: boolean): number | undefined {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const exMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  let value = min ?? (exMin !== undefined ? exMin + 1 : max !== undefined ? Math.min(1, max) : 1);
  if (integer) value = Math.ceil(value);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  }
  return max !== undefined && value > max ? undefined : value;
}

function mergeInto(target: Schema, source: Schema): void {
  for (const [key, value] of Object.entries(source)) {
    if (key === 'properties' && isPlainObject(value)) {
      target.properties = { ...(isPlainObject(target.properties) ? target.properties : {}), ...value };
    } else if (key === 'required' && Array.isArray(value)) {
      target.required = [...(Array.isArray(target.required) ? target.required : []), ...value];
    } else {
      target[key] = value;
    }
  }
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** An argument object the schema must refuse, and what is wrong with it. */
export interface InvalidArguments {
  readonly value: unknown;
  readonly why: string;
}

/**
 * Argument objects an object schema refuses: each required property left out, and a property
 * given a value of a type it does not allow. Empty when the schema constrains nothing we can break.
 */
export function invalidInstances(schema: unknown, valid: Record<string, unknown>): InvalidArguments[] {
  if (!isPlainObject(schema)) return [];
  const found: InvalidArguments[] = [];
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [];
  for (const key of required.slice(0, 1)) {
    const { [key]: _left, ...rest } = valid;
    found.push({ value: rest, why: `required property "${key}" left out` });
  }
  for (const [key, property] of Object.entries(properties)) {
    const wrong = wrongType(property);
    if (wrong !== undefined) {
      found.push({ value: { ...valid, [key]: wrong.value }, why: `property "${key}" given ${wrong.what}` });
      break;
    }
  }
  return found;
}

/** A value of a JSON type the property schema does not allow, when its type is plain. */
function wrongType(property: unknown): { value: unknown; what: string } | undefined {
  if (!isPlainObject(property) || typeof property.type !== 'string') return undefined;
  if ('anyOf' in property || 'oneOf' in property || 'allOf' in property || '$ref' in property)
    return undefined;
  switch (property.type) {
    case 'string':
      return { value: 12345, what: 'a number where the schema wants a string' };
    case 'number':
    case 'integer':
      return {
        value: 'not a number',
        what: `a string where the schema wants ${property.type === 'integer' ? 'an integer' : 'a number'}`,
      };
    case 'boolean':
      return { value: 'yes', what: 'a string where the schema wants a boolean' };
    case 'array':
      return { value: 'not an array', what: 'a string where the schema wants an array' };
    case 'object':
      return { value: 'not an object', what: 'a string where the schema wants an object' };
    default:
      return undefined;
  }
}

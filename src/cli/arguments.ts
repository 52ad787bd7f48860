/**
 * Turns `key=value` words (and `--args '{...}'`) into the arguments of a tool call or a prompt.
 *
 * Tool values are coerced with the tool's `inputSchema`: a property typed number/integer/boolean/
 * null gets that type, array/object properties take JSON, strings are taken verbatim. Keys the
 * schema does not declare are refused (a typo should not reach the server as an ignored argument);
 * `--args` passes anything as is. Prompt arguments are always strings.
 */
import type { JsonObject, Prompt, Tool } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';
import { UsageError } from './usage-error.js';

type Schema = JsonObject;

/** Splits `key=value` at the first `=`. */
export function parseAssignment(word: string, command: string): [string, string] {
  const at = word.indexOf('=');
  if (at <= 0) {
    const hint = /^\s*[[{]/.test(word)
      ? ` To pass arguments as JSON use --args '${word}' (--json only selects JSON output).`
      : ' Give arguments as key=value, e.g. count=3.';
    throw new UsageError(`Expected key=value, got ${JSON.stringify(word)}.${hint}`, command);
  }
  return [word.slice(0, at), word.slice(at + 1)];
}

/** `--args` must hold one JSON object. */
export function parseJsonArguments(text: string | undefined, command: string): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not valid JSON (${(error as Error).message}).`, command);
  }
  if (!isPlainObject(value)) {
    throw new UsageError(`--args must be a JSON object such as '{"a": 1}', got ${text}.`, command);
  }
  return value as Record<string, unknown>;
}

/** Builds a tool's arguments from `--args` and `key=value` words (the words win). */
export function toolArguments(
  tool: Tool,
  words: readonly string[],
  json: string | undefined,
): Record<string, unknown> {
  const schema = tool.inputSchema;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const additional = schema.additionalProperties;
  const result = parseJsonArguments(json, 'call');
  const seen = new Set<string>();
  for (const word of words) {
    const [key, raw] = parseAssignment(word, 'call');
    if (seen.has(key)) throw new UsageError(`Argument "${key}" is given twice.`, 'call');
    seen.add(key);
    let property: Schema | undefined;
    if (Object.hasOwn(properties, key)) property = properties[key];
    else if (typeof additional === 'object' && additional !== null) property = additional as Schema;
    else if (additional !== true) {
      throw new UsageError(
        `Tool "${tool.name}" has no parameter "${key}". ${describeParameters(tool)} ` +
          'To send keys its schema does not declare, use --args.',
        'call',
      );
    }
    result[key] = coerce(raw, property ?? {}, key);
  }
  const missing = (schema.required ?? []).filter((name) => !Object.hasOwn(result, name));
  if (missing.length > 0) {
    throw new UsageError(
      `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')} for tool "${tool.name}". ${describeParameters(tool)}`,
      'call',
    );
  }
  return result;
}

/** Builds a prompt's arguments (all strings) from `--args` and `key=value` words. */
export function promptArguments(
  prompt: Prompt,
  words: readonly string[],
  json: string | undefined,
): Record<string, string> {
  const declared = prompt.arguments ?? [];
  const names = new Set(declared.map((a) => a.name));
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseJsonArguments(json, 'prompt'))) {
    if (typeof value !== 'string') {
      throw new UsageError(
        `Prompt arguments are strings, but --args gives "${key}" the ${typeof value} ${JSON.stringify(value)}.`,
        'prompt',
      );
    }
    result[key] = value;
  }
  const seen = new Set<string>();
  for (const word of words) {
    const [key, value] = parseAssignment(word, 'prompt');
    if (seen.has(key)) throw new UsageError(`Argument "${key}" is given twice.`, 'prompt');
    seen.add(key);
    if (!names.has(key)) {
      throw new UsageError(
        `Prompt "${prompt.name}" has no argument "${key}". ${describeArguments(prompt)}`,
        'prompt',
      );
    }
    result[key] = value;
  }
  const missing = declared.filter((a) => a.required && !Object.hasOwn(result, a.name)).map((a) => a.name);
  if (missing.length > 0) {
    throw new UsageError(
      `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')} for prompt "${prompt.name}". ${describeArguments(prompt)}`,
      'prompt',
    );
  }
  return result;
}

function describeParameters(tool: Tool): string {
  const properties = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, Schema>);
  if (properties.length === 0) return 'It takes no parameters.';
  const required = new Set(tool.inputSchema.required ?? []);
  const list = properties.map(
    ([name, schema]) => `${name} (${typeLabel(schema)}${required.has(name) ? ', required' : ''})`,
  );
  return `Its parameters: ${list.join(', ')}.`;
}

function describeArguments(prompt: Prompt): string {
  const args = prompt.arguments ?? [];
  if (args.length === 0) return 'It takes no arguments.';
  return `Its arguments: ${args.map((a) => (a.required ? `${a.name} (required)` : a.name)).join(', ')}.`;
}

/** A short type for a property schema: `number`, `string | null`, `"a" | "b"`, `string[]`, `any`. */
export function typeLabel(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const types = declaredTypes(schema);
  if (types.length === 0) return 'any';
  return types
    .map((t) => {
      if (t !== 'array') return t;
      const items = schema.items;
      return isPlainObject(items)
        ? `${typeLabel(items as Schema)}[]`.replace(/^(.* \| .*)\[\]$/, '($1)[]')
        : 'array';
    })
    .join(' | ');
}

/** The JSON types a schema admits, looking through `type`, `anyOf` and `oneOf`. */
function declaredTypes(schema: Schema): string[] {
  const types = new Set<string>();
  const { type } = schema;
  if (typeof type === 'string') types.add(type);
  else if (Array.isArray(type)) for (const t of type) if (typeof t === 'string') types.add(t);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      for (const branch of branches) {
        if (typeof branch === 'object' && branch !== null)
          for (const t of declaredTypes(branch as Schema)) types.add(t);
      }
    }
  }
  return [...types];
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Reads one `key=value` value as the type its schema asks for. */
function coerce(raw: string, schema: Schema, key: string): unknown {
  if (Array.isArray(schema.enum) || 'const' in schema) {
    const allowed: unknown[] = Array.isArray(schema.enum) ? schema.enum : [schema.const];
    const match = allowed.find((v) => (typeof v === 'string' ? v === raw : JSON.stringify(v) === raw));
    // An unlisted value goes through as a string; the server's validation names the allowed values.
    return match === undefined ? raw : match;
  }
  const types = declaredTypes(schema);
  if (types.length === 0) return raw;
  if (types.includes('null') && raw === 'null') return null;
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  if ((types.includes('number') || types.includes('integer')) && NUMBER.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n) && (types.includes('number') || Number.isInteger(n))) return n;
  }
  if (types.includes('array') || types.includes('object')) {
    const value = tryJson(raw);
    if (Array.isArray(value) ? types.includes('array') : isPlainObject(value) && types.includes('object'))
      return value;
  }
  if (types.includes('string')) return raw;
  throw new UsageError(`Argument "${key}" must be ${expected(types)}, got ${JSON.stringify(raw)}.`, 'call');
}

function expected(types: string[]): string {
  const words: Record<string, string> = {
    number: 'a number',
    integer: 'a whole number',
    boolean: 'true or false',
    null: 'null',
    array: `a JSON array (e.g. '["a","b"]')`,
    object: `a JSON object (e.g. '{"k":1}')`,
  };
  return types.map((t) => words[t] ?? t).join(' or ');
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

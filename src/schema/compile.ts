/**
 * `compileSchema`: the one entry point the server registry uses. It turns whatever the user passed
 * (a Standard schema or a raw JSON Schema) into a {@link CompiledSchema}, checks what MCP requires of
 * the role, and caches the result per schema object, so registering one schema for many tools — or
 * rebuilding a server per request around shared schema objects — compiles it once.
 */
import { SwitchboardError } from '../protocol/errors.js';
import { compileJsonSchema } from './json-schema.js';
import type { LinearPatterns } from './linear-pattern.js';
import { compileStandardSchema, isStandardSchema } from './standard.js';
import type { CompiledSchema, InferInput, SchemaLike, SchemaRole } from './types.js';

export interface CompileSchemaOptions {
  role: SchemaRole;
  /** The tool's (or prompt's) name, for error messages. */
  name: string;
  /** What owns the schema, for error messages. Default `tool`. */
  kind?: 'tool' | 'prompt' | 'method';
  /**
   * The schema is a peer's (a server's outputSchema, on the client): its patterns are matched in
   * linear time by these. Required when a peer's raw schema has patterns.
   */
  peerPatterns?: LinearPatterns;
}

/**
 * Compiled schemas by role, keyed by the schema object. Weak, so dropping a schema frees its entry.
 * Schemas are taken as immutable once compiled: mutating one afterwards is not noticed.
 */
const cache: Record<SchemaRole, WeakMap<object, CompiledSchema>> = {
  input: new WeakMap(),
  output: new WeakMap(),
};

/**
 * Prepares `schema` for advertising (`jsonSchema`) and validating (`validate`). Throws
 * `SwitchboardError('CONFIG')` at registration for anything that cannot work: an input schema whose
 * root is not `type: "object"`, an unknown `$schema` dialect, a `$ref` outside the document, a
 * library that cannot export JSON Schema.
 */
export function compileSchema<S extends SchemaLike>(
  schema: S,
  options: CompileSchemaOptions,
): CompiledSchema<InferInput<S>> {
  if (
    (typeof schema !== 'object' && typeof schema !== 'function') ||
    schema === null ||
    Array.isArray(schema)
  ) {
    const got = Array.isArray(schema) ? 'an array' : String(schema);
    throw new SwitchboardError(
      'CONFIG',
      `${describe(options)} must be a schema object — from a Standard Schema library ` +
        `(zod >= 4.2, valibot, arktype) or a raw JSON Schema — but got ${got}.`,
    );
  }
  const roleCache = cache[options.role];
  const cached = roleCache.get(schema);
  if (cached) return cached as CompiledSchema<InferInput<S>>;

  const where = describe(options);
  const compiled = isStandardSchema(schema)
    ? { ...compileStandardSchema(schema, options.role, where), strategy: 'standard' as const }
    : compileJsonSchema(schema, where, { peerPatterns: options.peerPatterns });
  const rootIsObject = compiled.jsonSchema.type === 'object';
  if (options.role === 'input' && !rootIsObject) {
    throw new SwitchboardError(
      'CONFIG',
      `${where} must describe an object: MCP requires "type": "object" at the root of a ` +
        `${options.kind ?? 'tool'}'s input schema, and this one has ` +
        `${rootDescription(compiled.jsonSchema)}. ` +
        'Put the fields in an object (e.g. z.object({ ... }), or { "type": "object", "properties": ' +
        '{ ... } }); wrap a union or a single value as one property of that object.',
    );
  }
  const result: CompiledSchema = Object.freeze({ ...compiled, rootIsObject });
  roleCache.set(schema, result);
  return result as CompiledSchema<InferInput<S>>;
}

function describe({ role, name, kind = 'tool' }: CompileSchemaOptions): string {
  const field =
    kind === 'prompt'
      ? 'arguments schema'
      : kind === 'method'
        ? `${role === 'input' ? 'params' : 'result'} schema`
        : role === 'input'
          ? 'inputSchema'
          : 'outputSchema';
  return `The ${field} of ${kind} ${JSON.stringify(name)}`;
}

function rootDescription(jsonSchema: Record<string, unknown>): string {
  if (jsonSchema.type !== undefined) return `"type": ${JSON.stringify(jsonSchema.type)}`;
  const combinator = ['anyOf', 'oneOf', 'allOf', '$ref'].find((k) => jsonSchema[k] !== undefined);
  return combinator ? `"${combinator}" and no "type"` : 'no "type"';
}

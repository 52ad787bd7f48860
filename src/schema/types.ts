/**
 * The schema types a server author meets: what may be passed as a tool's `inputSchema` /
 * `outputSchema` (or a prompt's arguments schema), and the TypeScript types inferred from it.
 *
 * The inference is deliberately shallow — one non-distributive conditional and an indexed access —
 * because wrapping registration in a user's own generic function must never hit TS2589 ("Type
 * instantiation is excessively deep"), the official SDK's long-standing complaint.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonObject } from '../protocol/types.js';

/**
 * A schema from any library implementing both Standard Schema (validation) and Standard JSON Schema
 * (export): zod >= 4.2, arktype (a 2.x with `~standard.jsonSchema`), valibot through
 * `toStandardJsonSchema(...)` from `@valibot/to-json-schema`.
 */
export type StandardJsonSchema = StandardSchemaV1 & StandardJSONSchemaV1;

/**
 * A raw JSON Schema object (2020-12 by default; draft-07 when `$schema` says so). The `~standard`
 * exclusion keeps a Standard schema from also matching this branch.
 */
export interface JsonSchemaDocument {
  readonly [keyword: string]: unknown;
  readonly '~standard'?: never;
}

/** Anything accepted where a schema is expected. */
export type SchemaLike = StandardJsonSchema | JsonSchemaDocument;

/** Phantom key carrying a raw JSON Schema's TypeScript type; it never exists at run time. */
declare const jsonSchemaType: unique symbol;

/** A raw JSON Schema branded with the TypeScript type of the values it accepts; see `jsonSchema()`. */
export type TypedJsonSchema<T> = JsonSchemaDocument & { readonly [jsonSchemaType]: T };

/**
 * The value a handler receives for data validated by `S`: a tool's arguments (input schema) or,
 * after validation, its structured content (output schema). For a Standard schema that is the
 * schema's *output* type (after transforms); for a raw JSON Schema, the type given to
 * {@link jsonSchema}, else `Record<string, unknown>`.
 */
export type InferInput<S> = [S] extends [StandardSchemaV1]
  ? NonNullable<S['~standard']['types']>['output']
  : [S] extends [{ readonly [jsonSchemaType]: infer T }]
    ? T
    : Record<string, unknown>;

/**
 * The value a handler must produce for `S` used as an output schema: what the schema *accepts*.
 * For a Standard schema that is its *input* type (validation then yields the output type that goes
 * on the wire); for a raw JSON Schema, as {@link InferInput}.
 */
export type InferOutput<S> = [S] extends [StandardSchemaV1]
  ? NonNullable<S['~standard']['types']>['input']
  : [S] extends [{ readonly [jsonSchemaType]: infer T }]
    ? T
    : Record<string, unknown>;

/** One validation problem, located by a readable path such as `items[2].name`, or `$` for the root. */
export interface Issue {
  readonly path: string;
  readonly message: string;
}

export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly Issue[] };

/** Which side of a tool the schema describes; input schemas must have `type: "object"` at the root. */
export type SchemaRole = 'input' | 'output';

/** The JSON Schema dialects that may go on the wire. */
export type JsonSchemaDialect = '2020-12' | 'draft-07';

/**
 * How values are checked: `standard` = the schema library's own `~standard.validate`;
 * `fast-path` = our closure validator for simple raw schemas; `json-schema` = `@cfworker/json-schema`.
 */
export type ValidationStrategy = 'standard' | 'fast-path' | 'json-schema';

/** A schema prepared once (per schema object and role) for advertising and validating. */
export interface CompiledSchema<T = unknown> {
  /** What goes on the wire as `inputSchema` / `outputSchema`. Frozen: it is shared by every user. */
  readonly jsonSchema: JsonObject;
  readonly dialect: JsonSchemaDialect;
  /** Whether the root is `type: "object"` (always true for input schemas; required of output
   * schemas by 2025-06-18 and 2025-11-25, not by 2026-07-28). */
  readonly rootIsObject: boolean;
  readonly strategy: ValidationStrategy;
  /**
   * Checks a value. Synchronous whenever the schema is (raw JSON Schemas always are); a Standard
   * schema with async refinements returns a Promise. On success `value` is the validated value
   * (a Standard schema's output, e.g. with defaults applied; for raw JSON Schema, the value itself).
   */
  validate(value: unknown): ValidationResult<T> | Promise<ValidationResult<T>>;
}

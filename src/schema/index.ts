/** Tool and prompt schemas: Standard Schema libraries or raw JSON Schema, compiled once, validated fast. */
export { type CompileSchemaOptions, compileSchema } from './compile.js';
export { formatIssues } from './issues.js';
export { jsonSchema } from './json-schema.js';
export type {
  CompiledSchema,
  InferInput,
  InferOutput,
  Issue,
  JsonSchemaDialect,
  JsonSchemaDocument,
  SchemaLike,
  SchemaRole,
  StandardJsonSchema,
  TypedJsonSchema,
  ValidationResult,
  ValidationStrategy,
} from './types.js';

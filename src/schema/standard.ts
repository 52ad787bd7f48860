/**
 * Standard Schema libraries (zod >= 4.2, valibot via `toStandardJsonSchema`, arktype): the library
 * validates with its own `~standard.validate`, and exports the JSON Schema we advertise through
 * Standard JSON Schema (`~standard.jsonSchema`). Nothing library-specific is imported.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { SwitchboardError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/types.js';
import { deepFreeze } from '../util/freeze.js';
import { errorMessage, isPromiseLike } from '../util/guards.js';
import { pathFromSegments } from './issues.js';
import { dialectOf } from './json-schema.js';
import type { JsonSchemaDialect, SchemaRole, StandardJsonSchema, ValidationResult } from './types.js';

export interface CompiledStandardSchema {
  jsonSchema: JsonObject;
  dialect: JsonSchemaDialect;
  validate(value: unknown): ValidationResult<unknown> | Promise<ValidationResult<unknown>>;
}

const DRAFT_07_URI = 'http://json-schema.org/draft-07/schema#';

/** True for anything carrying a `~standard` property (arktype schemas are functions). */
export function isStandardSchema(value: object): value is StandardJsonSchema {
  return '~standard' in value;
}

export function compileStandardSchema(
  schema: StandardJsonSchema,
  role: SchemaRole,
  where: string,
): CompiledStandardSchema {
  const props = schema['~standard'] as Partial<StandardJsonSchema['~standard']> | undefined;
  const vendor = typeof props?.vendor === 'string' ? props.vendor : 'unknown';
  if (
    typeof props !== 'object' ||
    props === null ||
    props.version !== 1 ||
    typeof props.validate !== 'function'
  ) {
    throw new SwitchboardError(
      'CONFIG',
      `${where} has a "~standard" property that is not Standard Schema v1 (vendor: ${vendor}). ` +
        'Pass a schema from a Standard Schema library (zod >= 4.2, valibot, arktype) or a raw JSON ' +
        'Schema object.',
    );
  }
  const converter = props.jsonSchema;
  if (typeof converter?.input !== 'function' || typeof converter.output !== 'function') {
    throw new SwitchboardError(
      'CONFIG',
      `${where} is a ${vendor} schema without Standard JSON Schema support (no "~standard.jsonSchema"), ` +
        `so it cannot be advertised to clients. ${exportHint(vendor)}`,
    );
  }

  const { jsonSchema, dialect } = exportJsonSchema(converter, role, vendor, where);
  const standard = props as StandardJsonSchema['~standard'];
  return {
    jsonSchema,
    dialect,
    validate(value) {
      // Called as a method: a library may rely on `this`.
      const result = standard.validate(value);
      return isPromiseLike(result)
        ? Promise.resolve(result).then(toValidationResult)
        : toValidationResult(result);
    },
  };
}

function exportHint(vendor: string): string {
  if (vendor === 'valibot') {
    return 'Wrap it: toStandardJsonSchema(schema) from "@valibot/to-json-schema".';
  }
  if (vendor === 'zod') return 'Use zod >= 4.2 (`import * as z from "zod"`); zod 3 schemas cannot be used.';
  return (
    'Use a library that implements Standard JSON Schema (zod >= 4.2, arktype, valibot via ' +
    'toStandardJsonSchema), or pass a raw JSON Schema object.'
  );
}

/**
 * Asks for 2020-12 (the MCP default) and falls back to draft-07 when the library cannot produce it.
 * Input schemas describe what a client sends (the schema's input side); output schemas describe the
 * validated value we send (its output side).
 */
function exportJsonSchema(
  converter: StandardJsonSchema['~standard']['jsonSchema'],
  role: SchemaRole,
  vendor: string,
  where: string,
): { jsonSchema: JsonObject; dialect: JsonSchemaDialect } {
  let exported: unknown;
  let target: JsonSchemaDialect = '2020-12';
  try {
    exported = converter[role]({ target: 'draft-2020-12' });
  } catch (first) {
    try {
      exported = converter[role]({ target: 'draft-07' });
      target = 'draft-07';
    } catch {
      throw new SwitchboardError(
        'CONFIG',
        `${where}: ${vendor} could not express it as JSON Schema: ${errorMessage(first)}. ` +
          `Remove what JSON Schema cannot describe from the ${role} side (e.g. dates, bigints, ` +
          `${role === 'output' ? 'transforms, ' : ''}custom checks), or pass a raw JSON Schema object.`,
        { cause: first },
      );
    }
  }
  let jsonSchema: JsonObject;
  try {
    jsonSchema = JSON.parse(JSON.stringify(exported)) as JsonObject;
  } catch (error) {
    throw new SwitchboardError(
      'CONFIG',
      `${where}: ${vendor} produced a JSON Schema that is not JSON: ${errorMessage(error)}.`,
    );
  }
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    throw new SwitchboardError('CONFIG', `${where}: ${vendor} produced a JSON Schema that is not an object.`);
  }
  // Without "$schema", readers assume 2020-12; a draft-07 export must say what it is.
  if (jsonSchema.$schema === undefined && target === 'draft-07')
    jsonSchema = { $schema: DRAFT_07_URI, ...jsonSchema };
  const dialect = jsonSchema.$schema === undefined ? target : dialectOf(jsonSchema, where);
  return { jsonSchema: deepFreeze(jsonSchema), dialect };
}

function toValidationResult(result: StandardSchemaV1.Result<unknown>): ValidationResult<unknown> {
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => {
      const path = pathFromSegments(issue.path);
      // Some libraries (arktype) start the message with the same path; do not say it twice.
      const message =
        path !== '$' && issue.message.startsWith(`${path} `)
          ? issue.message.slice(path.length + 1)
          : issue.message;
      return { path, message };
    }),
  };
}

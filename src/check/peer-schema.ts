/** A server's JSON Schema (inputSchema, outputSchema) compiled for checking values against it. */

import { formatIssues } from '../schema/issues.js';
import { compileJsonSchema } from '../schema/json-schema.js';
import { loadLinearPatterns, mayHavePatterns } from '../schema/linear-pattern.js';
import type { JsonSchemaDocument } from '../schema/types.js';
import { errorMessage } from '../util/guards.js';

export type PeerValidator = (value: unknown) => Promise<string | undefined>;

/**
 * A function that returns undefined for a value the schema accepts and the issues otherwise, or the
 * reason the schema cannot be compiled. The server's patterns run in linear time (RE2): a schema
 * from a peer must not be able to stall the checker.
 */
export async function compilePeerSchema(schema: unknown, where: string): Promise<PeerValidator | string> {
  try {
    const json = JSON.stringify(schema);
    const peerPatterns = mayHavePatterns(json) ? await loadLinearPatterns() : undefined;
    const compiled = compileJsonSchema(schema as JsonSchemaDocument, where, { peerPatterns });
    return async (value) => {
      const result = await compiled.validate(value);
      return result.ok ? undefined : formatIssues(result.issues);
    };
  } catch (error) {
    return errorMessage(error);
  }
}

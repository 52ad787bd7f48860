/**
 * The `requestedSchema` of `ctx.elicit`: a raw form schema, or a flat object schema from a Standard
 * Schema library (zod, valibot, arktype) that we export to a form and that also validates (and
 * types) the accepted answer. Prepared once per schema object.
 */

import type { ElicitFormSchema } from '../protocol/types.js';
import { checkFormSchema } from '../schema/elicitation.js';
import { compileStandardSchema, isStandardSchema } from '../schema/standard.js';
import type { StandardJsonSchema, ValidationResult } from '../schema/types.js';

export interface PreparedForm {
  /** The schema sent to the client. */
  readonly wire: ElicitFormSchema;
  /** The library's own validation of the answer, for Standard schemas. */
  readonly validate?: (content: unknown) => ValidationResult<unknown> | Promise<ValidationResult<unknown>>;
}

const WHERE = 'ctx.elicit() requestedSchema';
const prepared = new WeakMap<object, PreparedForm>();

export function prepareForm(schema: ElicitFormSchema | StandardJsonSchema): PreparedForm {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) {
    return { wire: checkFormSchema(schema, { where: WHERE }) };
  }
  let form = prepared.get(schema);
  if (!form) {
    if (isStandardSchema(schema)) {
      const compiled = compileStandardSchema(schema, 'input', WHERE);
      form = {
        wire: checkFormSchema(compiled.jsonSchema, { where: WHERE, exported: true }),
        validate: compiled.validate,
      };
    } else {
      form = { wire: checkFormSchema(schema, { where: WHERE }) };
    }
    prepared.set(schema, form);
  }
  return form;
}

/**
 * How the JSON Schema validator's (cfworker's) list of errors reads, for the two places that explain
 * it to a person: `schema/json-schema.ts` (a handler's arguments and results) and
 * `testing/explain-errors.ts` (frames against the specification's schemas). One table, so the two
 * cannot disagree on which errors carry the detail.
 */

/** Keywords whose error only says that a subschema failed; the errors after it carry the detail. */
const WRAPPERS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  '$ref',
  '$recursiveRef',
  'allOf',
  'if',
  'dependentSchemas',
]);

/**
 * Whether an error only says that a subschema failed. Draft-07 `dependencies` is one when its value
 * is a schema ("does not match dependant schema"); with a list of names its error is the detail.
 */
export function onlyWrapsSubschema(keyword: string, message: string): boolean {
  return WRAPPERS.has(keyword) || (keyword === 'dependencies' && message.endsWith('dependant schema.'));
}

/** Keywords whose own error sums up the errors of their subschemas that follow it. */
export const SUMMING_KEYWORDS: ReadonlySet<string> = new Set([
  'anyOf',
  'oneOf',
  'not',
  'contains',
  'propertyNames',
]);

/** Wrappers under which a `false` subschema refused a property. */
export const PROPERTY_WRAPPERS: ReadonlySet<string> = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'patternProperties',
]);

/** Wrappers under which a `false` subschema refused an item. */
export const ITEM_WRAPPERS: ReadonlySet<string> = new Set([
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
]);

import { isPlainObject } from '../util/guards.js';

/**
 * Derives the variants of an official MCP JSON Schema that the message checker validates against.
 *
 * The official schemas never forbid unknown properties, so on their own they cannot prove that a
 * message sent to an old peer "carries no field that revision lacks" (`title` on 2024-11-05, say).
 * The STRICT variant closes every object the spec defines field by field (`additionalProperties:
 * false`), except the places that are open by nature:
 *
 * | Left open | Why | Revisions where it matters |
 * | --- | --- | --- |
 * | properties named `_meta` | metadata maps: any key that follows the naming rules | all (inline `{progressToken}` in ≤ 2025-06-18) |
 * | definitions `MetaObject`, `RequestMetaObject`, `ResultMetaObject`, `NotificationMetaObject`, `SubscriptionsListenResultMetaObject` | the same maps as named types; their known keys are still checked | 2026-07-28 |
 * | `inputSchema`, `outputSchema` | JSON Schema documents: any keyword (`$schema`, `additionalProperties`, `$defs`...) | all (2024-11-05..2025-11-25 list only `type`/`properties`/`required`) |
 * | `PrimitiveSchemaDefinition` and the `*Schema` / `*EnumSchema` definitions | elicitation `requestedSchema` property schemas, JSON Schema too | 2025-06-18+ |
 * | `arguments`, `structuredContent`, `input`, `metadata` | tool/prompt arguments, tool output, a model's tool input, sampling metadata: user data | all |
 * | `experimental`, `extensions` | capability maps keyed by name | all / 2026-07-28 |
 * | capability sub-objects declared `additionalProperties: true` or `JSONObject` (`sampling`, `logging`, `completions`, `elicitation.form`...) | open in the schema already: never touched | all |
 * | `JSONObject`, `JSONValue`, `JSONArray` | arbitrary JSON | 2026-07-28 |
 * | `Request`, `Notification`, `Result` (hence `EmptyResult`), and the `params` of `JSONRPCRequest`/`JSONRPCNotification` | generic envelopes every concrete type refines; open in the schema already or never checked on their own | all |
 *
 * Everything else with `properties` and neither `additionalProperties` nor `patternProperties` is
 * closed — including `ClientCapabilities`/`ServerCapabilities` themselves, whose descriptions call
 * them "not a closed set": a non-standard capability belongs under `experimental` (or `extensions`),
 * and closing them is what catches `completions` sent to a 2024-11-05 client or `tasks` on 2026-07-28.
 *
 * Three adjustments keep strictness from inventing violations:
 * - `ClientCapabilities.extensions` and `ServerCapabilities.extensions` on legacy revisions: their
 *   schemas predate the field, but extensions are negotiated in `initialize` there (the MCP Apps
 *   specification's own example declares `extensions["io.modelcontextprotocol/ui"]` in an
 *   `initialize` of 2024-11-05; SEP-2640 declares `io.modelcontextprotocol/skills` in the server's
 *   `initialize` result). The strict variant accepts it as the open map 2026-07-28 defines; the
 *   official schemas accept it anyway.
 * - Inherited `_meta` on request/notification params (≤ 2025-06-18): the base `Request.params`
 *   declares `_meta` (where `progressToken` lives) for every request, but the generated JSON drops it
 *   wherever a concrete type redeclares `params` (`tools/call`, `resources/read`...). Such params get
 *   the base `_meta` back. From 2025-11-25 the base declares no `_meta`, so nothing is added.
 * - `allOf`: `additionalProperties` does not see across `allOf` branches, so closing each branch
 *   would reject the other branches' fields (`GetTaskResult` = `Result` ∧ `Task` in 2025-11-25; the
 *   typed errors `{ allOf: [Error, { code: const }] }` in 2025-11-25 and 2026-07-28). A schema with
 *   `allOf` is closed once, over the union of its branches' property names, and its branches are
 *   left open at their top level (a `$ref` branch to a closed definition is replaced by an unclosed
 *   copy of it; nested objects stay closed). The generic `Result` base contributes its declared
 *   fields (`_meta`) only.
 *
 * Both variants (strict and official) carry two corrections of the generated JSON:
 * - `"id": null` is accepted on error responses: JSON-RPC 2.0 §5 requires it when the request id could
 *   not be read, which the MCP schemas do not model (≤ 2025-06-18 require a string/integer id; later
 *   revisions make the id optional).
 * - `JSONValue` (2026-07-28) accepts any JSON value. `schema.ts`, the source of truth, declares
 *   `string | number | boolean | null | JSONObject | JSONArray`; the generated JSON says
 *   `["string", "integer", "boolean"]`, which would reject `0.5` and `null` inside capability
 *   settings and sampling metadata.
 */

type SchemaNode = Record<string, unknown>;

/** Definitions left open, subtree included (see the table above). */
const OPEN_DEFINITIONS: ReadonlySet<string> = new Set([
  'MetaObject',
  'RequestMetaObject',
  'ResultMetaObject',
  'NotificationMetaObject',
  'SubscriptionsListenResultMetaObject',
  'JSONObject',
  'JSONValue',
  'JSONArray',
  'PrimitiveSchemaDefinition',
  'StringSchema',
  'NumberSchema',
  'BooleanSchema',
  'EnumSchema',
  'SingleSelectEnumSchema',
  'MultiSelectEnumSchema',
  'UntitledSingleSelectEnumSchema',
  'TitledSingleSelectEnumSchema',
  'UntitledMultiSelectEnumSchema',
  'TitledMultiSelectEnumSchema',
  'LegacyTitledEnumSchema',
  'Request',
  'Notification',
  'Result',
]);

/** Property names whose schema is left open, subtree included, wherever they appear. */
const OPEN_PROPERTIES: ReadonlySet<string> = new Set([
  '_meta',
  'inputSchema',
  'outputSchema',
  'arguments',
  'structuredContent',
  'input',
  'metadata',
  'experimental',
  'extensions',
]);

/** The `definitions` (draft-07) or `$defs` (2020-12) map of a schema document. */
export function definitionsOf(document: SchemaNode): Record<string, SchemaNode> {
  const defs = document.$defs ?? document.definitions;
  if (!isPlainObject(defs)) throw new Error('The schema document has neither "$defs" nor "definitions"');
  return defs as Record<string, SchemaNode>;
}

/** `#/$defs/Name` or `#/definitions/Name` → `Name`; anything else → undefined. */
export function definitionName(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  return match ? decodeURIComponent(match[1]!.replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
}

/** The official schema with the two corrections of the module comment. Returns a copy. */
export function deriveOfficialSchema(document: unknown): SchemaNode {
  const copy = structuredClone(document) as SchemaNode;
  const defs = definitionsOf(copy);
  allowNullErrorIds(defs);
  if (defs.JSONValue) defs.JSONValue = { description: 'Any JSON value (corrected: see strict-schema.ts).' };
  return copy;
}

/** The strict variant described in this module's comment. Returns a copy. */
export function deriveStrictSchema(document: unknown): SchemaNode {
  const copy = deriveOfficialSchema(document);
  const defs = definitionsOf(copy);
  restoreInheritedMeta(defs);
  allowLegacyExtensions(defs);
  const closer = new Closer(defs);
  for (const [name, def] of Object.entries(defs)) {
    if (!OPEN_DEFINITIONS.has(name)) closer.close(def, true);
  }
  closer.finishAllOf();
  return copy;
}

/** Legacy `ClientCapabilities` and `ServerCapabilities` get the `extensions` map (see the module comment). */
function allowLegacyExtensions(defs: Record<string, SchemaNode>): void {
  for (const [definition, side] of [
    ['ClientCapabilities', 'client'],
    ['ServerCapabilities', 'server'],
  ] as const) {
    const props = defs[definition]?.properties;
    if (isPlainObject(props) && !('extensions' in props)) {
      props.extensions = {
        description: `Extensions the ${side} supports, by identifier (added for legacy revisions: see strict-schema.ts).`,
        type: 'object',
        additionalProperties: { type: 'object' },
      };
    }
  }
}

/** Error responses (an `error` and a `jsonrpc` member) accept `"id": null`. */
function allowNullErrorIds(defs: Record<string, SchemaNode>): void {
  for (const def of Object.values(defs)) {
    const props = def.properties;
    if (!isPlainObject(props) || !('error' in props) || !('jsonrpc' in props) || !isPlainObject(props.id))
      continue;
    props.id = { anyOf: [props.id, { type: 'null' }] };
  }
}

/** Gives request/notification params that lost the base `_meta` (see the module comment) their `_meta` back. */
function restoreInheritedMeta(defs: Record<string, SchemaNode>): void {
  const baseMeta = (base: string): SchemaNode | undefined => {
    const params = (defs[base]?.properties as SchemaNode | undefined)?.params;
    const meta =
      isPlainObject(params) && isPlainObject(params.properties) ? params.properties._meta : undefined;
    return isPlainObject(meta) ? meta : undefined;
  };
  const metaFor = { Request: baseMeta('Request'), Notification: baseMeta('Notification') };
  for (const [name, def] of Object.entries(defs)) {
    const props = def.properties;
    if (!isPlainObject(props) || !isPlainObject(props.method) || props.method.const === undefined) continue;
    const meta = name.endsWith('Notification') ? metaFor.Notification : metaFor.Request;
    if (!meta) continue;
    for (const params of objectVariants(props.params, defs)) {
      const paramProps = params.properties;
      if (
        isPlainObject(paramProps) &&
        !('_meta' in paramProps) &&
        params.additionalProperties === undefined
      ) {
        paramProps._meta = structuredClone(meta);
      }
    }
  }
}

/** The object schemas a value may take: the node itself, its `$ref` target, or each `anyOf`/`oneOf` member. */
function objectVariants(node: unknown, defs: Record<string, SchemaNode>, depth = 0): SchemaNode[] {
  if (!isPlainObject(node) || depth > 8) return [];
  const target = definitionName(node.$ref);
  if (target !== undefined) return objectVariants(defs[target], defs, depth + 1);
  const members = node.anyOf ?? node.oneOf;
  if (Array.isArray(members)) return members.flatMap((m) => objectVariants(m, defs, depth + 1));
  return isPlainObject(node.properties) ? [node] : [];
}

const SCHEMA_KEYWORDS = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains'] as const;
const SCHEMA_ARRAY_KEYWORDS = ['anyOf', 'oneOf', 'prefixItems', 'items'] as const;

/** Walks definitions, closing objects; `allOf` composites are finished once every definition is closed. */
class Closer {
  private readonly composites: SchemaNode[] = [];
  /** Definitions this pass closed (their raw form had no `additionalProperties`). */
  private readonly closedByUs = new Set<SchemaNode>();

  constructor(private readonly defs: Record<string, SchemaNode>) {}

  close(node: unknown, closeTopLevel: boolean): void {
    if (!isPlainObject(node)) return;
    if (Array.isArray(node.allOf)) {
      this.composites.push(node);
      for (const branch of node.allOf) this.close(branch, false);
    } else if (
      closeTopLevel &&
      isPlainObject(node.properties) &&
      node.additionalProperties === undefined &&
      node.patternProperties === undefined &&
      node.unevaluatedProperties === undefined
    ) {
      node.additionalProperties = false;
      this.closedByUs.add(node);
    }
    if (isPlainObject(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        if (!OPEN_PROPERTIES.has(name)) this.close(sub, true);
      }
    }
    if (isPlainObject(node.patternProperties)) {
      for (const sub of Object.values(node.patternProperties)) this.close(sub, true);
    }
    for (const keyword of SCHEMA_KEYWORDS) if (isPlainObject(node[keyword])) this.close(node[keyword], true);
    for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
      const members = node[keyword];
      if (Array.isArray(members)) for (const member of members) this.close(member, true);
    }
  }

  /** Closes each `allOf` composite over the union of its branches' properties (module comment). */
  finishAllOf(): void {
    for (const node of this.composites) {
      const branches = node.allOf as unknown[];
      const names = new Set<string>(isPlainObject(node.properties) ? Object.keys(node.properties) : []);
      for (const branch of branches) for (const name of this.propertyNames(branch)) names.add(name);
      node.allOf = branches.map((branch) => this.openBranch(branch));
      if (node.additionalProperties !== undefined) continue;
      const properties = isPlainObject(node.properties) ? node.properties : {};
      for (const name of names) if (!(name in properties)) properties[name] = true;
      node.properties = properties;
      node.additionalProperties = false;
    }
  }

  private propertyNames(node: unknown, depth = 0): string[] {
    if (!isPlainObject(node) || depth > 8) return [];
    const target = definitionName(node.$ref);
    if (target !== undefined) return this.propertyNames(this.defs[target], depth + 1);
    const own = isPlainObject(node.properties) ? Object.keys(node.properties) : [];
    const nested = Array.isArray(node.allOf)
      ? node.allOf.flatMap((b) => this.propertyNames(b, depth + 1))
      : [];
    return [...own, ...nested];
  }

  /** A `$ref` branch to a definition this pass closed becomes an unclosed shallow copy of it. */
  private openBranch(branch: unknown): unknown {
    if (!isPlainObject(branch)) return branch;
    const target = definitionName(branch.$ref);
    const def = target === undefined ? undefined : this.defs[target];
    if (!def || !this.closedByUs.has(def)) return branch;
    const { additionalProperties: _closed, ...open } = def;
    return open;
  }
}

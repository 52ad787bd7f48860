/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) merged into every revision's
 * schema, so the message checker knows `skills/list`, `skills/get` and `resources/directory/read`
 * and the results that answer them. SEP-2640 negotiates the extension in legacy `initialize` too,
 * so it is merged into every revision, not only 2026-07-28.
 *
 * The SEP publishes no JSON Schema: `spec/extensions/skills/schema.json` holds the skill entry
 * (`SkillEntry`, `SkillResource`) as the SEP's field tables define it. The methods' envelopes are
 * the core's, per revision, so each keeps that revision's request and result conventions (the
 * JSON-RPC members, `_meta`, `resultType`): each is a copy of the core method it mirrors.
 * - `skills/list` is `resources/list` with `skills` (entries) for `resources`; on 2026-07-28 it
 *   keeps the list-caching fields, which the SEP says the result carries.
 * - `skills/get` is `resources/read` with `uri` and `skill` (one entry) for `contents`; its caching
 *   fields are optional (the SEP leaves open whether it carries them), and it takes no
 *   `inputResponses` (the extension defines no input round for it).
 * - `resources/directory/read` is `resources/list` whose params also take the directory's `uri`
 *   (required); the caching fields are optional (the SEP's result carries none).
 */

import { isPlainObject } from '../util/guards.js';
import { definitionName, definitionsOf } from './strict-schema.js';

type SchemaNode = Record<string, unknown>;

const CACHE_FIELDS = ['ttlMs', 'cacheScope'];

/** A copy of `core` (any revision) with the Skills extension's methods and skill entry merged in. */
export function withSkillsExtension(core: unknown, extension: unknown): SchemaNode {
  const merged = structuredClone(core) as SchemaNode;
  const defs = definitionsOf(merged);
  const prefix = merged.$defs ? '#/$defs/' : '#/definitions/';
  const ref = (name: string) => ({ $ref: `${prefix}${name}` });
  const need = (name: string): SchemaNode => {
    const def = defs[name];
    if (!isPlainObject(def)) throw new Error(`The core schema has no definition "${name}"`);
    return structuredClone(def) as SchemaNode;
  };
  for (const [name, def] of Object.entries(definitionsOf(extension as SchemaNode))) {
    defs[name] = retarget(def, prefix) as SchemaNode;
  }

  defs.ListSkillsRequest = request(need('ListResourcesRequest'), 'skills/list');
  defs.ListSkillsResult = result(need('ListResourcesResult'), 'resources', 'skills', {
    type: 'array',
    items: ref('SkillEntry'),
  });

  defs.GetSkillRequest = request(need('ReadResourceRequest'), 'skills/get');
  withParams(defs.GetSkillRequest, need, (params) => {
    const properties = params.properties as SchemaNode;
    delete properties.inputResponses;
    delete properties.requestState;
  });
  defs.GetSkillResult = result(need('ReadResourceResult'), 'contents', 'skill', ref('SkillEntry'));
  optional(defs.GetSkillResult, CACHE_FIELDS);

  defs.ReadDirectoryRequest = request(need('ListResourcesRequest'), 'resources/directory/read');
  withParams(defs.ReadDirectoryRequest, need, (params) => {
    (params.properties as SchemaNode).uri = { description: 'The directory resource URI.', type: 'string' };
    params.required = [...new Set([...((params.required as string[] | undefined) ?? []), 'uri'])];
  });
  const directory = defs.ReadDirectoryRequest as SchemaNode;
  directory.required = [...new Set([...((directory.required as string[] | undefined) ?? []), 'params'])];
  defs.ReadDirectoryResult = need('ListResourcesResult');
  optional(defs.ReadDirectoryResult, CACHE_FIELDS);

  const union = defs.ClientRequest?.anyOf;
  if (!Array.isArray(union)) throw new Error('The core schema has no union "ClientRequest"');
  for (const name of ['ListSkillsRequest', 'GetSkillRequest', 'ReadDirectoryRequest']) union.push(ref(name));
  return merged;
}

/** `def` (a copy of a core request) as the request of `method`. */
function request(def: SchemaNode, method: string): SchemaNode {
  const properties = def.properties as SchemaNode;
  properties.method = { ...(properties.method as SchemaNode), const: method };
  def.description = `The ${method} request of the Skills extension (SEP-2640).`;
  return def;
}

/** `def` (a copy of a core result) with its `from` field replaced by `to`, required likewise. */
function result(def: SchemaNode, from: string, to: string, schema: SchemaNode): SchemaNode {
  const properties = def.properties as SchemaNode;
  delete properties[from];
  properties[to] = schema;
  def.required = ((def.required as string[] | undefined) ?? []).map((f) => (f === from ? to : f));
  return def;
}

function optional(def: SchemaNode, fields: readonly string[]): void {
  def.required = ((def.required as string[] | undefined) ?? []).filter((f) => !fields.includes(f));
}

/** Edits a request's params in place: inline ones, or a copy of the definition they refer to. */
function withParams(
  def: SchemaNode,
  need: (name: string) => SchemaNode,
  edit: (params: SchemaNode) => void,
): void {
  const properties = def.properties as SchemaNode;
  const params = properties.params;
  const target = isPlainObject(params) ? definitionName(params.$ref) : undefined;
  const copy = target === undefined ? structuredClone(params) : need(target);
  if (!isPlainObject(copy) || !isPlainObject(copy.properties)) {
    throw new Error('A core request the Skills extension mirrors has no params object');
  }
  edit(copy);
  properties.params = copy;
}

/** The extension's `#/$defs/` references, pointed at the merged document's definitions. */
function retarget(node: unknown, prefix: string): unknown {
  if (Array.isArray(node)) return node.map((n) => retarget(n, prefix));
  if (!isPlainObject(node)) return node;
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string'
        ? value.replace(/^#\/\$defs\//, prefix)
        : retarget(value, prefix);
  }
  return out;
}

/**
 * The tasks extension's official JSON Schema (`io.modelcontextprotocol/tasks`, shipped under
 * `spec/extensions/tasks/`) merged into the 2026-07-28 schema, so the message checker knows what the
 * extension adds to the wire: `tasks/get`, `tasks/update` and `tasks/cancel` among the client's
 * requests, `notifications/tasks` among the server's notifications, `CreateTaskResult` as the answer
 * `resultType: "task"` selects, and `taskIds` in the `subscriptions/listen` filter (and its
 * acknowledgement).
 *
 * The extension's definitions are written as `allOf` of a base (`JSONRPCRequest`, `Result`,
 * `NotificationParams`) and its own fields, sometimes with an `anyOf` of task variants in between.
 * The checker finds methods by a `method` const among a definition's own `properties`, and the
 * strict variant closes objects field by field (`strict-schema.ts`), so each such definition is
 * flattened here into one object per variant holding every field of its branches. Two more
 * adjustments follow the core's conventions: a referenced base contributes its fields but not its
 * openness (`Result` is open only to let each result type add fields), and request params get the
 * `_meta` every 2026-07-28 request carries (`RequestMetaObject`, required), which the extension's
 * params leave out.
 */

import { isPlainObject } from '../util/guards.js';
import { definitionName, definitionsOf } from './strict-schema.js';

type SchemaNode = Record<string, unknown>;

const REQUESTS = ['GetTaskRequest', 'UpdateTaskRequest', 'CancelTaskRequest'] as const;
const NOTIFICATIONS = ['TaskStatusNotification'] as const;

/** A copy of the 2026-07-28 schema `core` with the tasks extension `extension` merged in. */
export function withTasksExtension(core: unknown, extension: unknown): SchemaNode {
  const merged = structuredClone(core) as SchemaNode;
  const defs = definitionsOf(merged);
  const ext = definitionsOf(extension as SchemaNode);
  const flatten = (node: unknown, depth = 0): unknown => flattenNode(node, { ...ext, ...defs }, depth);
  for (const [name, def] of Object.entries(ext)) {
    // Shared definitions (Result, InputRequests, Error...) are the core's own, byte for byte.
    if (name in defs) continue;
    const { $schema: _dialect, ...body } = def;
    defs[name] = flatten(body) as SchemaNode;
  }
  for (const name of REQUESTS) addRequestMeta(defs[name]!);
  addToUnion(defs, 'ClientRequest', REQUESTS);
  addToUnion(defs, 'ServerNotification', NOTIFICATIONS);
  const taskIds = (ext.TaskSubscriptionNotifications?.properties as SchemaNode | undefined)?.taskIds;
  const filter = defs.SubscriptionFilter?.properties;
  if (!isPlainObject(taskIds) || !isPlainObject(filter)) {
    throw new Error('The tasks extension schema or the 2026-07-28 schema lacks the subscription filter');
  }
  filter.taskIds = structuredClone(taskIds);
  return merged;
}

function addToUnion(defs: Record<string, SchemaNode>, union: string, members: readonly string[]): void {
  const anyOf = defs[union]?.anyOf;
  if (!Array.isArray(anyOf)) throw new Error(`The 2026-07-28 schema has no union "${union}"`);
  for (const member of members) anyOf.push({ $ref: `#/$defs/${member}` });
}

/** 2026-07-28 requests carry `_meta` (protocol version, client capabilities): required, as in the core. */
function addRequestMeta(def: SchemaNode): void {
  const params = (def.properties as SchemaNode | undefined)?.params;
  if (!isPlainObject(params) || !isPlainObject(params.properties)) {
    throw new Error('A tasks extension request has no params object');
  }
  params.properties._meta = { $ref: '#/$defs/RequestMetaObject' };
  params.required = [...new Set([...((params.required as string[] | undefined) ?? []), '_meta'])];
}

/** `node` with every `allOf` (here and below) turned into one object, or an `anyOf` of objects. */
function flattenNode(node: unknown, defs: Record<string, SchemaNode>, depth: number): unknown {
  if (!isPlainObject(node) || depth > 16) return node;
  let out: SchemaNode = node;
  if (Array.isArray(node.allOf)) {
    let variants: SchemaNode[] = [{ type: 'object', properties: {}, required: [] }];
    for (const branch of node.allOf) {
      const options = branchObjects(branch, defs);
      variants = variants.flatMap((variant) => options.map((option) => mergeObjects(variant, option)));
    }
    const { allOf: _allOf, ...rest } = node;
    out = variants.length === 1 ? { ...rest, ...variants[0] } : { ...rest, anyOf: variants };
  }
  if (isPlainObject(out.properties)) {
    const properties: SchemaNode = {};
    for (const [key, value] of Object.entries(out.properties)) {
      properties[key] = flattenNode(value, defs, depth + 1);
    }
    out = { ...out, properties };
  }
  if (Array.isArray(out.anyOf))
    out = { ...out, anyOf: out.anyOf.map((m) => flattenNode(m, defs, depth + 1)) };
  return out;
}

/**
 * The objects one `allOf` branch may be: a referenced base (its fields only), an inline object, or
 * each member of an `anyOf`.
 */
function branchObjects(branch: unknown, defs: Record<string, SchemaNode>): SchemaNode[] {
  if (!isPlainObject(branch)) return [];
  const target = definitionName(branch.$ref);
  if (target !== undefined) {
    const def = defs[target];
    if (!def) throw new Error(`The tasks extension schema refers to an unknown definition "${target}"`);
    if (Array.isArray(def.allOf) || Array.isArray(def.anyOf)) {
      return branchObjects(flattenNode(def, defs, 0), defs);
    }
    const fields: SchemaNode = { properties: def.properties ?? {} };
    if (Array.isArray(def.required)) fields.required = def.required;
    return [fields];
  }
  if (Array.isArray(branch.anyOf)) return branch.anyOf.flatMap((member) => branchObjects(member, defs));
  return [branch];
}

function mergeObjects(a: SchemaNode, b: SchemaNode): SchemaNode {
  const out: SchemaNode = {
    type: 'object',
    properties: { ...(a.properties as SchemaNode), ...(b.properties as SchemaNode | undefined) },
    required: [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])],
  };
  // An inline branch that stays open (`TaskStatusNotificationParams` accepts any other field) keeps
  // the merged object open.
  const open = b.additionalProperties ?? a.additionalProperties;
  if (open !== undefined && open !== false) out.additionalProperties = open;
  if (b.description ?? a.description) out.description = b.description ?? a.description;
  return out;
}

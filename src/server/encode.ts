/**
 * The last step before a result leaves the server: fit it to the request's revision (codecs), add
 * what 2026-07-28 requires on every result (`resultType`, cache hints, `serverInfo`), and serialize
 * list pages once per (page, revision, cache variant) so repeated lists cost a lookup.
 */

import {
  encodeCallToolResult,
  encodeGetPromptResult,
  encodePrompt,
  encodeReadResourceResult,
  encodeResource,
  encodeResourceTemplate,
  encodeTool,
} from '../protocol/codec.js';
import { RawJson } from '../protocol/frames.js';
import { META } from '../protocol/meta.js';
import { featuresOf, type RevisionFeatures } from '../protocol/revisions.js';
import type {
  CacheHint,
  CallToolResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult,
} from '../protocol/types.js';
import type { RequestContext } from './context.js';
import type { MethodEntry } from './methods.js';

type Obj = Record<string, unknown>;

/**
 * Results that are the same object for the same page until the list changes: frozen (their items
 * too), so nothing can change them, and so their serialization may be cached.
 */
const memoizable = new WeakSet<object>();
const serialized = new WeakMap<object, Map<string, RawJson>>();
/** Copies of memoizable results handed to middleware, with the result each copies. */
const copies = new WeakMap<object, Obj>();

/** Freezes a list result (and its item array) and marks it shared, so its serialization may be cached. */
export function markMemoizable<T extends Obj>(result: T): T {
  for (const value of Object.values(result)) if (Array.isArray(value)) Object.freeze(value);
  memoizable.add(Object.freeze(result));
  return result;
}

/**
 * The copy of a memoizable result that middleware gets: its own object and item array, which a
 * middleware may change at will (`r.tools.push(x)`) without touching what every other caller gets.
 * The items themselves are frozen descriptors. Costs two small allocations, and only when the server
 * has middleware.
 */
export function copyForMiddleware(result: Obj): Obj {
  const copy: Obj = {};
  for (const [key, value] of Object.entries(result)) copy[key] = Array.isArray(value) ? [...value] : value;
  copies.set(copy, result);
  return copy;
}

/**
 * The shared result whose cached JSON may answer for `result`: `result` itself when it is one, or
 * the one it copies when no middleware changed the copy (same fields, same items in the same order);
 * undefined otherwise.
 */
function sharedOriginal(result: Obj): Obj | undefined {
  if (memoizable.has(result)) return result;
  const original = copies.get(result);
  if (!original) return undefined;
  const keys = Object.keys(result);
  if (keys.length !== Object.keys(original).length) return undefined;
  for (const key of keys) {
    const mine = result[key];
    const theirs = original[key];
    if (mine === theirs) continue;
    if (!Array.isArray(mine) || !Array.isArray(theirs) || mine.length !== theirs.length) return undefined;
    for (let i = 0; i < mine.length; i++) if (mine[i] !== theirs[i]) return undefined;
  }
  return original;
}

export interface EncodeOptions {
  readonly serverInfo: Implementation;
  /** Cache hint for this result (cacheable methods on 2026-07-28). */
  readonly cache: CacheHint | undefined;
}

type Encoder = (result: Obj, f: RevisionFeatures) => Obj;

/** A result that may answer `input_required` is fitted only when it is the method's own result. */
const unlessRound =
  (encode: Encoder): Encoder =>
  (result, f) =>
    result.resultType === undefined ? encode(result, f) : result;

/** The codecs of the built-in methods' results, by method (see `MethodEntry.encode`). */
export const BUILT_IN_ENCODERS: Readonly<Record<string, Encoder>> = Object.freeze({
  'tools/list': (result, f) => {
    const r = result as unknown as ListToolsResult;
    return { ...r, tools: r.tools.map((t) => encodeTool(t, f)) };
  },
  'tools/call': unlessRound(
    (result, f) => encodeCallToolResult(result as unknown as CallToolResult, f) as unknown as Obj,
  ),
  'resources/list': (result, f) => {
    const r = result as unknown as ListResourcesResult;
    return f.icons ? result : { ...r, resources: r.resources.map((x) => encodeResource(x, f)) };
  },
  'resources/templates/list': (result, f) => {
    const r = result as unknown as ListResourceTemplatesResult;
    return f.icons
      ? result
      : { ...r, resourceTemplates: r.resourceTemplates.map((x) => encodeResourceTemplate(x, f)) };
  },
  'resources/read': unlessRound(
    (result, f) => encodeReadResourceResult(result as unknown as ReadResourceResult, f) as unknown as Obj,
  ),
  'prompts/list': (result, f) => {
    const r = result as unknown as ListPromptsResult;
    return f.icons ? result : { ...r, prompts: r.prompts.map((x) => encodePrompt(x, f)) };
  },
  'prompts/get': unlessRound(
    (result, f) => encodeGetPromptResult(result as unknown as GetPromptResult, f) as unknown as Obj,
  ),
});

/**
 * The end of a modern result's JSON when the result sets none of the fields 2026-07-28 adds:
 * `"resultType":"complete","_meta":{serverInfo}}`, serialized once per server identity. Assumes, as
 * every other cache here does, that a server's `info` is not mutated once it serves.
 */
const modernTails = new WeakMap<Implementation, string>();

function modernTail(serverInfo: Implementation): string {
  let tail = modernTails.get(serverInfo);
  if (tail === undefined) {
    tail = `"resultType":"complete","_meta":${JSON.stringify({ [META.serverInfo]: serverInfo })}}`;
    modernTails.set(serverInfo, tail);
  }
  return tail;
}

function addModernFields(result: Obj, options: EncodeOptions): Obj {
  const out: Obj = { ...result };
  out.resultType ??= 'complete';
  if (out.resultType === 'complete' && options.cache) {
    out.ttlMs ??= options.cache.ttlMs;
    out.cacheScope ??= options.cache.cacheScope;
  }
  const meta = out._meta as Obj | undefined;
  if (!meta || !(META.serverInfo in meta)) out._meta = { ...meta, [META.serverInfo]: options.serverInfo };
  return out;
}

/**
 * Fits `result` of the method `entry` describes (none: a fallback's) to the request's revision;
 * returns an object or a cached {@link RawJson}.
 */
export function encodeResult(
  entry: MethodEntry | undefined,
  result: unknown,
  ctx: RequestContext,
  options: EncodeOptions,
): unknown {
  if (result instanceof RawJson || typeof result !== 'object' || result === null) return result;
  const f = featuresOf(ctx.revision);
  const encode = entry?.encode;
  const shared = sharedOriginal(result as Obj);
  if (!shared) return finish(encode, result as Obj, f, options);
  const variant = `${ctx.revision}|${options.cache?.ttlMs}|${options.cache?.cacheScope}`;
  let byVariant = serialized.get(shared);
  if (!byVariant) {
    byVariant = new Map();
    serialized.set(shared, byVariant);
  }
  let raw = byVariant.get(variant);
  if (!raw) {
    const encoded = finish(encode, shared, f, options);
    raw = encoded instanceof RawJson ? encoded : new RawJson(JSON.stringify(encoded));
    byVariant.set(variant, raw);
  }
  return raw;
}

function finish(
  encode: Encoder | undefined,
  result: Obj,
  f: RevisionFeatures,
  options: EncodeOptions,
): Obj | RawJson {
  const body = encode ? encode(result, f) : result;
  if (!f.modern) return body;
  // The common modern result (a tool's content, say) sets no resultType, _meta or cache hint: append
  // the precomputed tail to its JSON instead of copying it into a new object with a new _meta per
  // call, which cost more than the rest of the request pipeline together.
  if (body.resultType === undefined && body._meta === undefined && !options.cache) {
    const json = JSON.stringify(body);
    const tail = modernTail(options.serverInfo);
    return new RawJson(json === '{}' ? `{${tail}` : `${json.slice(0, -1)},${tail}`);
  }
  return addModernFields(body, options);
}

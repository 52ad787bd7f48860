/**
 * The last step before a result leaves the server: fit it to the request's revision (codecs), add
 * what 2026-07-28 requires on every result (`resultType`, cache hints, `serverInfo`), and serialize
 * list pages once per (page, revision, cache variant) so repeated lists cost a lookup.
 */
import { RawJson } from '../engine/raw-json.js';
import {
  encodeCallToolResult,
  encodeGetPromptResult,
  encodePrompt,
  encodeReadResourceResult,
  encodeResource,
  encodeResourceTemplate,
  encodeTool,
} from '../protocol/codec.js';
import { META } from '../protocol/meta.js';
import { methodSpec } from '../protocol/methods.js';
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

type Obj = Record<string, unknown>;

/** Results that are the same object for the same page until the list changes; safe to memoize. */
const memoizable = new WeakSet<object>();
const serialized = new WeakMap<object, Map<string, RawJson>>();

/** Marks a result object as immutable and shared, so its serialization may be cached. */
export function markMemoizable<T extends object>(result: T): T {
  memoizable.add(result);
  return result;
}

export interface EncodeOptions {
  readonly serverInfo: Implementation;
  /** Cache hint for this result (cacheable methods on 2026-07-28). */
  readonly cache: CacheHint | undefined;
}

function encodeBody(method: string, result: Obj, f: RevisionFeatures): Obj {
  switch (method) {
    case 'tools/list': {
      const r = result as unknown as ListToolsResult;
      return { ...r, tools: r.tools.map((t) => encodeTool(t, f)) };
    }
    case 'tools/call':
      return result.resultType === undefined
        ? (encodeCallToolResult(result as unknown as CallToolResult, f) as unknown as Obj)
        : result;
    case 'resources/list': {
      const r = result as unknown as ListResourcesResult;
      return f.icons ? result : { ...r, resources: r.resources.map((x) => encodeResource(x, f)) };
    }
    case 'resources/templates/list': {
      const r = result as unknown as ListResourceTemplatesResult;
      return f.icons
        ? result
        : { ...r, resourceTemplates: r.resourceTemplates.map((x) => encodeResourceTemplate(x, f)) };
    }
    case 'resources/read':
      return result.resultType === undefined
        ? (encodeReadResourceResult(result as unknown as ReadResourceResult, f) as unknown as Obj)
        : result;
    case 'prompts/list': {
      const r = result as unknown as ListPromptsResult;
      return f.icons ? result : { ...r, prompts: r.prompts.map((x) => encodePrompt(x, f)) };
    }
    case 'prompts/get':
      return result.resultType === undefined
        ? (encodeGetPromptResult(result as unknown as GetPromptResult, f) as unknown as Obj)
        : result;
    default:
      return result;
  }
}

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

function addModernFields(method: string, result: Obj, options: EncodeOptions): Obj {
  const out: Obj = { ...result };
  out.resultType ??= 'complete';
  if (out.resultType === 'complete' && options.cache && methodSpec(method)?.cacheable) {
    out.ttlMs ??= options.cache.ttlMs;
    out.cacheScope ??= options.cache.cacheScope;
  }
  const meta = out._meta as Obj | undefined;
  if (!meta || !(META.serverInfo in meta)) out._meta = { ...meta, [META.serverInfo]: options.serverInfo };
  return out;
}

/** Fits `result` of `method` to the request's revision; returns an object or cached {@link RawJson}. */
export function encodeResult(
  method: string,
  result: unknown,
  ctx: RequestContext,
  options: EncodeOptions,
): unknown {
  if (result instanceof RawJson || typeof result !== 'object' || result === null) return result;
  const f = featuresOf(ctx.revision);
  if (!memoizable.has(result)) return finish(method, result as Obj, f, options);
  const variant = `${ctx.revision}|${options.cache?.ttlMs}|${options.cache?.cacheScope}`;
  let byVariant = serialized.get(result);
  if (!byVariant) {
    byVariant = new Map();
    serialized.set(result, byVariant);
  }
  let raw = byVariant.get(variant);
  if (!raw) {
    const encoded = finish(method, result as Obj, f, options);
    raw = encoded instanceof RawJson ? encoded : new RawJson(JSON.stringify(encoded));
    byVariant.set(variant, raw);
  }
  return raw;
}

function finish(method: string, result: Obj, f: RevisionFeatures, options: EncodeOptions): Obj | RawJson {
  const body = encodeBody(method, result, f);
  if (!f.modern) return body;
  // The common modern result (a tool's content, say) sets no resultType, _meta or cache hint: append
  // the precomputed tail to its JSON instead of copying it into a new object with a new _meta per
  // call, which cost more than the rest of the request pipeline together.
  if (
    body.resultType === undefined &&
    body._meta === undefined &&
    !(options.cache && methodSpec(method)?.cacheable)
  ) {
    const json = JSON.stringify(body);
    const tail = modernTail(options.serverInfo);
    return new RawJson(json === '{}' ? `{${tail}` : `${json.slice(0, -1)},${tail}`);
  }
  return addModernFields(method, body, options);
}

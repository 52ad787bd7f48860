/**
 * Resources: static ones addressed by URI and templated ones (RFC 6570) matched against the URI of a
 * `resources/read`. Handlers may return a full result, contents, or just a body (string or bytes).
 */
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import type {
  Annotations,
  CacheHint,
  Icon,
  Meta,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
} from '../protocol/types.js';
import { clip } from '../util/clip.js';
import { frozenCopy } from '../util/freeze.js';
import type { CompleteForward, Completer } from './completion.js';
import { resourceContents } from './content.js';
import type { RequestContext } from './context.js';
import { declareScopes, type ScopedConfig } from './scopes.js';
import { UriTemplate } from './uri-template.js';

export interface ResourceConfig extends ScopedConfig {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
  /** 2026-07-28 cache hint for reads of this resource. Default: do not cache (`ttlMs: 0`). */
  cache?: Partial<CacheHint>;
}

export type ResourceTemplateConfig = Omit<ResourceConfig, 'size'> & {
  /**
   * Enumerates concrete resources this template stands for; they appear in `resources/list`.
   * Called on every list request, so keep it cheap.
   */
  list?: (ctx: RequestContext) => Resource[] | Promise<Resource[]>;
  /** Completion for template variables, by variable name. */
  complete?: Record<string, Completer>;
};

/**
 * What a read handler may return. Bodies use the resource's `mimeType`. `undefined` (or `null`) means
 * "no such resource": the client gets the not-found error of its protocol era (-32002 legacy,
 * -32602 on 2026-07-28).
 */
export type ResourceReadReturn =
  | undefined
  | null
  | ReadResourceResult
  | ResourceContents
  | ResourceContents[]
  | string
  | Uint8Array;

export type ResourceReader = (
  uri: string,
  ctx: RequestContext,
) => ResourceReadReturn | Promise<ResourceReadReturn>;
export type TemplateReader = (
  uri: string,
  variables: Record<string, string | string[]>,
  ctx: RequestContext,
) => ResourceReadReturn | Promise<ResourceReadReturn>;

/** Answers a `resources/read` of a pass-through resource, or of a URI a pass-through template matches. */
export type ReadForward = (
  uri: string,
  ctx: RequestContext,
) => ReadResourceResult | Promise<ReadResourceResult>;

export interface ResourceEntry {
  readonly descriptor: Resource;
  readonly cache: Partial<CacheHint> | undefined;
  readonly read: ResourceReader;
}

export interface TemplateEntry {
  readonly descriptor: ResourceTemplate;
  readonly template: UriTemplate;
  readonly cache: Partial<CacheHint> | undefined;
  readonly list: ResourceTemplateConfig['list'];
  readonly complete: Record<string, Completer> | undefined;
  readonly read: TemplateReader;
  /** A pass-through template (see pass-through.ts): its reads and completions are the forward's. */
  readonly passThrough?: boolean;
  readonly forwardComplete?: CompleteForward | undefined;
}

function copyDescriptorFields(target: Record<string, unknown>, config: ResourceConfig): void {
  for (const key of ['title', 'description', 'mimeType', 'size', 'icons', 'annotations', '_meta'] as const) {
    // Nested values are copied and frozen: a descriptor is shared by every list and caller.
    if (config[key] !== undefined) target[key] = frozenCopy(config[key]);
  }
}

export function buildResourceEntry(
  name: string,
  uri: string,
  config: ResourceConfig,
  read: ResourceReader,
): ResourceEntry {
  const descriptor: Resource = { uri, name };
  copyDescriptorFields(descriptor as unknown as Record<string, unknown>, config);
  Object.freeze(descriptor);
  declareScopes(descriptor, config, `resource ${JSON.stringify(uri)}`);
  return { descriptor, cache: config.cache, read };
}

export function buildTemplateEntry(
  name: string,
  uriTemplate: string,
  config: ResourceTemplateConfig,
  read: TemplateReader,
): TemplateEntry {
  const template = new UriTemplate(uriTemplate);
  const descriptor: ResourceTemplate = { uriTemplate, name };
  const { list, complete, cache, ...rest } = config;
  copyDescriptorFields(descriptor as unknown as Record<string, unknown>, rest);
  Object.freeze(descriptor);
  declareScopes(descriptor, config, `resource template ${JSON.stringify(uriTemplate)}`);
  return { descriptor, template, cache, list, complete, read };
}

export const resourceNotFound = (uri: string, code: number) =>
  new ProtocolError(
    code,
    `Resource not found: ${clip(uri, 200)}. Call resources/list or resources/templates/list for what exists.`,
    { uri: clip(uri, 200) },
  );

/** Turns whatever a read handler returned into a `ReadResourceResult` (undefined: not found). */
export function normalizeReadResult(
  returned: ResourceReadReturn,
  uri: string,
  mimeType: string | undefined,
): ReadResourceResult | undefined {
  if (returned === undefined || returned === null) return undefined;
  if (typeof returned === 'string' || returned instanceof Uint8Array) {
    return { contents: [resourceContents(uri, returned, mimeType)] };
  }
  if (Array.isArray(returned)) return { contents: returned };
  if (typeof returned === 'object' && returned !== null) {
    if ('contents' in returned && Array.isArray(returned.contents)) return returned;
    if ('uri' in returned) return { contents: [returned] };
  }
  throw new ProtocolError(
    ErrorCode.InternalError,
    `The read handler for ${uri} returned ${JSON.stringify(returned)?.slice(0, 80)}; return a string, bytes, contents, or { contents }.`,
  );
}

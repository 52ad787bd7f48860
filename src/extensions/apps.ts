/**
 * MCP Apps, the `io.modelcontextprotocol/ui` extension (SEP-1865; ext-apps specification, stable
 * 2026-01-26): a server ships interactive HTML views as `ui://` resources and links tools to them;
 * a host renders the view in a sandboxed iframe and keeps app-only tools away from its model.
 *
 * Server side: {@link registerAppResource} and {@link registerAppTool} (or {@link appToolMeta} for a
 * plain `registerTool`) write the `_meta.ui` the spec defines and advertise the extension
 * (`capabilities.extensions["io.modelcontextprotocol/ui"]` on 2026-07-28; legacy `initialize`
 * results carry no extensions, and hosts do not need them: they follow the tools' `_meta.ui`).
 * {@link clientSupportsApps} tells a handler whether the client renders views, so a server can
 * fall back to text as the spec asks.
 *
 * Host side: {@link withAppsSupport} declares the extension in the client's capabilities (sent with
 * every 2026-07-28 request and, as the Apps spec shows, in legacy `initialize` too), and
 * {@link toolsForModel} drops the tools whose `visibility` leaves out `"model"`: the spec says a
 * host MUST NOT show them to the agent. `client.listTools({ forModel: true })` applies it for you.
 * {@link isToolForApp} is the check a host makes before proxying a view's `tools/call`.
 *
 * Descriptor `_meta` exists from protocol 2025-06-18: on 2024-11-05 and 2025-03-26 the tool-to-view
 * links are not sent, and tools degrade to plain text tools.
 */
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type {
  ClientCapabilities,
  JsonObject,
  Meta,
  ReadResourceResult,
  ResourceContents,
} from '../protocol/types.js';
import type { SchemaLike } from '../schema/index.js';
import type { ClientView } from '../server/link.js';
import { normalizeReadResult, type ResourceConfig, type ResourceReader } from '../server/resources.js';
import type { ResourceHandle, ServerCore, ToolHandle } from '../server/server.js';
import type { ToolConfig, ToolHandler } from '../server/tools.js';
import { isPlainObject } from '../util/guards.js';
import type { AppToolUi } from './apps-tools.js';

/** The extension identifier. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP Apps HTML view (the only one the 2026-01-26 specification defines). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** Origins a view may reach; each maps to CSP directives the host builds. Omitted: nothing external. */
export interface AppCsp {
  /** fetch/XHR/WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, images, styles, fonts, media (`script-src`, `img-src`...). Wildcard subdomains allowed. */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`); omitted means none. */
  frameDomains?: string[];
  /** Document base URIs (`base-uri`); omitted means `'self'`. */
  baseUriDomains?: string[];
}

/** Browser capabilities a view asks for (the host MAY grant them through the iframe's `allow`). */
export interface AppPermissions {
  camera?: JsonObject;
  microphone?: JsonObject;
  geolocation?: JsonObject;
  clipboardWrite?: JsonObject;
}

/** `_meta.ui` of a view resource and of its contents. */
export interface AppResourceUi {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is host-specific (see the host's documentation). */
  domain?: string;
  /** Ask the host for a visible border and background (`true`) or none (`false`); omitted: host decides. */
  prefersBorder?: boolean;
}

export type { AppToolUi, AppVisibility } from './apps-tools.js';

export interface AppResourceConfig extends Omit<ResourceConfig, 'mimeType'> {
  ui?: AppResourceUi;
}

export type AppToolConfig<In extends SchemaLike | undefined, Out extends SchemaLike | undefined> = ToolConfig<
  In,
  Out
> & { ui: AppToolUi };

const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

const configError = (message: string) => new SwitchboardError('CONFIG', message);

function checkViewUri(uri: unknown, what: string): void {
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length === 'ui://'.length) {
    throw configError(
      `${what} must be a ui:// URI (e.g. "ui://weather/dashboard"), got ${JSON.stringify(uri)}.`,
    );
  }
}

function checkResourceUi(ui: AppResourceUi): void {
  if (!isPlainObject(ui))
    throw configError('ui must be an object: { csp?, permissions?, domain?, prefersBorder? }.');
  if (ui.csp !== undefined) {
    if (!isPlainObject(ui.csp)) throw configError('ui.csp must be an object of origin lists.');
    for (const [field, origins] of Object.entries(ui.csp)) {
      if (!(CSP_FIELDS as readonly string[]).includes(field)) {
        throw configError(`ui.csp.${field} is not an MCP Apps CSP field; use ${CSP_FIELDS.join(', ')}.`);
      }
      if (!Array.isArray(origins) || origins.some((o) => typeof o !== 'string' || o.length === 0)) {
        throw configError(`ui.csp.${field} must be an array of origins, e.g. ["https://api.example.com"].`);
      }
    }
  }
  if (ui.permissions !== undefined) {
    if (!isPlainObject(ui.permissions))
      throw configError('ui.permissions must be an object, e.g. { camera: {} }.');
    for (const [name, value] of Object.entries(ui.permissions)) {
      if (!(PERMISSIONS as readonly string[]).includes(name) || !isPlainObject(value)) {
        throw configError(
          `ui.permissions.${name} is not valid: use ${PERMISSIONS.map((p) => `${p}: {}`).join(', ')}.`,
        );
      }
    }
  }
  if (ui.domain !== undefined && (typeof ui.domain !== 'string' || ui.domain.length === 0)) {
    throw configError('ui.domain must be a non-empty string in the format your host documents.');
  }
  if (ui.prefersBorder !== undefined && typeof ui.prefersBorder !== 'boolean') {
    throw configError('ui.prefersBorder must be a boolean.');
  }
}

// --- server ------------------------------------------------------------------------------------

/**
 * Registers an MCP Apps view: a `ui://` resource of type `text/html;profile=mcp-app` whose
 * descriptor and every content block carry `_meta.ui` (CSP, permissions, domain, border), and
 * advertises the extension. `read` returns the HTML (a string, bytes, or contents).
 */
export function registerAppResource(
  server: ServerCore,
  name: string,
  uri: string,
  config: AppResourceConfig,
  read: ResourceReader,
): ResourceHandle {
  checkViewUri(uri, 'An app resource URI');
  const { ui, ...rest } = config;
  if (ui !== undefined) checkResourceUi(ui);
  const _meta = ui === undefined ? rest._meta : { ...rest._meta, ui: ui as JsonObject };
  const handle = server.registerResource(
    name,
    uri,
    { ...rest, mimeType: APP_MIME_TYPE, ...(_meta === undefined ? {} : { _meta }) },
    async (requested, ctx) =>
      withViewMeta(normalizeReadResult(await read(requested, ctx), requested, APP_MIME_TYPE), ui),
  );
  server.declareExtension(APPS_EXTENSION);
  return handle;
}

/** Every content block of a view is `text/html;profile=mcp-app` and carries the view's `_meta.ui`. */
function withViewMeta(
  result: ReadResourceResult | undefined,
  ui: AppResourceUi | undefined,
): ReadResourceResult | undefined {
  if (!result) return result;
  const contents = result.contents.map((content): ResourceContents => {
    const mimeType = content.mimeType ?? APP_MIME_TYPE;
    if (mimeType !== APP_MIME_TYPE) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `The app resource ${content.uri} returned content of type ${mimeType}; MCP Apps views must be ${APP_MIME_TYPE} (return the HTML as a string).`,
      );
    }
    if (ui === undefined) return { ...content, mimeType };
    const own = content._meta?.ui;
    return {
      ...content,
      mimeType,
      _meta: { ...content._meta, ui: { ...ui, ...(isPlainObject(own) ? own : {}) } },
    };
  });
  return { ...result, contents };
}

/** `_meta` for a tool linked to a view: `{ ...meta, ui: { resourceUri, visibility } }`, checked. */
export function appToolMeta(ui: AppToolUi, meta?: Meta): Meta {
  if (!isPlainObject(ui as unknown))
    throw configError('ui must be an object: { resourceUri?, visibility? }.');
  if (ui.resourceUri !== undefined) checkViewUri(ui.resourceUri, 'ui.resourceUri');
  if (ui.visibility !== undefined) {
    const v: unknown = ui.visibility;
    if (!Array.isArray(v) || v.length === 0 || v.some((x) => x !== 'model' && x !== 'app')) {
      throw configError('ui.visibility must be a non-empty array of "model" and/or "app".');
    }
  }
  const out: JsonObject = {};
  if (ui.resourceUri !== undefined) out.resourceUri = ui.resourceUri;
  if (ui.visibility !== undefined) out.visibility = [...new Set(ui.visibility)];
  return { ...meta, ui: out };
}

/**
 * Registers a tool linked to a view (`ui.resourceUri`) and/or restricted to views
 * (`ui.visibility: ["app"]`), and advertises the extension. Its result should still carry text
 * `content` for hosts without MCP Apps.
 */
export function registerAppTool<
  In extends SchemaLike | undefined = undefined,
  Out extends SchemaLike | undefined = undefined,
>(
  server: ServerCore,
  name: string,
  config: AppToolConfig<In, Out>,
  handler: ToolHandler<NoInfer<In>, NoInfer<Out>>,
): ToolHandle {
  const { ui, ...rest } = config;
  const handle = server.registerTool(
    name,
    { ...rest, _meta: appToolMeta(ui, rest._meta) } as ToolConfig<In, Out>,
    handler,
  );
  server.declareExtension(APPS_EXTENSION);
  return handle;
}

/**
 * Whether the client of a request renders MCP Apps views of `mimeType`: it declared
 * `extensions["io.modelcontextprotocol/ui"].mimeTypes` including it. Pass `ctx.client`.
 */
export function clientSupportsApps(
  client: ClientView | ClientCapabilities | undefined,
  mimeType: string = APP_MIME_TYPE,
): boolean {
  const capabilities =
    client && 'capabilities' in client ? client.capabilities : (client as ClientCapabilities | undefined);
  const mimeTypes: unknown = capabilities?.extensions?.[APPS_EXTENSION]?.mimeTypes;
  return Array.isArray(mimeTypes) && mimeTypes.includes(mimeType);
}

// --- host --------------------------------------------------------------------------------------

/** `capabilities` plus the MCP Apps declaration, for `new Client(info, { capabilities })`. */
export function withAppsSupport(
  capabilities: ClientCapabilities = {},
  mimeTypes: readonly string[] = [APP_MIME_TYPE],
): ClientCapabilities {
  if (mimeTypes.length === 0 || mimeTypes.some((m) => typeof m !== 'string' || m.length === 0)) {
    throw configError(
      `withAppsSupport: mimeTypes must list at least one MIME type, e.g. ["${APP_MIME_TYPE}"].`,
    );
  }
  return {
    ...capabilities,
    extensions: { ...capabilities.extensions, [APPS_EXTENSION]: { mimeTypes: [...mimeTypes] } },
  };
}

export { isToolForApp, isToolForModel, toolsForModel, toolUi, toolVisibility } from './apps-tools.js';

/**
 * The server framework: register tools, resources, templates and prompts; serve methods of your
 * own; add middleware; connect to channels. One definition serves both protocol eras: legacy clients
 * `initialize` a connection, modern clients describe themselves on every request, and handlers
 * cannot tell the difference unless they ask (`ctx.era`).
 *
 * `ServerCore` is the framework without extensions; the `Server` users import
 * (`extensions/server.ts`) is this plus the tasks extension, plugged in through the extension points
 * below (methods, tool call hooks, capabilities, shutdown and registration listeners).
 */
import type { Channel } from '../engine/channel.js';
import { compose, type MethodHandler, type Middleware } from '../engine/middleware.js';
import { encodeImplementation, encodeServerCapabilities } from '../protocol/codec.js';
import { envelopeCapabilities } from '../protocol/envelope.js';
import {
  ErrorCode,
  invalidParams,
  methodNotFound,
  ProtocolError,
  SwitchboardError,
} from '../protocol/errors.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type { KnownMethod, ParamsOf, ResultOf } from '../protocol/method-map.js';
import { checkMeta, methodSpec } from '../protocol/methods.js';
import { LIST_CHANGED, type ListChangedKind, RESOURCE_UPDATED } from '../protocol/notifications.js';
import {
  featuresOf,
  isModernRevision,
  isRevision,
  LEGACY_REVISIONS,
  type LegacyRevision,
  MODERN_REVISIONS,
  REVISIONS,
  type Revision,
  type RevisionFeatures,
} from '../protocol/revisions.js';
import {
  type CacheHint,
  type ClientCapabilities,
  type CompleteParams,
  type CompleteResult,
  type Implementation,
  type InitializeResult,
  type JsonObject,
  LOGGING_LEVELS,
  type LoggingLevel,
  type Meta,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import type { SchemaLike } from '../schema/index.js';
import { asError } from '../util/guards.js';
import { type Logger, withOnerror } from '../util/logger.js';
import { randomUuid } from '../util/random-id.js';
import type { ChangeBus } from './change-bus.js';
import { type Completer, completerFor, runCompleter } from './completion.js';
import { ServerConnection } from './connection.js';
import { type ContextServices, RequestContext, TaskHandoff } from './context.js';
import { BUILT_IN_ENCODERS, copyForMiddleware, encodeResult, markMemoizable } from './encode.js';
import { type Handle, type ItemKind, registerItem } from './handles.js';
import type { ClientView, LegacySession, RequestLink, ServedRequest } from './link.js';
import {
  type FallbackLogic,
  type MethodEntry,
  type MethodLogic,
  type MethodOptions,
  type MethodParams,
  MethodRegistry,
  type MethodResult,
  userMethodEntry,
} from './methods.js';
import { Mrtr } from './mrtr.js';
import { checkName } from './names.js';
import { type Audience, NotificationHub, updateLegacySubscription } from './notifications.js';
import { compareKeys, paginate } from './pagination.js';
import { type PassThroughHandle, type PassThroughOptions, passThroughKinds } from './pass-through.js';
import {
  buildPromptEntry,
  getPrompt,
  type PromptConfig,
  type PromptEntry,
  type PromptForward,
  type PromptHandler,
  unknownPrompt,
} from './prompts.js';
import type { RedactFn } from './redact.js';
import { Registry } from './registry.js';
import { type RequestStateKeyring, RequestStateSealer, type RequestStateStore } from './request-state.js';
import {
  buildResourceEntry,
  buildTemplateEntry,
  normalizeReadResult,
  type ReadForward,
  type ResourceConfig,
  type ResourceEntry,
  type ResourceReader,
  type ResourceTemplateConfig,
  resourceNotFound,
  type TemplateEntry,
  type TemplateReader,
} from './resources.js';
import { callerHolds, scopesOf } from './scopes.js';
import {
  buildToolEntry,
  type CallToolOutcome,
  callTool,
  completeInline,
  type ToolConfig,
  type ToolEntry,
  type ToolForward,
  type ToolHandler,
  unknownTool,
} from './tools.js';
import { climbingVariable, UriTemplateIndex } from './uri-template.js';
import { UrlElicitationTracker } from './url-elicitations.js';

export interface ServerCoreOptions {
  /** Guidance for the client's model about how to use this server (sent at initialize and discover). */
  instructions?: string;
  /** Capabilities to advertise beyond those derived from what is registered (experimental, extensions). */
  capabilities?: ServerCapabilities;
  /** Items per page on every list. Default 100. */
  pageSize?: number;
  /** Revisions to serve. Default: every revision Switchboard speaks (both eras). */
  revisions?: readonly Revision[];
  /** 2026-07-28 cache hint on `server/discover` and list results. Default `{ ttlMs: 60000, cacheScope: 'public' }`. */
  listCache?: CacheHint;
  /**
   * Where problems go that concern no single request (a malformed frame, a failing listener or
   * store, a client that stopped reading): `console`, or any {@link Logger}. The HTTP handler and the
   * channels this server serves use it too, unless given their own. Default: silent (a stdio
   * channel then writes its own problems to stderr, the MCP place for a stdio server's logs).
   */
  logger?: Logger;
  /** Receives the errors the logger would (kept from before `logger`; both are called when both are given). */
  onerror?: (error: Error) => void;
  /** 2026-07-28 `subscriptions/listen` streams held open at once, over every connection. Default 10 000. */
  maxSubscriptions?: number;
  /**
   * Most messages in one JSON-RPC batch (2025-03-26 connections, the one revision with batches); a
   * longer batch is refused as a whole with -32600. Default 1000.
   */
  maxBatchLength?: number;
  /**
   * Rewrites every log message (`ctx.log`) before it is sent. Default: `redactSecrets`, which masks
   * values under keys such as `password`, `token`, `secret`, `authorization`, `apiKey`, `cookie`,
   * and bearer credentials in strings. `false` sends data unchanged.
   */
  redact?: RedactFn | false;
  /**
   * 2026-07-28 multi-round-trip requests: the secret that seals `requestState` (AES-256-GCM), or a
   * keyring (the first key seals, every key opens) to rotate keys without a restart. Default: a
   * random key per process — every node behind one endpoint must be given the same key or keyring.
   */
  requestStateKey?: string | Uint8Array | RequestStateKeyring;
  /** How long an issued `requestState` stays valid. Default 10 minutes. */
  requestStateTtlMs?: number;
  /** Where used `requestState` nonces are remembered (one-time use). Default: in memory, per process. */
  requestStateStore?: RequestStateStore;
  /** Legacy connections: how long `ctx.elicit`/`sample`/`listRoots` wait for the client. Default 10 minutes. */
  inputTimeoutMs?: number;
  /**
   * Several nodes: where change notifications (`list_changed`, `resources/updated`) go to and come
   * from the other nodes, so a listen stream or session on any node hears a change made on this one.
   * Default: none (one process). See `switchboard/redis`.
   */
  changeBus?: ChangeBus;
}

/** Server events and their payloads. */
export interface ServerEvents {
  /** A legacy client said its roots changed (`notifications/roots/list_changed`). */
  rootsListChanged: { connection: ServerConnection };
}

type ToolChanges = ToolConfig<any, any> & { name?: string; handler?: ToolHandler<any, any> };
type ResourceChanges = ResourceConfig & { name?: string; uri?: string; read?: ResourceReader };
type ResourceTemplateChanges = ResourceTemplateConfig & {
  name?: string;
  uriTemplate?: string;
  read?: TemplateReader;
};
type PromptChanges = PromptConfig<any> & { name?: string; handler?: PromptHandler<any> };

export interface ToolHandle extends Handle {
  readonly name: string;
  /** Replaces parts of the definition (and optionally the handler or the name). */
  update(changes: ToolChanges): void;
}
export interface ResourceHandle extends Handle {
  readonly uri: string;
  update(changes: ResourceChanges): void;
}
export interface ResourceTemplateHandle extends Handle {
  readonly uriTemplate: string;
  update(changes: ResourceTemplateChanges): void;
}
export interface PromptHandle extends Handle {
  readonly name: string;
  update(changes: PromptChanges): void;
}

export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';
/** One item of a list change: its list, and the item (before or after the change). */
interface ChangedItem {
  readonly list: ListKind;
  readonly item: object;
}
type ListItem<K extends ListKind> = K extends 'tools'
  ? import('../protocol/types.js').Tool
  : K extends 'resources'
    ? Resource
    : K extends 'resourceTemplates'
      ? import('../protocol/types.js').ResourceTemplate
      : import('../protocol/types.js').Prompt;

const DEFAULT_LIST_CACHE: CacheHint = Object.freeze({ ttlMs: 60_000, cacheScope: 'public' });
const NO_CACHE: CacheHint = Object.freeze({ ttlMs: 0, cacheScope: 'public' });
/** A request without params is served as one with `{}`. */
const EMPTY_PARAMS: Params = Object.freeze({}) as Params;

/**
 * @internal How a plugin takes part in `tools/call` once the tool is found (tasks use it). Each hook
 * answers in the call's place, or resolves undefined to let it run as usual.
 */
export interface ToolCallHooks {
  /** Before the handler runs (tasks: start it as a task and answer with the task's handle). */
  start?(entry: ToolEntry, params: Params, ctx: RequestContext): Promise<unknown>;
  /** The handler returned `ctx.continueAsTask(work)` (tasks: the call becomes a task now). */
  handOff?(entry: ToolEntry, handoff: TaskHandoff, ctx: RequestContext): Promise<unknown>;
}

/**
 * A legacy session. Its id is made on first read: over HTTP at once (it names the session), over stdio
 * only if tasks or a `sessionClosed` listener ask, since the first use of Web Crypto loads its modules,
 * a millisecond of a stdio server's cold start.
 */
class Session implements LegacySession {
  #id: string | undefined;
  initialized = false;
  logLevel: LegacySession['logLevel'] = undefined;
  resourceSubscriptions: Set<string> | undefined = undefined;
  viewer: object | undefined = undefined;
  constructor(
    readonly revision: LegacyRevision,
    readonly client: ClientView,
    readonly capabilities: ServerCapabilities,
  ) {}
  get id(): string {
    // Flat: it lives as long as the session (see random-id.ts).
    this.#id ??= randomUuid();
    return this.#id;
  }
}

export class ServerCore {
  readonly info: Implementation;
  /** `serverInfo` as every result but discover's carries it: `name` and `version` only. */
  private readonly briefInfo: Implementation;
  private readonly options: ServerCoreOptions;
  /** @internal See {@link ServerCoreOptions.logger}. */
  readonly logger: Logger;
  /** @internal The logger the user configured (logger or onerror), handed to channels; undefined when none. */
  readonly configuredLogger: Logger | undefined;
  /** @internal Items per list page. */
  readonly pageSize: number;
  /** @internal See {@link ServerCoreOptions.maxBatchLength}. */
  readonly maxBatchLength: number;
  private readonly served: ReadonlySet<Revision>;
  private readonly tools = new Registry<ToolEntry>('tool', (before, after) =>
    this.listChanged('tools', 'tools', before, after),
  );
  private readonly prompts = new Registry<PromptEntry>('prompt', (before, after) =>
    this.listChanged('prompts', 'prompts', before, after),
  );
  private readonly resources = new Registry<ResourceEntry>('resource', (before, after) =>
    this.listChanged('resources', 'resources', before, after),
  );
  private readonly templates = new Registry<TemplateEntry>('resource template', (before, after) =>
    this.listChanged('resources', 'resourceTemplates', before, after),
  );
  private readonly middleware: Middleware<RequestContext>[] = [];
  private chain: MethodHandler<RequestContext>;
  private readonly connections = new Set<ServerConnection>();
  /** @internal Every subscriber to change notifications, of both eras. */
  readonly notifications: NotificationHub;
  private readonly extensions: Record<string, JsonObject> = {};
  /** Extensions also declared in legacy `initialize` results (see {@link declareExtension}). */
  private readonly legacyExtensions = new Set<string>();
  /**
   * List changes not yet announced, by list: the items changed (before and after each change), or
   * null when what changed is not known item by item (everyone hears of it).
   */
  private readonly pendingListChanges = new Map<ListChangedKind, ChangedItem[] | null>();
  private readonly changeBus: ChangeBus | undefined;
  /**
   * Set by the first request: registry changes before it (a node registering its items at start-up)
   * are not news to the other nodes, whose clients would otherwise list again at every deploy.
   */
  private serving = false;
  private index: { version: number; index: UriTemplateIndex<TemplateEntry> } | undefined;
  private readonly listFilters = new Map<ListKind, ((item: any, ctx: RequestContext) => boolean)[]>();
  /** Some item was registered with `scopes`: lists are then filtered per caller. */
  private scoped = false;
  private readonly mrtr: Mrtr;
  /** @internal Server-wide settings every request context uses. */
  readonly services: ContextServices;
  /** The options of a request's context without an input round: one object for every request. */
  private readonly contextOptions: { readonly services: ContextServices };
  /** How each kind of item is registered (see handles.ts). */
  private readonly kinds = {
    tool: {
      registry: this.tools,
      keyProperty: 'name',
      fnProperty: 'handler',
      checkKey: (name) => checkName('tool', name),
      build: ({ key, config, fn }) => {
        const entry = buildToolEntry(key, config, fn as ToolEntry['handler']);
        for (const listener of this.plugged.toolRegistered) listener(config);
        return entry;
      },
    } satisfies ItemKind<ToolConfig<any, any>, ToolHandler<any, any>, ToolEntry>,
    prompt: {
      registry: this.prompts,
      keyProperty: 'name',
      fnProperty: 'handler',
      checkKey: (name) => checkName('prompt', name),
      build: ({ key, config, fn }) => buildPromptEntry(key, config, fn as PromptEntry['handler']),
    } satisfies ItemKind<PromptConfig<any>, PromptHandler<any>, PromptEntry>,
    resource: {
      registry: this.resources,
      keyProperty: 'uri',
      fnProperty: 'read',
      checkKey: checkUri,
      build: ({ name, key, config, fn }) => buildResourceEntry(name, key, config, fn),
    } satisfies ItemKind<ResourceConfig, ResourceReader, ResourceEntry>,
    template: {
      registry: this.templates,
      keyProperty: 'uriTemplate',
      fnProperty: 'read',
      checkKey: (uriTemplate) => uriTemplate,
      build: ({ name, key, config, fn }) => buildTemplateEntry(name, key, config, fn),
    } satisfies ItemKind<ResourceTemplateConfig, TemplateReader, TemplateEntry>,
  };
  /** How each kind of pass-through item is registered (see pass-through.ts). */
  private readonly passThrough = passThroughKinds({
    tools: this.tools,
    prompts: this.prompts,
    resources: this.resources,
    templates: this.templates,
  });
  /** @internal Every method this server answers: built-ins, extensions', users'. */
  readonly methods = new MethodRegistry();
  /** What plugins (tasks) added: capabilities, tool call hooks, shutdown and registration listeners. */
  private readonly plugged: {
    capabilities: ((caps: ServerCapabilities) => void)[];
    toolCalls: ToolCallHooks | undefined;
    shutdown: (() => Promise<void>)[];
    sessionClosed: ((sessionId: string) => void)[];
    toolRegistered: ((config: ToolConfig<any, any>) => void)[];
  } = { capabilities: [], toolCalls: undefined, shutdown: [], sessionClosed: [], toolRegistered: [] };
  private offeredCache:
    | {
        caps: ServerCapabilities;
        tools: number;
        prompts: number;
        resources: number;
        templates: number;
        extensions: number;
      }
    | undefined;
  /** Bumped by declareExtension and by plugins, so the cached capabilities (see `offered`) follow. */
  private extensionsVersion = 0;
  private readonly urlElicitations = new UrlElicitationTracker();
  private readonly listeners: { [E in keyof ServerEvents]: Set<(event: ServerEvents[E]) => void> } = {
    rootsListChanged: new Set(),
  };

  constructor(info: Implementation, options: ServerCoreOptions = {}) {
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      throw new SwitchboardError(
        'CONFIG',
        'new Server(info): info needs a string "name" and "version", e.g. { name: "my-server", version: "1.0.0" }.',
      );
    }
    this.info = info;
    this.briefInfo = Object.freeze({ name: info.name, version: info.version });
    this.options = options;
    this.logger = withOnerror(options.logger, options.onerror);
    this.configuredLogger = options.logger || options.onerror ? this.logger : undefined;
    this.pageSize = options.pageSize ?? 100;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) {
      throw new SwitchboardError('CONFIG', `pageSize must be a positive integer, got ${options.pageSize}.`);
    }
    this.maxBatchLength = options.maxBatchLength ?? 1000;
    if (!Number.isInteger(this.maxBatchLength) || this.maxBatchLength < 1) {
      throw new SwitchboardError(
        'CONFIG',
        `maxBatchLength must be a positive integer, got ${options.maxBatchLength}.`,
      );
    }
    const revisions = options.revisions ?? REVISIONS;
    for (const r of revisions) {
      if (!isRevision(r))
        throw new SwitchboardError(
          'CONFIG',
          `Unknown protocol revision ${JSON.stringify(r)}; supported: ${REVISIONS.join(', ')}.`,
        );
    }
    this.served = new Set(revisions);
    this.notifications = new NotificationHub({
      maxListens: options.maxSubscriptions,
      report: (error) => this.reportError(error),
    });
    this.changeBus = options.changeBus;
    this.changeBus?.subscribe(({ method, params }) => this.notifications.publish(method, params));
    const noteScopes = (entry: { descriptor: object }) => {
      if (scopesOf(entry.descriptor).length > 0) this.scoped = true;
    };
    this.tools.onAdd = noteScopes;
    this.prompts.onAdd = noteScopes;
    this.resources.onAdd = noteScopes;
    this.templates.onAdd = noteScopes;
    this.chain = this.core;
    this.mrtr = new Mrtr({
      sealer: new RequestStateSealer(options.requestStateKey),
      store: options.requestStateStore,
      ttlMs: options.requestStateTtlMs,
    });
    this.services = {
      redact: options.redact,
      inputTimeoutMs: options.inputTimeoutMs,
      urlElicitations: this.urlElicitations,
      reportError: (error) => this.reportError(error),
    };
    this.contextOptions = Object.freeze({ services: this.services });
    this.defineBuiltIns();
  }

  /** The innermost handler, behind every middleware: the method's own logic, from the registry. */
  private readonly core: MethodHandler<RequestContext> = (method, params, ctx) =>
    this.methods.run(method, params, ctx);

  /** The protocol's own methods, registered like any other (see methods.ts). */
  private defineBuiltIns(): void {
    const define = (method: KnownMethod, handler: MethodLogic, cache?: 'list') =>
      this.methods.define({
        ...methodSpec(method)!,
        method,
        handler,
        encode: BUILT_IN_ENCODERS[method],
        cache,
      });
    define('ping', () => ({}));
    define('logging/setLevel', (params, ctx) => {
      ctx.setLogLevel(params.level as LoggingLevel);
      return {};
    });
    define('server/discover', () => this.discover(), 'list');
    define('tools/list', (params, ctx) => this.listed('tools', this.tools, params, ctx), 'list');
    define('tools/call', (params, ctx) => this.callTool(params, ctx));
    define('prompts/list', (params, ctx) => this.listed('prompts', this.prompts, params, ctx), 'list');
    define('prompts/get', (params, ctx) => {
      const name = params.name as string;
      const entry = this.prompts.get(name);
      if (!entry || !this.visible('prompts', entry.descriptor, ctx)) throw unknownPrompt(name);
      if (entry.forward) return entry.forward(params, ctx);
      return getPrompt(entry, params.arguments as Record<string, string> | undefined, ctx);
    });
    define('resources/list', (params, ctx) => this.listResources(params, ctx), 'list');
    define(
      'resources/templates/list',
      (params, ctx) => this.listed('resourceTemplates', this.templates, params, ctx),
      'list',
    );
    define('resources/read', (params, ctx) => this.readResource(params.uri as string, ctx));
    for (const method of ['resources/subscribe', 'resources/unsubscribe'] as const) {
      define(method, (params, ctx) => updateLegacySubscription(method, params.uri as string, ctx.link));
    }
    define('subscriptions/listen', (params, ctx) =>
      this.notifications.listen(params, this.capabilities, ctx),
    );
    define('completion/complete', (params, ctx) => this.complete(params as unknown as CompleteParams, ctx));
  }

  // --- methods -----------------------------------------------------------------------------------

  /**
   * Serves a method of your own (a vendor method such as `acme/search`): `params` and `result` are
   * schemas (zod, valibot, arktype or raw JSON Schema) that check what arrives (-32602) and what the
   * handler returns (-32603), and type the handler. Without schemas the types come from the typed
   * map ({@link McpMethods}, which declaration merging extends). The method goes through the same
   * pipeline as the built-in ones: admission, middleware (`intercept(name)` sees it), encoding.
   */
  method<
    M extends string,
    P extends SchemaLike | undefined = undefined,
    R extends SchemaLike | undefined = undefined,
  >(
    name: M,
    options: MethodOptions<P, R>,
    handler: (
      params: MethodParams<M, NoInfer<P>>,
      ctx: RequestContext,
    ) => MethodResult<M, NoInfer<R>> | Promise<MethodResult<M, NoInfer<R>>>,
  ): this {
    this.methods.define(userMethodEntry(name, options, handler));
    return this;
  }

  /**
   * Serves every request whose method nothing registered (a gateway forwards them upstream). The
   * request is admitted as any other (era, revision) and goes through the middleware; its params are
   * not checked and its result is sent as returned. Without a fallback such requests answer -32601.
   */
  fallback(handler: FallbackLogic): this {
    this.methods.fallback = handler;
    return this;
  }

  // --- plugins -----------------------------------------------------------------------------------

  /** @internal Plugins (tasks): capabilities to add to what the server advertises. */
  addCapabilities(contribute: (capabilities: ServerCapabilities) => void): void {
    this.plugged.capabilities.push(contribute);
    this.extensionsVersion++;
  }

  /**
   * @internal What a function given to {@link addCapabilities} contributes changed (a gateway's
   * upstreams): sessions opened from now on get the new capabilities.
   */
  capabilitiesChanged(): void {
    this.extensionsVersion++;
  }

  /** @internal Plugins (tasks): how a found tool's call runs (see {@link ToolCallHooks}). One set per server. */
  hookToolCalls(hooks: ToolCallHooks): void {
    if (this.plugged.toolCalls) throw new SwitchboardError('CONFIG', 'Tool calls are hooked already.');
    this.plugged.toolCalls = hooks;
  }

  /** @internal Plugins: runs before connections close in {@link close}. */
  onShutdown(hook: () => Promise<void>): void {
    this.plugged.shutdown.push(hook);
  }

  /** @internal Plugins: a legacy session (its connection) ended. */
  onSessionClosed(listener: (sessionId: string) => void): void {
    this.plugged.sessionClosed.push(listener);
  }

  /** @internal Plugins: a tool was registered or updated (its config). */
  onToolRegistered(listener: (config: ToolConfig<any, any>) => void): void {
    this.plugged.toolRegistered.push(listener);
  }

  // --- registration ----------------------------------------------------------------------------

  registerTool<In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined>(
    name: string,
    config: ToolConfig<In, Out>,
    handler: ToolHandler<NoInfer<In>, NoInfer<Out>>,
  ): ToolHandle {
    return registerItem(this.kinds.tool, {
      name,
      key: name,
      config: config as ToolConfig<any, any>,
      fn: handler as ToolHandler<any, any>,
    });
  }

  registerResource(name: string, uri: string, config: ResourceConfig, read: ResourceReader): ResourceHandle {
    return registerItem(this.kinds.resource, { name, key: uri, config, fn: read });
  }

  registerResourceTemplate(
    name: string,
    uriTemplate: string,
    config: ResourceTemplateConfig,
    read: TemplateReader,
  ): ResourceTemplateHandle {
    return registerItem(this.kinds.template, { name, key: uriTemplate, config, fn: read });
  }

  registerPrompt<Args extends SchemaLike | undefined = undefined>(
    name: string,
    config: PromptConfig<Args>,
    handler: PromptHandler<NoInfer<Args>>,
  ): PromptHandle {
    return registerItem(this.kinds.prompt, {
      name,
      key: name,
      config: config as PromptConfig<any>,
      fn: handler as PromptHandler<any>,
    });
  }

  /**
   * Registers a tool another server offers (a proxy's, a gateway's): listed exactly as `tool`
   * describes it, with no schema compiled and no argument or result checked (the server behind
   * checks its own), and every call answered by `forward(params, ctx)`. The call still goes
   * through admission, `filterList` and scopes (a hidden tool is unknown), every middleware and the
   * encoder. `update(descriptor)` on the handle replaces the whole descriptor.
   */
  registerPassThroughTool(
    tool: Tool,
    forward: ToolForward,
    options?: PassThroughOptions,
  ): PassThroughHandle<Tool> {
    return this.passThrough.tool(tool, forward, options);
  }

  /** A prompt another server offers (see {@link registerPassThroughTool}); `options.complete` forwards its completions. */
  registerPassThroughPrompt(
    prompt: Prompt,
    forward: PromptForward,
    options?: PassThroughOptions,
  ): PassThroughHandle<Prompt> {
    return this.passThrough.prompt(prompt, forward, options);
  }

  /** A resource another server offers (see {@link registerPassThroughTool}): `read(uri, ctx)` answers its reads. */
  registerPassThroughResource(
    resource: Resource,
    read: ReadForward,
    options?: PassThroughOptions,
  ): PassThroughHandle<Resource> {
    return this.passThrough.resource(resource, read, options);
  }

  /**
   * A resource template another server offers (see {@link registerPassThroughTool}): a read of a URI
   * it matches is answered by `read(uri, ctx)`, the URI unchecked; `options.complete` forwards the
   * completions of its variables.
   */
  registerPassThroughTemplate(
    template: ResourceTemplate,
    read: ReadForward,
    options?: PassThroughOptions,
  ): PassThroughHandle<ResourceTemplate> {
    return this.passThrough.template(template, read, options);
  }

  // --- middleware --------------------------------------------------------------------------------

  /**
   * Adds receiving middleware around every request this server handles (after the protocol checks,
   * before the method's handler). The first one added is the outermost.
   */
  use(middleware: Middleware<RequestContext>): this {
    this.middleware.push(middleware);
    this.chain = compose(this.core, this.middleware);
    return this;
  }

  /**
   * Intercepts one method, built-in or not: `hook(params, ctx, next)` may inspect or change the
   * params, call `next` (or not), and inspect or replace the result. Typed per method by the typed
   * map ({@link McpMethods}). A replaced `resources/read` result keeps the resource's cache hint
   * (`ctx.cacheHint`), unless the hook sets another.
   */
  intercept<M extends string>(
    method: M,
    hook: (
      params: ParamsOf<M>,
      ctx: RequestContext,
      next: (params: ParamsOf<M>) => Promise<ResultOf<M>>,
    ) => Promise<ResultOf<M>> | ResultOf<M>,
  ): this {
    return this.use(
      (next) => (m, params, ctx) =>
        m === method
          ? Promise.resolve(
              hook(params as ParamsOf<M>, ctx, (p) => next(m, p as Params, ctx) as Promise<ResultOf<M>>),
            )
          : next(m, params, ctx),
    );
  }

  /**
   * Shows a caller only the items `predicate` accepts, in lists and in calls (a hidden tool or prompt
   * is unknown, a hidden resource or template cannot be read or completed). Results then vary by
   * caller, so their 2026-07-28 cache scope is `private`.
   */
  filterList<K extends ListKind>(
    kind: K,
    predicate: (item: ListItem<K>, ctx: RequestContext) => boolean,
  ): this {
    const list = this.listFilters.get(kind) ?? [];
    list.push(predicate);
    this.listFilters.set(kind, list);
    return this;
  }

  /**
   * @internal Would `filterList('resources', ...)` and scopes show `resource` to the caller of
   * `ctx`? For resources a server answers without registering each (a gateway's upstream skills).
   */
  resourceVisible(resource: Resource, ctx: RequestContext): boolean {
    return this.visible('resources', resource, ctx);
  }

  /**
   * @internal Would a `resources/read` of `uri` reach a resource or template the caller of `ctx`
   * sees? (A gateway refuses to follow what it would not serve.)
   */
  resourceServed(uri: string, ctx: RequestContext): boolean {
    const entry = this.resources.get(uri);
    if (entry) return this.visible('resources', entry.descriptor, ctx);
    const match = this.templateIndex().match(uri);
    return match !== undefined && this.visible('resourceTemplates', match.value.descriptor, ctx);
  }

  /** @internal Resources changed beyond the registry (a gateway's upstream skills): `list_changed`. */
  resourcesChanged(): void {
    this.listChanged('resources');
  }

  // --- events ------------------------------------------------------------------------------------

  /** Listens for a server event. Returns an unsubscribe function. */
  on<E extends keyof ServerEvents>(event: E, listener: (event: ServerEvents[E]) => void): () => void {
    const set = this.listeners[event];
    set.add(listener);
    return () => set.delete(listener);
  }

  /** @internal */
  emit<E extends keyof ServerEvents>(event: E, payload: ServerEvents[E]): void {
    for (const listener of this.listeners[event]) {
      try {
        listener(payload);
      } catch (error) {
        this.reportError(asError(error));
      }
    }
  }

  /**
   * Tells the client that started URL elicitation `elicitationId` (2025-11-25) that the
   * out-of-band interaction finished (`notifications/elicitation/complete`). Returns false if the id
   * is unknown or expired, or its connection closed. 2026-07-28 has no such notification.
   */
  completeElicitation(elicitationId: string): boolean {
    return this.urlElicitations.complete(elicitationId);
  }

  // --- connections -------------------------------------------------------------------------------

  /** Serves one connection (stdio, in-memory, a legacy HTTP session...). */
  connect(channel: Channel): ServerConnection {
    const connection = new ServerConnection(this, channel);
    this.connections.add(connection);
    connection.start();
    return connection;
  }

  /**
   * Fails the tasks still running here (their handlers are aborted), ends every
   * `subscriptions/listen` stream gracefully (each gets its closing result, on stdio also
   * `notifications/cancelled`), then closes every connection.
   */
  async close(): Promise<void> {
    for (const hook of this.plugged.shutdown) await hook();
    await this.notifications.endListens();
    await Promise.all([...this.connections].map((c) => c.close()));
  }

  /** @internal */
  detach(connection: ServerConnection): void {
    this.connections.delete(connection);
    const session = connection.session;
    if (session === undefined || connection.released) return;
    for (const listener of this.plugged.sessionClosed) listener(session.id);
  }

  /**
   * Tells every client that follows `uri` that its content changed: legacy connections that
   * `resources/subscribe`d to it and 2026-07-28 listen streams whose `resourceSubscriptions` name it.
   */
  notifyResourceUpdated(uri: string): void {
    checkUri(uri);
    this.publishChange(RESOURCE_UPDATED, { uri });
  }

  /**
   * Advertises a protocol extension (2026-07-28 `capabilities.extensions[id]`), e.g. MCP Apps'
   * `io.modelcontextprotocol/ui`. Legacy `initialize` results carry no extensions, but for those
   * declared with `legacy: true`: an extension whose specification negotiates it in `initialize`
   * too (Skills, SEP-2640).
   */
  declareExtension(id: string, settings: JsonObject = {}, options: { legacy?: boolean } = {}): this {
    this.extensions[id] = settings;
    if (options.legacy) this.legacyExtensions.add(id);
    else this.legacyExtensions.delete(id);
    this.extensionsVersion++;
    return this;
  }

  /** @internal */
  reportError(error: Error): void {
    this.logger.error(error);
  }

  /** Capabilities derived from what is registered, plus those given in the options. */
  get capabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { ...this.options.capabilities };
    if (this.tools.size > 0) caps.tools ??= { listChanged: true };
    if (this.prompts.size > 0) caps.prompts ??= { listChanged: true };
    if (this.resources.size > 0 || this.templates.size > 0) {
      caps.resources ??= { subscribe: true, listChanged: true };
    }
    if (Object.keys(this.extensions).length > 0) {
      caps.extensions = { ...caps.extensions, ...this.extensions };
    }
    if (this.prompts.size > 0 || this.templates.size > 0) caps.completions ??= {};
    caps.logging ??= {};
    for (const contribute of this.plugged.capabilities) contribute(caps);
    return caps;
  }

  /**
   * @internal The descriptor of an enabled tool, for transports that check what the tool's schema
   * mirrors into headers (2026-07-28 `x-mcp-header`). Descriptors are frozen and replaced on update.
   */
  toolDescriptor(name: string): Tool | undefined {
    return this.tools.get(name)?.descriptor;
  }

  // --- request pipeline --------------------------------------------------------------------------

  /** @internal Answers `initialize` and returns the legacy session it opens. */
  initialize(params: Params, link?: RequestLink): { result: InitializeResult; session: LegacySession } {
    checkMeta(params, 'initialize');
    methodSpec('initialize')!.checkParams!(params, 'initialize');
    const requested = params.protocolVersion as string;
    const legacyServed = LEGACY_REVISIONS.filter((r) => this.served.has(r));
    if (legacyServed.length === 0) {
      throw new ProtocolError(
        ErrorCode.UnsupportedProtocolVersion,
        `This server speaks only protocol ${this.modernServed().join(', ')}, which has no initialize: send server/discover and put the version in _meta["${META.protocolVersion}"].`,
        { supported: this.modernServed(), requested },
      );
    }
    // The spec: answer with the requested version if we speak it, else with the latest we speak.
    const revision = (legacyServed as string[]).includes(requested)
      ? (requested as LegacyRevision)
      : legacyServed[0]!;
    const f = featuresOf(revision);
    // Shared by every session opened while nothing changed: a session keeps its capabilities (its
    // contract) for its whole life, and a fresh copy each was six objects a session.
    const capabilities = this.offered();
    const result: InitializeResult = {
      protocolVersion: revision,
      capabilities: this.legacyCapabilities(capabilities, f),
      serverInfo: encodeImplementation(this.info, f),
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    const client: ClientView = {
      info: params.clientInfo as Implementation,
      capabilities: params.capabilities as ClientCapabilities,
    };
    const session = new Session(revision, client, capabilities);
    // Who the session's list changes are judged for until its next request (see flushListChanges).
    if (link !== undefined && (this.scoped || this.listFilters.size > 0)) {
      session.viewer = new RequestContext('initialize', undefined, revision, client, undefined, link);
    }
    return { result, session };
  }

  /**
   * @internal Serves one request: admits it (era, revision, method, capability, params), runs the
   * middleware chain and the method's handler, and encodes the result for the request's revision.
   */
  serve(request: ServedRequest, link: RequestLink): Promise<unknown> {
    // Not async: the common request (no 2026-07-28 input round) is the middleware chain's promise
    // and one `then` that encodes its result, where an async function cost a promise of its own and
    // an await per request. Every failure is still a rejection, never a throw.
    try {
      this.serving = true;
      const { method, id: requestId } = request;
      const params = request.params ?? EMPTY_PARAMS;
      const session = link.legacy?.session;
      checkMeta(params, method);
      const meta = params._meta as Meta | undefined;
      let revision: Revision;
      let client: ClientView;
      let negotiated: ServerCapabilities | undefined;
      if (meta !== undefined && META.protocolVersion in meta) {
        ({ revision, client } = this.admitModern(meta));
      } else if (session) {
        ({ revision, client } = session);
        negotiated = session.capabilities;
      } else {
        throw invalidParams(
          `'${method}' arrived before the connection was initialized and without _meta["${META.protocolVersion}"]: ` +
            `legacy clients must send initialize first; 2026-07-28 clients must send the _meta envelope on every request.`,
        );
      }
      const entry = this.methods.get(method);
      if (entry) {
        if (!entry.inRevision(revision)) {
          throw methodNotFound(method, `It is not part of protocol revision ${revision}`);
        }
        const capability = entry.capability;
        if (capability && !this.offered()[capability] && !negotiated?.[capability]) {
          throw methodNotFound(method, `This server does not offer ${capability}`);
        }
        entry.checkParams?.(params, method);
      } else if (!this.methods.hasFallback) {
        throw methodNotFound(method);
      }
      const f = featuresOf(revision);
      if (f.modern && entry?.inputRequired) {
        return this.serveRound(method, requestId, revision, client, meta, params, link, entry, f);
      }
      const ctx = new RequestContext(method, requestId, revision, client, meta, link, this.contextOptions);
      this.noteViewer(link, ctx);
      return Promise.resolve(this.chain(method, params, ctx)).then((result) =>
        this.encoded(entry, result, ctx),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The rest of {@link serve} for a 2026-07-28 request that may answer `input_required` (MRTR): a
   * retry's requestState is verified first; a first run's round is opened synchronously and
   * allocates nothing unless the handler asks for input.
   */
  private async serveRound(
    method: string,
    requestId: RequestId | undefined,
    revision: Revision,
    client: ClientView,
    meta: Meta | undefined,
    params: Params,
    link: RequestLink,
    entry: MethodEntry,
    f: RevisionFeatures,
  ): Promise<unknown> {
    const round =
      typeof params.requestState === 'string'
        ? await this.mrtr.resume(
            method,
            params as Params & { requestState: string },
            link,
            f,
            client.capabilities,
          )
        : this.mrtr.open(method, params, link, f, client.capabilities);
    const ctx = new RequestContext(method, requestId, revision, client, meta, link, {
      round,
      services: this.services,
    });
    this.noteViewer(link, ctx);
    // If the handler asked for input it did not have, that is the answer, however the handler
    // settled (even if its code caught the InputRequiredError, or a tool turned it into an error
    // result).
    let result: unknown;
    let failure: { error: unknown } | undefined;
    try {
      result = await this.chain(method, params, ctx);
    } catch (error) {
      failure = { error };
    }
    const inputRequired = round.idle ? undefined : await this.mrtr.finish(round);
    if (inputRequired) result = inputRequired;
    else if (failure) throw failure.error;
    return this.encoded(entry, result, ctx);
  }

  /** Who the session's list changes are judged for (see flushListChanges). */
  private noteViewer(link: RequestLink, ctx: RequestContext): void {
    if (link.legacy !== undefined && (this.scoped || this.listFilters.size > 0)) {
      link.legacy.session.viewer = ctx;
    }
  }

  /** A served request's result, fitted to its revision (see encodeResult). */
  private encoded(entry: MethodEntry | undefined, result: unknown, ctx: RequestContext): unknown {
    return encodeResult(entry, result, ctx, {
      // The whole Implementation once, where the client reads it (discover); name and version,
      // which is what the spec asks of serverInfo, on every other result.
      serverInfo: ctx.method === 'server/discover' ? this.info : this.briefInfo,
      cache: entry?.cacheable ? this.cacheHintFor(entry, ctx) : undefined,
    });
  }

  private modernServed(): Revision[] {
    return MODERN_REVISIONS.filter((r) => this.served.has(r));
  }

  private admitModern(meta: Meta): { revision: Revision; client: ClientView } {
    const requested = meta[META.protocolVersion];
    if (!isModernRevision(requested) || !this.served.has(requested)) {
      const supported = this.modernServed();
      throw new ProtocolError(
        ErrorCode.UnsupportedProtocolVersion,
        `Unsupported protocol version ${JSON.stringify(requested)}: this server supports ${supported.length > 0 ? supported.join(', ') : 'only legacy revisions (send initialize)'}.`,
        { supported, requested: typeof requested === 'string' ? requested : String(requested) },
      );
    }
    const capabilities = envelopeCapabilities(meta);
    if (capabilities instanceof ProtocolError) throw capabilities;
    const level = meta[META.logLevel];
    if (level !== undefined && !LOGGING_LEVELS.includes(level as never)) {
      throw invalidParams(
        `Invalid _meta["${META.logLevel}"] ${JSON.stringify(level)}: use one of ${LOGGING_LEVELS.join(', ')}.`,
      );
    }
    return {
      revision: requested,
      client: {
        info: meta[META.clientInfo] as Implementation | undefined,
        capabilities,
      },
    };
  }

  /**
   * The hint of a cacheable result: the server's `listCache` for lists and discover, else what the
   * handler (a resource's `cache` config) or a middleware set in `ctx.cacheHint`, over no caching.
   * The hint travels with the request, not with the result object: a middleware that replaces a
   * result keeps it, and can set its own.
   */
  private cacheHintFor(entry: MethodEntry, ctx: RequestContext): CacheHint {
    const own = ctx.cacheHint;
    const base = entry.cache === 'list' ? (this.options.listCache ?? DEFAULT_LIST_CACHE) : NO_CACHE;
    const hint = own === undefined ? base : { ...base, ...own };
    const perCaller = ctx.auth !== undefined || this.listFilters.size > 0 || this.scoped;
    return perCaller && hint.cacheScope === 'public' ? { ...hint, cacheScope: 'private' } : hint;
  }

  /**
   * The capabilities, for the per-request check that a method's capability is offered and for the
   * sessions `initialize` opens. The getter builds a fresh object (an eighth of a tool call's
   * garbage); this one is rebuilt only when something it derives from changed (a registry's
   * version, a declared extension, tasks turned on), and frozen, since sessions share it.
   */
  private offered(): ServerCapabilities {
    const c = this.offeredCache;
    if (
      c?.tools === this.tools.version &&
      c.prompts === this.prompts.version &&
      c.resources === this.resources.version &&
      c.templates === this.templates.version &&
      c.extensions === this.extensionsVersion
    ) {
      return c.caps;
    }
    const caps = Object.freeze(this.capabilities);
    this.offeredCache = {
      caps,
      tools: this.tools.version,
      prompts: this.prompts.version,
      resources: this.resources.version,
      templates: this.templates.version,
      extensions: this.extensionsVersion,
    };
    return caps;
  }

  /**
   * Not async: without tasks, a synchronous tool answers with no await of ours (see tools.ts). Every
   * failure is still a rejection, as middleware expects of `next()`.
   */
  private callTool(params: Params, ctx: RequestContext): Promise<unknown> {
    try {
      const name = params.name as string;
      const entry = this.tools.get(name);
      if (!entry || !this.visible('tools', entry.descriptor, ctx)) throw unknownTool(name);
      // A pass-through tool's forward answers for everything, tasks included.
      if (entry.forward) return Promise.resolve(entry.forward(params, ctx));
      const args = params.arguments as Record<string, unknown> | undefined;
      const start = this.plugged.toolCalls?.start;
      if (start) {
        // A plugin may answer instead (tasks: a task's handle at once, the tool in the background).
        return start(entry, params, ctx).then(
          (answer) =>
            answer ?? Promise.resolve(callTool(entry, args, ctx)).then((o) => this.handOff(entry, o, ctx)),
        );
      }
      const outcome = callTool(entry, args, ctx);
      return Promise.resolve(
        outcome instanceof Promise
          ? outcome.then((o) => this.handOff(entry, o, ctx))
          : this.handOff(entry, outcome, ctx),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A result as is; work the handler handed off (ctx.continueAsTask) becomes a task now, or runs inline. */
  private handOff(entry: ToolEntry, outcome: CallToolOutcome, ctx: RequestContext): unknown {
    if (!(outcome instanceof TaskHandoff)) return outcome;
    const handOff = this.plugged.toolCalls?.handOff;
    if (!handOff) return completeInline(entry, outcome, ctx);
    return handOff(entry, outcome, ctx).then(
      (answer): unknown => answer ?? completeInline(entry, outcome, ctx),
    );
  }

  /** What a legacy `initialize` advertises: the revision's capabilities, and the legacy-declared extensions. */
  private legacyCapabilities(capabilities: ServerCapabilities, f: RevisionFeatures): ServerCapabilities {
    const encoded = encodeServerCapabilities(capabilities, f);
    if (this.legacyExtensions.size === 0 || !capabilities.extensions) return encoded;
    const kept = Object.entries(capabilities.extensions).filter(([id]) => this.legacyExtensions.has(id));
    return kept.length === 0 ? encoded : { ...encoded, extensions: Object.fromEntries(kept) };
  }

  private discover(): Record<string, unknown> {
    const f = featuresOf(MODERN_REVISIONS[0]);
    const result: Record<string, unknown> = {
      supportedVersions: this.modernServed(),
      capabilities: encodeServerCapabilities(this.capabilities, f),
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  private visible<K extends ListKind>(kind: K, item: ListItem<K>, ctx: RequestContext): boolean {
    if (this.scoped && !callerHolds(item, ctx)) return false;
    const filters = this.listFilters.get(kind);
    return !filters || filters.every((accept) => accept(item, ctx));
  }

  /**
   * @internal The scopes declared for what a request names (its tool, prompt, resource or
   * template), for the HTTP layer's step-up check before the request is served. Params are not
   * checked yet: anything unexpected names nothing.
   */
  itemScopes(method: string, params: Record<string, unknown>): readonly string[] {
    if (!this.scoped) return [];
    const name = typeof params.name === 'string' ? params.name : undefined;
    switch (method) {
      case 'tools/call':
        return name === undefined ? [] : scopesOf(this.tools.get(name)?.descriptor);
      case 'prompts/get':
        return name === undefined ? [] : scopesOf(this.prompts.get(name)?.descriptor);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe': {
        const uri = params.uri;
        if (typeof uri !== 'string') return [];
        const resource = this.resources.get(uri);
        return scopesOf(resource ? resource.descriptor : this.templateIndex().match(uri)?.value.descriptor);
      }
      case 'completion/complete': {
        const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
        if (typeof ref !== 'object' || ref === null) return [];
        if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
          return scopesOf(this.prompts.get(ref.name)?.descriptor);
        }
        return typeof ref.uri === 'string' ? scopesOf(this.templates.get(ref.uri)?.descriptor) : [];
      }
      default:
        return [];
    }
  }

  /**
   * A page of a registry as a list result; memoized per page unless a filter makes it per caller.
   * Then it is paged over what this caller sees: its pages are full and its cursors name only items
   * it may see (a page cut from the whole list would name a hidden item in its cursor).
   */
  private listed<E extends { descriptor: object }, K extends ListKind>(
    kind: K,
    registry: Registry<E>,
    params: Params,
    ctx: RequestContext,
  ): Record<string, unknown> {
    const cursor = params.cursor as string | undefined;
    if (this.listFilters.has(kind) || this.scoped) {
      const page = registry.pageOf(cursor, this.pageSize, (e) =>
        this.visible(kind, e.descriptor as ListItem<K>, ctx),
      );
      const own: Record<string, unknown> = { [kind]: page.items.map((e) => e.descriptor) };
      if (page.nextCursor !== undefined) own.nextCursor = page.nextCursor;
      return own;
    }
    const page = registry.page(cursor, this.pageSize);
    let result = pageResults.get(page);
    if (!result) {
      // The kind names the result's list: `{ tools: [...] }`, `{ resourceTemplates: [...] }`.
      result = { [kind]: page.items.map((e) => e.descriptor) };
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      pageResults.set(page, markMemoizable(result));
    }
    // The cached page is frozen and shared; middleware gets a copy of its own to change at will.
    return this.middleware.length === 0 ? result : copyForMiddleware(result);
  }

  private async listResources(params: Params, ctx: RequestContext): Promise<Record<string, unknown>> {
    const dynamic = this.templates.values().filter((t) => t.list);
    if (dynamic.length === 0) {
      return this.listed('resources', this.resources, params, ctx);
    }
    // Templates that enumerate resources make the list dynamic: build and page it per request.
    const all: Resource[] = this.resources.values().map((e) => e.descriptor);
    // What a template enumerates needs the template's scopes.
    for (const t of dynamic)
      if (!this.scoped || callerHolds(t.descriptor, ctx)) all.push(...(await t.list!(ctx)));
    const visible = all
      .filter((r) => this.visible('resources', r, ctx))
      .sort((a, b) => compareKeys(a.uri, b.uri));
    const page = paginate(
      visible,
      visible.map((r) => r.uri),
      params.cursor as string | undefined,
      this.pageSize,
    );
    const result: Record<string, unknown> = { resources: page.items };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return result;
  }

  private async readResource(uri: string, ctx: RequestContext): Promise<unknown> {
    const notFound = () => resourceNotFound(uri, featuresOf(ctx.revision).resourceNotFoundCode);
    const entry = this.resources.get(uri);
    let result: ReadResourceResult | undefined;
    let cache: Partial<CacheHint> | undefined;
    if (entry) {
      if (!this.visible('resources', entry.descriptor, ctx)) throw notFound();
      result = normalizeReadResult(await entry.read(uri, ctx), uri, entry.descriptor.mimeType);
      cache = entry.cache;
    } else {
      const match = this.templateIndex().match(uri);
      if (!match || !this.visible('resourceTemplates', match.value.descriptor, ctx)) throw notFound();
      const climbing = match.value.passThrough ? undefined : climbingVariable(match.variables);
      if (climbing !== undefined) {
        throw invalidParams(
          `Refused ${JSON.stringify(uri)}: its "${climbing}" is ${JSON.stringify(match.variables[climbing])}, which has a ".." path segment (directly or percent-encoded). Resource URIs may not climb out of their template; send a normalized URI.`,
        );
      }
      const template = match.value;
      result = normalizeReadResult(
        await template.read(uri, match.variables, ctx),
        uri,
        template.descriptor.mimeType,
      );
      cache = template.cache;
    }
    // A handler returns nothing for a URI it does not know: the era's not-found error, not an empty read.
    if (!result) throw notFound();
    if (cache) ctx.cacheHint = cache;
    return result;
  }

  /** The enabled templates, indexed for matching; rebuilt when the template registry changes. */
  private templateIndex(): UriTemplateIndex<TemplateEntry> {
    if (this.index?.version !== this.templates.version) {
      const index = new UriTemplateIndex<TemplateEntry>();
      for (const entry of this.templates.values()) index.add(entry.template, entry);
      this.index = { version: this.templates.version, index };
    }
    return this.index.index;
  }

  private async complete(params: CompleteParams, ctx: RequestContext): Promise<CompleteResult> {
    const context = { arguments: params.context?.arguments ?? {}, ctx };
    const { ref, argument } = params;
    let completer: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = this.prompts.get(ref.name);
      if (!prompt || !this.visible('prompts', prompt.descriptor, ctx)) throw unknownPrompt(ref.name);
      if (prompt.forwardComplete) return prompt.forwardComplete(params, ctx);
      completer = completerFor(prompt.complete, argument.name);
    } else {
      const template = this.templates.get(ref.uri);
      if (!template || !this.visible('resourceTemplates', template.descriptor, ctx)) {
        throw invalidParams(
          `Unknown resource template ${JSON.stringify(ref.uri)}: ref/resource must name a uriTemplate from resources/templates/list.`,
        );
      }
      if (template.forwardComplete) return template.forwardComplete(params, ctx);
      completer = completerFor(template.complete, argument.name);
    }
    return runCompleter(completer, argument.value, context);
  }

  // --- change notifications ----------------------------------------------------------------------

  private listChanged(
    kind: ListChangedKind,
    list?: ListKind,
    before?: { descriptor: object },
    after?: { descriptor: object },
  ): void {
    if (this.notifications.size === 0 && !(this.changeBus && this.serving)) return;
    // Coalesce: registering twenty tools in one tick sends one notification.
    if (this.pendingListChanges.size === 0) queueMicrotask(() => this.flushListChanges());
    const items = this.pendingListChanges.has(kind) ? this.pendingListChanges.get(kind)! : [];
    if (items === null || list === undefined) {
      this.pendingListChanges.set(kind, null);
      return;
    }
    if (before) items.push({ list, item: before.descriptor });
    if (after) items.push({ list, item: after.descriptor });
    this.pendingListChanges.set(kind, items);
  }

  private flushListChanges(): void {
    const changes = [...this.pendingListChanges];
    this.pendingListChanges.clear();
    for (const [kind, items] of changes) {
      // With list filters or scopes, each subscriber hears of a change only if it sees an item
      // that changed (as its own list would show it); a subscriber not yet seen hears of all.
      const audience =
        items === null || !(this.scoped || this.listFilters.size > 0)
          ? undefined
          : (viewer: RequestContext | undefined) =>
              viewer === undefined ||
              items.some(({ list, item }) => this.visible(list, item as ListItem<typeof list>, viewer));
      if (this.serving) this.publishChange(LIST_CHANGED[kind], undefined, audience);
      else this.notifications.publish(LIST_CHANGED[kind], undefined, audience);
    }
  }

  /** A change made here: to this node's subscribers, and to the other nodes' through the bus. */
  private publishChange(method: string, params?: Params, audience?: Audience): void {
    this.notifications.publish(method, params, audience);
    // Other nodes get the change without its items: each of their subscribers hears of it.
    this.changeBus?.publish({ method, params });
  }
}

/** List results per registry page (pages are per-version objects, so this never goes stale). */
const pageResults = new WeakMap<object, Record<string, unknown>>();

function checkUri(uri: string): string {
  if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
    throw new SwitchboardError(
      'CONFIG',
      `Invalid resource URI ${JSON.stringify(uri)}: use an absolute URI with a scheme, e.g. "file:///notes.txt" or "config://app".`,
    );
  }
  return uri;
}

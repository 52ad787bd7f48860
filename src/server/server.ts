/**
 * The server framework: register tools, resources, templates and prompts; add middleware; connect
 * to channels. One definition serves both protocol eras: legacy clients `initialize` a connection,
 * modern clients describe themselves on every request, and handlers cannot tell the difference
 * unless they ask (`ctx.era`).
 */
import type { Channel } from '../engine/channel.js';
import { compose, type MethodHandler, type Middleware } from '../engine/middleware.js';
import { ServerTasks, type TaskServerOptions } from '../extensions/tasks/server.js';
import type { TaskStore } from '../extensions/tasks/store.js';
import { encodeImplementation, encodeServerCapabilities } from '../protocol/codec.js';
import {
  ErrorCode,
  invalidParams,
  methodNotFound,
  ProtocolError,
  SwitchboardError,
} from '../protocol/errors.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
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
  type ReadResourceResult,
  type Resource,
  type ServerCapabilities,
  type Tool,
} from '../protocol/types.js';
import type { SchemaLike } from '../schema/index.js';
import { randomUuid } from '../util/random-id.js';
import { type Completer, completerFor, runCompleter } from './completion.js';
import { ServerConnection } from './connection.js';
import { type ClientView, type ContextServices, RequestContext, type RequestLink } from './context.js';
import { encodeResult, markMemoizable } from './encode.js';
import { createHandle, type Handle } from './handles.js';
import { Mrtr, type MrtrRound } from './mrtr.js';
import { checkName } from './names.js';
import { NotificationHub, updateLegacySubscription } from './notifications.js';
import { compareKeys, paginate } from './pagination.js';
import {
  buildPromptEntry,
  getPrompt,
  type PromptConfig,
  type PromptEntry,
  type PromptHandler,
  unknownPrompt,
} from './prompts.js';
import type { RedactFn } from './redact.js';
import { Registry } from './registry.js';
import { RequestStateSealer, type RequestStateStore } from './request-state.js';
import {
  buildResourceEntry,
  buildTemplateEntry,
  normalizeReadResult,
  type ResourceConfig,
  type ResourceEntry,
  type ResourceReader,
  type ResourceTemplateConfig,
  resourceNotFound,
  type TemplateEntry,
  type TemplateReader,
} from './resources.js';
import { callerHolds, scopesOf } from './scopes.js';
import { TaskHandoff } from './task-handoff.js';
import {
  buildToolEntry,
  type CallToolOutcome,
  callTool,
  completeInline,
  type ToolConfig,
  type ToolEntry,
  type ToolHandler,
  unknownTool,
} from './tools.js';
import { climbingVariable, UriTemplateIndex } from './uri-template.js';
import { UrlElicitationTracker } from './url-elicitations.js';

export interface ServerOptions {
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
  /** Problems that concern no single request: malformed frames, a failing notification handler. Default: stderr-free no-op. */
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
   * 2026-07-28 multi-round-trip requests: the secret that seals `requestState` (AES-256-GCM).
   * Default: a random key per process — every node behind one endpoint must be given the same key.
   */
  requestStateKey?: string | Uint8Array;
  /** How long an issued `requestState` stays valid. Default 10 minutes. */
  requestStateTtlMs?: number;
  /** Where used `requestState` nonces are remembered (one-time use). Default: in memory, per process. */
  requestStateStore?: RequestStateStore;
  /** Legacy connections: how long `ctx.elicit`/`sample`/`listRoots` wait for the client. Default 10 minutes. */
  inputTimeoutMs?: number;
  /**
   * Tasks (the 2026-07-28 extension and the 2025-11-25 experimental form): where they are stored,
   * how long they live, the poll interval. Registering a tool whose `execution.taskSupport` is
   * `optional` or `required` turns tasks on with the defaults; see docs/tasks.md.
   */
  tasks?: TaskServerOptions;
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
type ListItem<K extends ListKind> = K extends 'tools'
  ? import('../protocol/types.js').Tool
  : K extends 'resources'
    ? Resource
    : K extends 'resourceTemplates'
      ? import('../protocol/types.js').ResourceTemplate
      : import('../protocol/types.js').Prompt;

const DEFAULT_LIST_CACHE: CacheHint = Object.freeze({ ttlMs: 60_000, cacheScope: 'public' });
const NO_CACHE: CacheHint = Object.freeze({ ttlMs: 0, cacheScope: 'public' });

/** State of a connection that completed the legacy `initialize` handshake. */
export interface LegacySession {
  /** Random, unguessable: what 2025-11-25 tasks are scoped to. */
  readonly id: string;
  readonly revision: LegacyRevision;
  readonly client: ClientView;
  /**
   * What initialize advertised. It stays the session's contract: `list_changed` goes out as promised
   * even after the last tool is removed, and the methods stay callable (answering an empty list).
   */
  readonly capabilities: ServerCapabilities;
  initialized: boolean;
  logLevel: (typeof LOGGING_LEVELS)[number] | undefined;
  /**
   * The URIs the client follows with `resources/subscribe`: made by the first request that asks for
   * it (see `RequestLink.resourceSubscriptions`), as most sessions never subscribe.
   */
  resourceSubscriptions: Set<string> | undefined;
}

export class Server {
  readonly info: Implementation;
  /** `serverInfo` as every result but discover's carries it: `name` and `version` only. */
  private readonly briefInfo: Implementation;
  private readonly options: ServerOptions;
  private readonly pageSize: number;
  /** @internal See {@link ServerOptions.maxBatchLength}. */
  readonly maxBatchLength: number;
  private readonly served: ReadonlySet<Revision>;
  private readonly tools: Registry<ToolEntry>;
  private readonly prompts: Registry<PromptEntry>;
  private readonly resources: Registry<ResourceEntry>;
  private readonly templates: Registry<TemplateEntry>;
  private readonly middleware: Middleware<RequestContext>[] = [];
  private chain: MethodHandler<RequestContext>;
  private readonly connections = new Set<ServerConnection>();
  /** @internal Every subscriber to change notifications, of both eras. */
  readonly notifications: NotificationHub;
  private readonly extensions: Record<string, JsonObject> = {};
  private readonly pendingListChanges = new Set<ListChangedKind>();
  private index: { version: number; index: UriTemplateIndex<TemplateEntry> } | undefined;
  private readonly listFilters = new Map<ListKind, ((item: any, ctx: RequestContext) => boolean)[]>();
  /** Some item was registered with `scopes`: lists are then filtered per caller. */
  private scoped = false;
  private readonly mrtr: Mrtr;
  private readonly services: ContextServices;
  /** Tasks, once turned on (the `tasks` option, or a tool that may run as a task). */
  private taskService: ServerTasks | undefined;
  private offeredCache:
    | {
        caps: ServerCapabilities;
        tools: number;
        prompts: number;
        resources: number;
        templates: number;
        extensions: number;
        tasks: ServerTasks | undefined;
      }
    | undefined;
  /** Bumped by declareExtension, so the cached capabilities (see `offered`) follow. */
  private extensionsVersion = 0;
  private readonly urlElicitations = new UrlElicitationTracker();
  private readonly listeners: { [E in keyof ServerEvents]: Set<(event: ServerEvents[E]) => void> } = {
    rootsListChanged: new Set(),
  };

  constructor(info: Implementation, options: ServerOptions = {}) {
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      throw new SwitchboardError(
        'CONFIG',
        'new Server(info): info needs a string "name" and "version", e.g. { name: "my-server", version: "1.0.0" }.',
      );
    }
    this.info = info;
    this.briefInfo = Object.freeze({ name: info.name, version: info.version });
    this.options = options;
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
    this.tools = new Registry('tool', () => this.listChanged('tools'));
    this.prompts = new Registry('prompt', () => this.listChanged('prompts'));
    this.resources = new Registry('resource', () => this.listChanged('resources'));
    this.templates = new Registry('resource template', () => this.listChanged('resources'));
    const noteScopes = (entry: { descriptor: object }) => {
      if (scopesOf(entry.descriptor).length > 0) this.scoped = true;
    };
    this.tools.onAdd = noteScopes;
    this.prompts.onAdd = noteScopes;
    this.resources.onAdd = noteScopes;
    this.templates.onAdd = noteScopes;
    this.chain = (method, params, ctx) => this.core(method, params, ctx);
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
    if (options.tasks) this.enableTasks();
  }

  /** The tasks service, created on first need with the `tasks` option. */
  private enableTasks(): ServerTasks {
    this.taskService ??= new ServerTasks(
      {
        notifications: this.notifications,
        services: this.services,
        pageSize: this.pageSize,
        reportError: (error) => this.reportError(error),
      },
      this.options.tasks,
    );
    return this.taskService;
  }

  /** A tool that may run as a task turns tasks on. */
  private enableTasksFor(config: ToolConfig<any, any>): void {
    const support = config.execution?.taskSupport;
    if (support === 'optional' || support === 'required') this.enableTasks();
  }

  /** Where tasks are stored; undefined until tasks are on. */
  get taskStore(): TaskStore | undefined {
    return this.taskService?.store;
  }

  // --- registration ----------------------------------------------------------------------------

  registerTool<In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined>(
    name: string,
    config: ToolConfig<In, Out>,
    handler: ToolHandler<NoInfer<In>, NoInfer<Out>>,
  ): ToolHandle {
    checkName('tool', name);
    const definition = { config: config as ToolConfig<any, any>, handler: handler as ToolHandler<any, any> };
    this.tools.add(name, buildToolEntry(name, definition.config, definition.handler as ToolEntry['handler']));
    this.enableTasksFor(config);
    return createHandle(
      this.tools,
      'name',
      { key: name, definition },
      (current, key, changes: ToolChanges) => {
        const { name: newName, handler: newHandler, ...rest } = changes;
        const next = checkName('tool', newName ?? key);
        const updated = { config: { ...current.config, ...rest }, handler: newHandler ?? current.handler };
        const entry = buildToolEntry(next, updated.config, updated.handler as ToolEntry['handler']);
        this.enableTasksFor(updated.config);
        return { key: next, definition: updated, entry };
      },
    );
  }

  registerResource(name: string, uri: string, config: ResourceConfig, read: ResourceReader): ResourceHandle {
    checkUri(uri);
    this.resources.add(uri, buildResourceEntry(name, uri, config, read));
    const definition = { name, config, read };
    return createHandle(
      this.resources,
      'uri',
      { key: uri, definition },
      (current, key, changes: ResourceChanges) => {
        const { name: newName, uri: newUri, read: newRead, ...rest } = changes;
        const next = newUri ?? key;
        checkUri(next);
        const updated = {
          name: newName ?? current.name,
          config: { ...current.config, ...rest },
          read: newRead ?? current.read,
        };
        return {
          key: next,
          definition: updated,
          entry: buildResourceEntry(updated.name, next, updated.config, updated.read),
        };
      },
    );
  }

  registerResourceTemplate(
    name: string,
    uriTemplate: string,
    config: ResourceTemplateConfig,
    read: TemplateReader,
  ): ResourceTemplateHandle {
    this.templates.add(uriTemplate, buildTemplateEntry(name, uriTemplate, config, read));
    const definition = { name, config, read };
    return createHandle(
      this.templates,
      'uriTemplate',
      { key: uriTemplate, definition },
      (current, key, changes: ResourceTemplateChanges) => {
        const { name: newName, uriTemplate: newTemplate, read: newRead, ...rest } = changes;
        const next = newTemplate ?? key;
        const updated = {
          name: newName ?? current.name,
          config: { ...current.config, ...rest },
          read: newRead ?? current.read,
        };
        return {
          key: next,
          definition: updated,
          entry: buildTemplateEntry(updated.name, next, updated.config, updated.read),
        };
      },
    );
  }

  registerPrompt<Args extends SchemaLike | undefined = undefined>(
    name: string,
    config: PromptConfig<Args>,
    handler: PromptHandler<NoInfer<Args>>,
  ): PromptHandle {
    checkName('prompt', name);
    const definition = { config: config as PromptConfig<any>, handler: handler as PromptHandler<any> };
    this.prompts.add(
      name,
      buildPromptEntry(name, definition.config, definition.handler as PromptEntry['handler']),
    );
    return createHandle(
      this.prompts,
      'name',
      { key: name, definition },
      (current, key, changes: PromptChanges) => {
        const { name: newName, handler: newHandler, ...rest } = changes;
        const next = checkName('prompt', newName ?? key);
        const updated = { config: { ...current.config, ...rest }, handler: newHandler ?? current.handler };
        return {
          key: next,
          definition: updated,
          entry: buildPromptEntry(next, updated.config, updated.handler as PromptEntry['handler']),
        };
      },
    );
  }

  // --- middleware --------------------------------------------------------------------------------

  /**
   * Adds receiving middleware around every request this server handles (after the protocol checks,
   * before the method's handler). The first one added is the outermost.
   */
  use(middleware: Middleware<RequestContext>): this {
    this.middleware.push(middleware);
    this.chain = compose((method, params, ctx) => this.core(method, params, ctx), this.middleware);
    return this;
  }

  /**
   * Intercepts one method: `hook(params, ctx, next)` may inspect or change the params, call `next`
   * (or not), and inspect or replace the result.
   */
  intercept(
    method: string,
    hook: (
      params: Params,
      ctx: RequestContext,
      next: (params: Params) => Promise<unknown>,
    ) => Promise<unknown> | unknown,
  ): this {
    return this.use(
      (next) => (m, params, ctx) =>
        m === method ? Promise.resolve(hook(params, ctx, (p) => next(m, p, ctx))) : next(m, params, ctx),
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
        this.reportError(error instanceof Error ? error : new Error(String(error)));
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
    await this.taskService?.close();
    await this.notifications.endListens();
    await Promise.all([...this.connections].map((c) => c.close()));
  }

  /** @internal */
  detach(connection: ServerConnection): void {
    this.connections.delete(connection);
    const sessionId = connection.session?.id;
    if (sessionId !== undefined) this.taskService?.sessionClosed(sessionId);
  }

  /**
   * Tells every client that follows `uri` that its content changed: legacy connections that
   * `resources/subscribe`d to it and 2026-07-28 listen streams whose `resourceSubscriptions` name it.
   */
  notifyResourceUpdated(uri: string): void {
    checkUri(uri);
    this.notifications.publish(RESOURCE_UPDATED, { uri });
  }

  /**
   * Advertises a protocol extension (2026-07-28 `capabilities.extensions[id]`), e.g. MCP Apps'
   * `io.modelcontextprotocol/ui`. Legacy `initialize` results carry no extensions.
   */
  declareExtension(id: string, settings: JsonObject = {}): this {
    this.extensions[id] = settings;
    this.extensionsVersion++;
    return this;
  }

  /** @internal */
  reportError(error: Error): void {
    this.options.onerror?.(error);
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
    this.taskService?.advertise(caps);
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
  initialize(params: Params): { result: InitializeResult; session: LegacySession } {
    checkMeta(params, 'initialize');
    methodSpec('initialize')!.check!(params, 'initialize');
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
      capabilities: encodeServerCapabilities(capabilities, f),
      serverInfo: encodeImplementation(this.info, f),
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    const client: ClientView = {
      info: params.clientInfo as Implementation,
      capabilities: params.capabilities as ClientCapabilities,
    };
    return {
      result,
      session: {
        // Flat: it lives as long as the session (see random-id.ts).
        id: randomUuid(),
        revision,
        client,
        capabilities,
        initialized: false,
        logLevel: undefined,
        resourceSubscriptions: undefined,
      },
    };
  }

  /**
   * @internal Serves one request: admits it (era, revision, method, capability, params), runs the
   * middleware chain and the method's handler, and encodes the result for the request's revision.
   */
  async serve(
    method: string,
    params: Params,
    requestId: RequestId | undefined,
    link: RequestLink,
    session: LegacySession | undefined,
  ): Promise<unknown> {
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
    const spec = methodSpec(method);
    if (!spec?.inRevision(revision)) {
      throw methodNotFound(method, spec ? `It is not part of protocol revision ${revision}` : undefined);
    }
    if (spec.capability && !this.offered()[spec.capability] && !negotiated?.[spec.capability]) {
      throw methodNotFound(method, `This server does not offer ${spec.capability}`);
    }
    spec.check?.(params, method);
    const f = featuresOf(revision);
    // 2026-07-28 input (MRTR): a retry's requestState must be verified first; a first run's round is
    // opened synchronously and allocates nothing unless the handler asks for input.
    let round: MrtrRound | undefined;
    if (f.modern && spec.inputRequired) {
      round =
        typeof params.requestState === 'string'
          ? await this.mrtr.resume(
              method,
              params as Params & { requestState: string },
              link,
              f,
              client.capabilities,
            )
          : this.mrtr.open(method, params, link, f, client.capabilities);
    }
    const ctx = new RequestContext(method, requestId, revision, client, meta, link, {
      round,
      services: this.services,
    });
    let result: unknown;
    if (round === undefined) {
      result = await this.chain(method, params, ctx);
    } else {
      // A request that may answer input_required: if the handler asked for input it did not have,
      // that is the answer, however the handler settled (even if its code caught the
      // InputRequiredError, or a tool turned it into an error result). Inline rather than a helper
      // of its own: one promise layer less on every tools/call.
      let failure: { error: unknown } | undefined;
      try {
        result = await this.chain(method, params, ctx);
      } catch (error) {
        failure = { error };
      }
      const inputRequired = round.idle ? undefined : await this.mrtr.finish(round);
      if (inputRequired) result = inputRequired;
      else if (failure) throw failure.error;
    }
    return encodeResult(method, result, ctx, {
      // The whole Implementation once, where the client reads it (discover); name and version,
      // which is what the spec asks of serverInfo, on every other result.
      serverInfo: method === 'server/discover' ? this.info : this.briefInfo,
      cache: spec.cacheable ? this.cacheHintFor(method, result, ctx) : undefined,
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
    const capabilities = meta[META.clientCapabilities];
    if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
      throw invalidParams(
        `Missing _meta["${META.clientCapabilities}"]: every 2026-07-28 request must declare the client's capabilities ({} for none).`,
      );
    }
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
        capabilities: capabilities as ClientCapabilities,
      },
    };
  }

  private cacheHintFor(method: string, result: unknown, ctx: RequestContext): CacheHint {
    // Reads carry their resource's own hint (recorded by readResource); lists share the server's.
    const hint =
      method === 'resources/read'
        ? {
            ...NO_CACHE,
            ...(typeof result === 'object' && result !== null ? readCacheHints.get(result) : undefined),
          }
        : (this.options.listCache ?? DEFAULT_LIST_CACHE);
    const perCaller = ctx.auth !== undefined || this.listFilters.size > 0 || this.scoped;
    return perCaller && hint.cacheScope === 'public' ? { ...hint, cacheScope: 'private' } : hint;
  }

  /** The innermost handler: the method's own logic, behind every middleware. */
  private core(method: string, params: Params, ctx: RequestContext): Promise<unknown> {
    switch (method) {
      case 'ping':
        return Promise.resolve({});
      case 'logging/setLevel':
        ctx.setLogLevel(params.level as LoggingLevel);
        return Promise.resolve({});
      case 'server/discover':
        return Promise.resolve(this.discover());
      case 'tools/list':
        return Promise.resolve(
          this.listed('tools', this.tools, params, ctx, (page) => ({
            tools: page.items.map((e) => e.descriptor),
          })),
        );
      case 'tools/call':
        return this.callTool(params, ctx);
      case 'prompts/list':
        return Promise.resolve(
          this.listed('prompts', this.prompts, params, ctx, (page) => ({
            prompts: page.items.map((e) => e.descriptor),
          })),
        );
      case 'prompts/get': {
        const name = params.name as string;
        const entry = this.prompts.get(name);
        if (!entry || !this.visible('prompts', entry.descriptor, ctx)) throw unknownPrompt(name);
        return getPrompt(entry, params.arguments as Record<string, string> | undefined, ctx);
      }
      case 'resources/list':
        return this.listResources(params, ctx);
      case 'resources/templates/list':
        return Promise.resolve(
          this.listed('resourceTemplates', this.templates, params, ctx, (page) => ({
            resourceTemplates: page.items.map((e) => e.descriptor),
          })),
        );
      case 'resources/read':
        return this.readResource(params.uri as string, ctx);
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return Promise.resolve(updateLegacySubscription(method, params.uri as string, ctx.link));
      case 'subscriptions/listen':
        return this.notifications.listen(params, this.capabilities, ctx);
      case 'completion/complete':
        return this.complete(params as unknown as CompleteParams, ctx);
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel':
      case 'tasks/result':
      case 'tasks/list':
        return this.taskService
          ? this.taskService.handle(method, params, ctx)
          : Promise.reject(methodNotFound(method, 'This server runs no tasks'));
      default:
        return Promise.reject(methodNotFound(method));
    }
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
      c.extensions === this.extensionsVersion &&
      c.tasks === this.taskService
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
      tasks: this.taskService,
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
      const args = params.arguments as Record<string, unknown> | undefined;
      const tasks = this.taskService;
      if (tasks) {
        // A task answers at once with its handle; the tool runs in the background (extensions/tasks).
        return tasks
          .start(entry, params, ctx)
          .then(
            (task) =>
              task ?? Promise.resolve(callTool(entry, args, ctx)).then((o) => this.handOff(entry, o, ctx)),
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
    const tasks = this.taskService;
    if (!tasks) return completeInline(entry, outcome, ctx);
    return tasks
      .handOff(entry, outcome, ctx)
      .then((task): unknown => task ?? completeInline(entry, outcome, ctx));
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

  /** A page of a registry as a list result; memoized per page unless a filter makes it per caller. */
  private listed<E extends { descriptor: object }, K extends ListKind>(
    kind: K,
    registry: Registry<E>,
    params: Params,
    ctx: RequestContext,
    build: (page: { items: readonly E[] }) => Record<string, unknown>,
  ): Record<string, unknown> {
    const page = registry.page(params.cursor as string | undefined, this.pageSize);
    let result = pageResults.get(page);
    if (!result) {
      result = build(page);
      if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
      pageResults.set(page, markMemoizable(result));
    }
    if (!this.scoped && !this.listFilters.has(kind)) return result;
    const listKey = Object.keys(result).find((k) => k !== 'nextCursor')!;
    return {
      ...result,
      [listKey]: (result[listKey] as ListItem<K>[]).filter((item) => this.visible(kind, item, ctx)),
    };
  }

  private async listResources(params: Params, ctx: RequestContext): Promise<Record<string, unknown>> {
    const dynamic = this.templates.values().filter((t) => t.list);
    if (dynamic.length === 0) {
      return this.listed('resources', this.resources, params, ctx, (page) => ({
        resources: page.items.map((e) => e.descriptor),
      }));
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
      const climbing = climbingVariable(match.variables);
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
    if (cache) readCacheHints.set(result, cache);
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
      completer = completerFor(prompt.complete, argument.name);
    } else {
      const template = this.templates.get(ref.uri);
      if (!template || !this.visible('resourceTemplates', template.descriptor, ctx)) {
        throw invalidParams(
          `Unknown resource template ${JSON.stringify(ref.uri)}: ref/resource must name a uriTemplate from resources/templates/list.`,
        );
      }
      completer = completerFor(template.complete, argument.name);
    }
    return runCompleter(completer, argument.value, context);
  }

  // --- change notifications ----------------------------------------------------------------------

  private listChanged(kind: ListChangedKind): void {
    if (this.notifications.size === 0) return;
    // Coalesce: registering twenty tools in one tick sends one notification.
    if (this.pendingListChanges.size === 0) queueMicrotask(() => this.flushListChanges());
    this.pendingListChanges.add(kind);
  }

  private flushListChanges(): void {
    const kinds = [...this.pendingListChanges];
    this.pendingListChanges.clear();
    for (const kind of kinds) this.notifications.publish(LIST_CHANGED[kind]);
  }
}

/** The cache hint of each read result's resource, for the 2026-07-28 `ttlMs`/`cacheScope`. */
const readCacheHints = new WeakMap<object, Partial<CacheHint>>();

/** List results per registry page (pages are per-version objects, so this never goes stale). */
const pageResults = new WeakMap<object, Record<string, unknown>>();

function checkUri(uri: unknown): void {
  if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
    throw new SwitchboardError(
      'CONFIG',
      `Invalid resource URI ${JSON.stringify(uri)}: use an absolute URI with a scheme, e.g. "file:///notes.txt" or "config://app".`,
    );
  }
}

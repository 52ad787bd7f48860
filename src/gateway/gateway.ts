/**
 * The gateway: one Switchboard `Server` that shows the tools, prompts, resources and templates of
 * every upstream under its namespace and forwards each request to the right upstream, in the
 * session of the downstream client that made it.
 *
 * The lists are mirrored into the server's own registry (so pagination, cursors, 2026-07-28 cache
 * hints and `list_changed` in both eras are the server's), from the gateway's catalog session with
 * each upstream. Calls are intercepted before the server's own argument checks, which are the
 * upstream's job: the gateway passes arguments and results through unchanged.
 */

import type { CallOptions } from '../client/client.js';
import type { Subscription } from '../client/subscriptions.js';
import type { Channel } from '../engine/channel.js';
import type { Middleware } from '../engine/middleware.js';
import type { Client } from '../extensions/client.js';
import { Server, type ServerOptions } from '../extensions/server.js';
import { declaresTasks, TASKS_EXTENSION } from '../extensions/tasks/types.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type {
  CallToolResult,
  CompleteParams,
  LoggingLevel,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import type { Handle } from '../server/handles.js';
import { InputRequiredError } from '../server/input.js';
import type { FetchLike } from '../transports/http/client/fetch-like.js';
import { errorMessage } from '../util/guards.js';
import { type Logger, silentLogger } from '../util/logger.js';
import type { GatewayConfig, HttpUpstreamConfig, UpstreamConfig } from './config.js';
import { glob } from './glob.js';
import { exposedName, exposedUri, parseExposedUri, withSuffix } from './names.js';
import { ToolPins } from './pins.js';
import { GatewayTelemetry, type UpstreamCallRecord } from './telemetry.js';
import {
  type ForwardedCall,
  Upstream,
  type UpstreamHealth,
  type UpstreamHooks,
  type UpstreamSession,
} from './upstream.js';

export interface GatewayRuntimeOptions {
  /** Where the gateway reports upstream failures and dropped items. Default: silent. */
  logger?: Logger;
  /** The version in `serverInfo` and in the gateway's `clientInfo` upstream. */
  version?: string;
  /**
   * Tool pinning: the lock file that records each tool's definition hash (made when missing). A tool
   * whose definition changed since is hidden until approved (`gateway.pins.approve()`).
   */
  lock?: string;
  /** Wraps every channel the gateway opens to an upstream (e.g. a `SchemaCheckedChannel` in tests). */
  wrapChannel?: (channel: Channel, upstream: string) => Channel;
  /**
   * The fetch for an HTTP upstream (default `nodeFetch`), e.g. an `OAuthClient`'s `fetch(nodeFetch)`
   * for servers that need a sign-in; `undefined` for the default.
   */
  fetchFor?: (upstream: HttpUpstreamConfig) => FetchLike | undefined;
  /**
   * Checks on the gateway's server before its forwarding (the front door's access filters, rate
   * limits and audit, see `guard.ts`): may install list filters, returns the middleware to run first.
   */
  guard?: (server: Server) => Middleware<RequestContext> | undefined;
  /**
   * What the gateway's server shares with the other nodes of a cluster (`gateway.redis`): the keys
   * and store of 2026-07-28 request state, so an input round may come back to any node.
   */
  shared?: Pick<ServerOptions, 'requestStateKey' | 'requestStateStore'>;
}

/** A downstream client's session with one upstream: `open` once connected (the per-call path). */
interface ClientSession {
  readonly session: Promise<UpstreamSession>;
  open?: UpstreamSession;
}

/** Requests during which an upstream may ask the client something (elicitation, sampling, roots). */
const MAY_ASK = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Requests that change nothing upstream: repeated once when their connection is lost mid-way. */
const SAFE_TO_REPEAT = new Set(['resources/read', 'prompts/get', 'completion/complete']);

function lostConnection(error: unknown): boolean {
  return (
    error instanceof SwitchboardError &&
    (error.code === 'CONNECTION_CLOSED' || error.code === 'NOT_CONNECTED')
  );
}

/** Protocol keys of an upstream's answer that are the upstream's, not the gateway's (2026-07-28). */
const RESERVED_META = 'io.modelcontextprotocol/';

/**
 * An upstream result as the gateway's own: its `resultType` and protocol `_meta` (the upstream's
 * serverInfo...) are dropped; the gateway's server adds its own for a 2026-07-28 client, and a
 * legacy client gets none. Mutates: the result was parsed for this call alone.
 */
function passDown<T>(result: T): T {
  const record = result as Record<string, unknown>;
  if (record === null || typeof record !== 'object') return result;
  // `complete` is the gateway's to say; an extension's (tasks: `task`) is passed on.
  if (record.resultType === 'complete' || record.resultType === 'input_required') delete record.resultType;
  const meta = record._meta as Record<string, unknown> | undefined;
  if (meta !== undefined && meta !== null && typeof meta === 'object') {
    let left = 0;
    for (const key in meta) {
      if (key.startsWith(RESERVED_META)) delete meta[key];
      else left++;
    }
    if (left === 0) delete record._meta;
  }
  return result;
}

/** An upstream resource followed for downstream subscribers. */
interface Followed {
  /** Downstream subscriptions (legacy sessions, 2026-07-28 listen streams) that name it. */
  holders: number;
  /** The upstream subscription, on the catalog session `client`. */
  subscription?: Subscription;
  client?: Client;
}

/** Where a downstream name leads. */
interface Route {
  readonly upstream: Upstream;
  readonly name: string;
}

/** Task ids remembered to route `tasks/*` back to the upstream that made the task (oldest dropped first). */
const MAX_TASK_ROUTES = 10_000;

type Kind = 'tool' | 'prompt' | 'resource' | 'template';

/** What is registered downstream for one upstream item, and the definition it came from. */
interface Mirrored {
  readonly handle: Handle & { update(changes: object): void };
  readonly definition: string;
}

function bareOf(config: GatewayConfig): string | undefined {
  return config.upstreams.find((upstream) => !upstream.namespace)?.name;
}

export class Gateway {
  readonly server: Server;
  /** The tool pins, with `--lock` / the `lock` option. */
  readonly pins: ToolPins | undefined;
  /** Prometheus metrics (`telemetry.metrics()`, served at `/metrics`) and OpenTelemetry spans. */
  readonly telemetry: GatewayTelemetry;
  private readonly upstreams = new Map<string, Upstream>();
  private readonly logger: Logger;
  /** Downstream tool and prompt names → where they lead. */
  private readonly routes: Record<'tool' | 'prompt', Map<string, Route>> = {
    tool: new Map(),
    prompt: new Map(),
  };
  /** Per upstream and kind: downstream key → what is registered. */
  private readonly mirrors = new Map<Upstream, Record<Kind, Map<string, Mirrored>>>();
  /** Per downstream session: its own session with each upstream. */
  private readonly sessions = new Map<string, Map<string, ClientSession>>();
  /** Upstream resources followed while downstream clients subscribe to them, by gateway URI. */
  private readonly followed = new Map<string, Followed>();
  /** Per legacy downstream session: the gateway URIs it subscribed to. */
  private readonly subscribedBy = new Map<string, Set<string>>();
  private readonly refreshing = new Map<Upstream, Promise<void>>();
  /** 2026-07-28 tasks passed through: task id → the upstream that runs it. */
  private readonly taskRoutes = new Map<string, Upstream>();
  private readonly hooks: UpstreamHooks;
  private current: GatewayConfig;
  /** The upstream shown without a namespace (`"namespace": false`), if one is. */
  private bare: string | undefined;
  private closed = false;

  constructor(config: GatewayConfig, options: GatewayRuntimeOptions = {}) {
    this.current = config;
    this.bare = bareOf(config);
    this.logger = options.logger ?? silentLogger;
    this.pins = options.lock === undefined ? undefined : ToolPins.load(options.lock);
    const version = options.version ?? '0.0.0';
    this.server = new Server(
      { name: 'switchboard-gateway', version },
      { ...options.shared, logger: this.logger },
    );
    this.telemetry = new GatewayTelemetry(
      { health: () => this.health(), downstreamSessions: () => this.sessions.size },
      version,
    );
    this.hooks = {
      logger: this.logger,
      version,
      wrapChannel: options.wrapChannel,
      fetchFor: options.fetchFor,
      catalogChanged: (changed) => void this.refresh(changed),
      restarted: (upstream) => this.telemetry.restarted(upstream.name),
      capabilitiesChanged: () => this.server.capabilitiesChanged(),
    };
    for (const upstreamConfig of config.upstreams) this.add(upstreamConfig);
    this.server.addCapabilities((capabilities) => this.capabilities(capabilities));
    this.server.onSessionClosed((id) => void this.closeSessions(id));
    const first = options.guard?.(this.server);
    if (first) this.server.use(first);
    this.intercept();
  }

  /** The config in force (the last one given to {@link reconfigure}). */
  get config(): GatewayConfig {
    return this.current;
  }

  /** Connects the upstreams that start eagerly and mirrors their lists; failures are reported in `health()`. */
  async start(): Promise<void> {
    await this.connect(
      [...this.upstreams.values()].filter((upstream) => upstream.config.startup === 'eager'),
    );
  }

  /**
   * Applies an edited config while clients stay connected: upstreams whose entries are gone are
   * stopped, changed ones restarted, new ones added; clients get `list_changed`. The gateway's own
   * options (port, separator...) keep their first values.
   */
  async reconfigure(
    next: GatewayConfig,
  ): Promise<{ added: string[]; removed: string[]; restarted: string[] }> {
    const before = new Map(this.current.upstreams.map((u) => [u.name, u]));
    const after = new Map(next.upstreams.map((u) => [u.name, u]));
    const removed = [...before.keys()].filter((name) => !after.has(name));
    const added = [...after.keys()].filter((name) => !before.has(name));
    const restarted = [...after.keys()].filter(
      (name) => before.has(name) && JSON.stringify(before.get(name)) !== JSON.stringify(after.get(name)),
    );
    this.current = { ...next, options: this.current.options };
    this.bare = bareOf(next);
    await Promise.all([...removed, ...restarted].map((name) => this.remove(name)));
    const started = [...restarted, ...added].map((name) => this.add(after.get(name)!));
    await this.connect(started.filter((upstream) => upstream.config.startup === 'eager'));
    return { added, removed, restarted };
  }

  private add(config: UpstreamConfig): Upstream {
    const upstream = new Upstream(config, this.hooks);
    this.upstreams.set(upstream.name, upstream);
    this.telemetry.upstreamAdded(upstream.name);
    this.server.capabilitiesChanged();
    this.mirrors.set(upstream, {
      tool: new Map(),
      prompt: new Map(),
      resource: new Map(),
      template: new Map(),
    });
    return upstream;
  }

  /** Stops an upstream and takes its items off the lists. */
  private async remove(name: string): Promise<void> {
    const upstream = this.upstreams.get(name)!;
    this.upstreams.delete(name);
    for (const sessions of this.sessions.values()) sessions.delete(name);
    await upstream.close();
    await this.refreshing.get(upstream);
    for (const kind of ['tool', 'prompt', 'resource', 'template'] as const) this.apply(upstream, kind, []);
    this.mirrors.delete(upstream);
    this.refreshing.delete(upstream);
    this.server.capabilitiesChanged();
    for (const [uri, followed] of this.followed) {
      if (this.owner(uri)?.namespace !== name) continue;
      // A restarted entry's upstream is new: a subscription still held is opened there on next need.
      followed.subscription = undefined;
      followed.client = undefined;
    }
  }

  /** Connects the catalogs of `upstreams` and waits for their lists to be mirrored. */
  private async connect(upstreams: readonly Upstream[]): Promise<void> {
    await Promise.all(
      upstreams.map((upstream) =>
        upstream.catalog().then(
          () => this.refreshing.get(upstream),
          () => undefined,
        ),
      ),
    );
  }

  /** The gateway URIs followed upstream for downstream subscribers, with how many hold each. */
  following(): Array<{ uri: string; holders: number }> {
    return [...this.followed].map(([uri, { holders }]) => ({ uri, holders }));
  }

  health(): UpstreamHealth[] {
    return [...this.upstreams.values()].map((upstream) => upstream.health());
  }

  /** Names shown downstream for each upstream (tools and prompts), for the start-up summary. */
  exposed(upstream: string): { tools: number; prompts: number; resources: number; templates: number } {
    const found = this.upstreams.get(upstream);
    const mirror = found && this.mirrors.get(found);
    return {
      tools: mirror?.tool.size ?? 0,
      prompts: mirror?.prompt.size ?? 0,
      resources: mirror?.resource.size ?? 0,
      templates: mirror?.template.size ?? 0,
    };
  }

  /** Closes the server (every downstream connection), then every upstream session. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.server.close();
    await Promise.allSettled([...this.upstreams.values()].map((upstream) => upstream.close()));
  }

  // --- the catalog --------------------------------------------------------------------------------

  /** Lazily started upstreams connect on the first list that needs them. */
  private async ensureStarted(): Promise<void> {
    const lazy = [...this.upstreams.values()].filter(
      (u) => u.config.startup === 'lazy' && u.health().state === 'idle',
    );
    if (lazy.length > 0) await this.connect(lazy);
  }

  private refresh(upstream: Upstream): Promise<void> {
    const previous = this.refreshing.get(upstream) ?? Promise.resolve();
    const next = previous
      .then(() => this.mirror(upstream))
      .catch((error) => {
        this.logger.warn(`gateway: cannot list what "${upstream.name}" offers: ${errorMessage(error)}`);
      });
    this.refreshing.set(upstream, next);
    return next;
  }

  /** Reads the upstream's lists and makes the server's registry match them. */
  private async mirror(upstream: Upstream): Promise<void> {
    if (this.closed) return;
    const state = upstream.health().state;
    if (state !== 'up') {
      // A failing upstream's items disappear (clients get list_changed) until it is back.
      for (const kind of ['tool', 'prompt', 'resource', 'template'] as const) this.apply(upstream, kind, []);
      return;
    }
    const { client } = await upstream.catalog();
    // Listening first, and acknowledged before listing, so no change after the lists goes unseen.
    await this.listen(upstream, client);
    // Subscriptions held through a reconnection are opened again on the new session.
    for (const [uri, followed] of this.followed) {
      if (this.owner(uri)?.namespace === upstream.name) void this.follow(uri, followed);
    }
    const caps = client.serverCapabilities;
    const [tools, prompts, resources, templates] = await Promise.all([
      caps.tools ? client.listTools().then((r) => r.tools) : [],
      caps.prompts ? client.listPrompts().then((r) => r.prompts) : [],
      caps.resources ? client.listResources().then((r) => r.resources) : [],
      caps.resources ? client.listResourceTemplates().then((r) => r.resourceTemplates) : [],
    ]);
    const { include, exclude } = upstream.config;
    const included = include.map(glob);
    const excluded = exclude.map(glob);
    const shown = (tool: Tool) =>
      (included.length === 0 || included.some((g) => g.test(tool.name))) &&
      !excluded.some((g) => g.test(tool.name));
    this.apply(upstream, 'tool', tools.filter(shown));
    this.apply(upstream, 'prompt', prompts);
    this.apply(upstream, 'resource', resources);
    this.apply(upstream, 'template', templates);
  }

  private readonly listening = new WeakSet<Client>();

  /** Follows the catalog's list changes (legacy notifications or a 2026-07-28 listen stream). */
  private async listen(upstream: Upstream, client: Client): Promise<void> {
    if (this.listening.has(client)) return;
    this.listening.add(client);
    const caps = client.serverCapabilities;
    const filter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    const changed = () => void this.refresh(upstream);
    const subscription = client.listen(filter, {
      onToolsListChanged: changed,
      onPromptsListChanged: changed,
      onResourcesListChanged: changed,
    });
    await subscription.acknowledged.catch((error: unknown) => {
      this.logger.warn(`gateway: cannot follow the lists of "${upstream.name}": ${errorMessage(error)}`);
    });
  }

  /** Registers, updates and removes downstream items so they match `items` of one upstream. */
  private apply(
    upstream: Upstream,
    kind: Kind,
    items: ReadonlyArray<Tool | Prompt | Resource | ResourceTemplate>,
  ): void {
    const mirrors = this.mirrors.get(upstream);
    // An upstream removed while its lists were being read: nothing of it is shown any more.
    if (mirrors === undefined) return;
    const mirror = mirrors[kind];
    const seen = new Set<string>();
    for (const item of items) {
      const original =
        kind === 'resource'
          ? (item as Resource).uri
          : kind === 'template'
            ? (item as ResourceTemplate).uriTemplate
            : item.name;
      const key = this.downstreamKey(upstream, kind, original);
      if (key === undefined) continue;
      if (kind === 'tool' && this.pins && !this.pins.admit(key, item as Tool)) {
        this.logger.warn(
          `gateway: tool "${key}" is hidden: its definition changed since it was pinned in ${this.pins.file}. ` +
            'Review it, then run: switchboard gateway approve --lock <lock file> <config>',
        );
        continue;
      }
      seen.add(key);
      const definition = JSON.stringify(item);
      const existing = mirror.get(key);
      if (existing?.definition === definition) continue;
      try {
        if (existing) existing.handle.update(this.itemConfig(kind, item));
        else mirror.set(key, { handle: this.register(kind, key, item), definition });
        if (existing) mirror.set(key, { handle: existing.handle, definition });
        if (kind === 'tool' || kind === 'prompt') this.routes[kind].set(key, { upstream, name: original });
      } catch (error) {
        seen.delete(key);
        this.logger.warn(
          `gateway: ${kind} ${JSON.stringify(original)} of "${upstream.name}" is not shown: ${errorMessage(error)}`,
        );
      }
    }
    for (const [key, { handle }] of mirror) {
      if (seen.has(key)) continue;
      handle.remove();
      mirror.delete(key);
      if (kind === 'tool' || kind === 'prompt') this.routes[kind].delete(key);
    }
  }

  /** The downstream name (tools, prompts) or URI (resources, templates) of an upstream item. */
  private downstreamKey(upstream: Upstream, kind: Kind, original: string): string | undefined {
    if (kind === 'resource' || kind === 'template') return this.shownUri(upstream, original);
    const { separator, collisions } = this.config.options;
    const name = upstream.config.namespace
      ? exposedName(upstream.name, separator, original)
      : exposedName('', '', original);
    const taken = this.routes[kind].get(name);
    if (taken === undefined || (taken.upstream === upstream && taken.name === original)) return name;
    if (collisions === 'skip') {
      this.logger.warn(
        `gateway: ${kind} "${original}" of "${upstream.name}" is not shown: "${name}" is taken by "${taken.upstream.name}".`,
      );
      return undefined;
    }
    return withSuffix(name, `${upstream.name}/${original}`);
  }

  private itemConfig(kind: Kind, item: Tool | Prompt | Resource | ResourceTemplate): Record<string, unknown> {
    const {
      name: _name,
      uri: _uri,
      uriTemplate: _template,
      ...rest
    } = item as unknown as Record<string, unknown>;
    if (kind === 'tool') {
      const tool = item as Tool;
      // The upstream checks its own arguments and results: the schemas are shown, not enforced here.
      return { ...rest, inputSchema: tool.inputSchema ?? { type: 'object' } };
    }
    return rest;
  }

  private register(kind: Kind, key: string, item: Tool | Prompt | Resource | ResourceTemplate) {
    const config = this.itemConfig(kind, item) as never;
    switch (kind) {
      case 'tool':
        return this.server.registerTool(key, config, (args, ctx) => this.callTool(key, args as Params, ctx));
      case 'prompt':
        return this.server.registerPrompt(key, config, (args, ctx) =>
          this.getPrompt(key, args as Record<string, string>, ctx),
        );
      case 'resource':
        return this.server.registerResource(item.name, key, config, (_uri, ctx) =>
          this.readResource(key, ctx),
        );
      case 'template':
        return this.server.registerResourceTemplate(item.name, key, config, (uri, _vars, ctx) =>
          this.readResource(uri, ctx),
        );
    }
  }

  /**
   * What the upstreams offer, together: a kind is shown when one of them offers it. An upstream not
   * seen yet (lazy, or down since start) might offer anything, so while one is unknown every kind is
   * shown. The lists change whenever an upstream's do, or an upstream comes or goes: listChanged.
   */
  private capabilities(capabilities: ServerCapabilities): void {
    const known = [...this.upstreams.values()].map((upstream) => upstream.capabilities);
    const all = known.length === 0 || known.some((caps) => caps === undefined);
    const some = (has: (caps: ServerCapabilities) => unknown) =>
      all || known.some((caps) => caps !== undefined && Boolean(has(caps)));
    const set = <K extends keyof ServerCapabilities>(
      key: K,
      shown: boolean,
      value: ServerCapabilities[K],
    ) => {
      if (shown) capabilities[key] = value;
      else delete capabilities[key];
    };
    set(
      'tools',
      some((c) => c.tools),
      { listChanged: true },
    );
    set(
      'prompts',
      some((c) => c.prompts),
      { listChanged: true },
    );
    set(
      'resources',
      some((c) => c.resources),
      some((c) => c.resources?.subscribe) ? { subscribe: true, listChanged: true } : { listChanged: true },
    );
    set(
      'completions',
      some((c) => c.completions),
      {},
    );
    set(
      'logging',
      some((c) => c.logging),
      {},
    );
    // The tasks extension (2026-07-28): a tool call that runs as a task upstream is passed on as one.
    if (known.some((caps) => caps?.extensions?.[TASKS_EXTENSION] !== undefined)) {
      capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} };
    }
  }

  // --- forwarding ---------------------------------------------------------------------------------

  /**
   * One middleware for every method the gateway forwards (a map lookup per request, not one
   * `intercept` closure per method), and the fallback for the methods nobody registered.
   */
  private intercept(): void {
    type Next = (params: Params) => Promise<unknown>;
    type Hook = (params: Params, ctx: RequestContext, next: Next) => unknown;
    // Lists of lazily started upstreams are filled on first need.
    const list: Hook = async (params, _ctx, next) => {
      await this.ensureStarted();
      return next(params);
    };
    // Legacy: a session holds each URI it subscribed to until it unsubscribes or ends.
    const subscribe: Hook = async (params, ctx, next) => {
      const result = await next(params);
      const id = ctx.link.legacy?.session.id;
      const uri = params.uri;
      if (id === undefined || typeof uri !== 'string' || !this.owner(uri)) return result;
      let uris = this.subscribedBy.get(id);
      if (!uris) {
        uris = new Set();
        this.subscribedBy.set(id, uris);
      }
      if (!uris.has(uri)) {
        uris.add(uri);
        await this.hold(uri);
      }
      return result;
    };
    const unsubscribe: Hook = async (params, ctx, next) => {
      const result = await next(params);
      const id = ctx.link.legacy?.session.id;
      const uris = id === undefined ? undefined : this.subscribedBy.get(id);
      if (uris?.delete(params.uri as string)) this.release(params.uri as string);
      return result;
    };
    // 2026-07-28: a listen stream holds the URIs it names while it is open.
    const listen: Hook = async (params, _ctx, next) => {
      const notifications = params.notifications as { resourceSubscriptions?: unknown } | undefined;
      const named = notifications?.resourceSubscriptions;
      const uris = Array.isArray(named)
        ? [...new Set(named.filter((u): u is string => typeof u === 'string' && !!this.owner(u)))]
        : [];
      await Promise.all(uris.map((uri) => this.hold(uri)));
      try {
        return await next(params);
      } finally {
        for (const uri of uris) this.release(uri);
      }
    };
    const hooks = new Map<string, Hook>([
      ['tools/list', list],
      ['prompts/list', list],
      ['resources/list', list],
      ['resources/templates/list', list],
      [
        'tools/call',
        (params, ctx, next) => {
          const name = params.name as string;
          return this.routes.tool.has(name)
            ? this.callTool(name, params.arguments as Params | undefined, ctx)
            : next(params);
        },
      ],
      [
        'prompts/get',
        (params, ctx, next) => {
          const name = params.name as string;
          const args = params.arguments as Record<string, string> | undefined;
          return this.routes.prompt.has(name) ? this.getPrompt(name, args, ctx) : next(params);
        },
      ],
      [
        'resources/read',
        (params, ctx, next) =>
          this.owner(params.uri as string) ? this.readResource(params.uri as string, ctx) : next(params),
      ],
      [
        'completion/complete',
        (params, ctx, next) => this.complete(params as unknown as CompleteParams, ctx, () => next(params)),
      ],
      ['resources/subscribe', subscribe],
      ['resources/unsubscribe', unsubscribe],
      ['subscriptions/listen', listen],
    ]);
    const { telemetry } = this;
    this.server.use((next) => (method, params, ctx) => {
      const hook = hooks.get(method);
      const done = telemetry.requestStarted(method, ctx);
      let answer: Promise<unknown>;
      try {
        answer = Promise.resolve(
          hook === undefined
            ? next(method, params, ctx)
            : hook(params, ctx, (changed) => next(method, changed, ctx)),
        );
      } catch (error) {
        done(error);
        throw error;
      }
      return answer.then(
        (result) => {
          done();
          return result;
        },
        (error: unknown) => {
          done(error instanceof InputRequiredError ? undefined : error);
          throw error;
        },
      );
    });
    this.server.fallback((method, params, ctx) => this.forwardUnknown(method, params, ctx));
  }

  private async callTool(
    name: string,
    args: Params | undefined,
    ctx: RequestContext,
  ): Promise<CallToolResult> {
    const route = this.routes.tool.get(name)!;
    const { upstream } = route;
    // A 2026-07-28 client that declared the tasks extension gets the upstream's task as it is.
    const asTask =
      ctx.era === 'modern' &&
      declaresTasks(ctx.client.capabilities) &&
      upstream.capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
    try {
      if (asTask) {
        const params: Params =
          args === undefined ? { name: route.name } : { name: route.name, arguments: args };
        const result = (await this.forward(upstream, 'tools/call', ctx, (client, options) =>
          client.request('tools/call', params as never, { ...options, unchecked: true }),
        )) as unknown as Record<string, unknown>;
        if (result.resultType === 'task' && typeof result.taskId === 'string')
          this.taskMade(result.taskId, upstream);
        return result as unknown as CallToolResult;
      }
      return await this.forward(upstream, 'tools/call', ctx, (client, options) =>
        client.callTool(route.name, args, options),
      );
    } catch (error) {
      if (error instanceof ProtocolError || error instanceof InputRequiredError) throw error;
      // A tool that cannot run is the model's business: it reads the reason as the tool's result.
      return {
        content: [{ type: 'text', text: `Upstream "${upstream.name}": ${errorMessage(error)}` }],
        isError: true,
      };
    }
  }

  private getPrompt(name: string, args: Record<string, string> | undefined, ctx: RequestContext) {
    const route = this.routes.prompt.get(name)!;
    return this.forward(route.upstream, 'prompts/get', ctx, (client, options) =>
      client.getPrompt(route.name, args, options),
    );
  }

  private async readResource(uri: string, ctx: RequestContext) {
    const target = this.target(uri);
    const result = await this.forward(target.upstream, 'resources/read', ctx, (client, options) =>
      client.readResource(target.uri, options),
    );
    return {
      ...result,
      contents: result.contents.map((content) => ({
        ...content,
        uri: this.shownUri(target.upstream, content.uri),
      })),
    };
  }

  private async complete<R>(params: CompleteParams, ctx: RequestContext, next: () => Promise<R>): Promise<R> {
    const ref = params.ref as { type: string; name?: string; uri?: string };
    let upstream: Upstream;
    let upstreamRef: Record<string, unknown>;
    if (ref.type === 'ref/prompt' && ref.name !== undefined && this.routes.prompt.has(ref.name)) {
      const route = this.routes.prompt.get(ref.name)!;
      upstream = route.upstream;
      upstreamRef = { ...ref, name: route.name };
    } else if (ref.type === 'ref/resource' && ref.uri !== undefined && this.owner(ref.uri)) {
      const target = this.target(ref.uri);
      upstream = target.upstream;
      upstreamRef = { ...ref, uri: target.uri };
    } else {
      return next();
    }
    return this.forward(
      upstream,
      'completion/complete',
      ctx,
      (client, options) =>
        client.complete({ ...params, ref: upstreamRef } as CompleteParams, options) as Promise<R>,
    );
  }

  /** A downstream subscriber more for gateway URI `uri`: the first opens the upstream subscription. */
  private async hold(uri: string): Promise<void> {
    let followed = this.followed.get(uri);
    if (!followed) {
      followed = { holders: 0 };
      this.followed.set(uri, followed);
    }
    followed.holders++;
    await this.follow(uri, followed);
  }

  /** A downstream subscriber less: the last one closes the upstream subscription. */
  private release(uri: string): void {
    const followed = this.followed.get(uri);
    if (!followed || --followed.holders > 0) return;
    this.followed.delete(uri);
    void followed.subscription?.close();
  }

  /** Opens the upstream subscription of `uri` on the upstream's current catalog session, if not open there. */
  private async follow(uri: string, followed: Followed): Promise<void> {
    const parsed = this.owner(uri);
    const upstream = parsed && this.upstreams.get(parsed.namespace);
    if (!parsed || !upstream) return;
    const { client } = await upstream.catalog().catch(() => ({ client: undefined }));
    if (!client || followed.client === client || !client.serverCapabilities.resources?.subscribe) return;
    // Released while the catalog connected: nobody wants it any more.
    if (this.followed.get(uri) !== followed) return;
    followed.client = client;
    followed.subscription = client.listen(
      { resourceSubscriptions: [parsed.uri] },
      {
        onResourceUpdated: (updated) => this.server.notifyResourceUpdated(this.shownUri(upstream, updated)),
      },
    );
    await followed.subscription.acknowledged.catch((error: unknown) => {
      this.logger.warn(`gateway: cannot follow ${uri} on "${upstream.name}": ${errorMessage(error)}`);
    });
  }

  /**
   * A method the gateway does not know: `<server><separator><method>` goes to that server as
   * `<method>`; any other goes to the single upstream, or to the one without a namespace.
   */
  private forwardUnknown(method: string, params: Params, ctx: RequestContext): Promise<unknown> {
    const { separator } = this.config.options;
    const at = method.indexOf(separator);
    const taskOf = method.startsWith('tasks/') && typeof params.taskId === 'string';
    const named =
      (taskOf ? this.taskRoutes.get(params.taskId as string) : undefined) ??
      (at > 0 ? this.upstreams.get(method.slice(0, at)) : undefined);
    const only =
      this.upstreams.size === 1
        ? [...this.upstreams.values()][0]
        : this.bare === undefined
          ? undefined
          : this.upstreams.get(this.bare);
    const upstream = named ?? only;
    if (upstream === undefined) {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method}. Through this gateway, a method of one server is called as <server>${separator}<method>.`,
      );
    }
    const upstreamMethod = named && !taskOf ? method.slice(at + separator.length) : method;
    return this.forward(upstream, upstreamMethod, ctx, (client, options) =>
      client.request(upstreamMethod as 'ping', params as never, { ...options, unchecked: true }),
    );
  }

  /** Remembers which upstream made a task, for its `tasks/*` requests. */
  private taskMade(taskId: string, upstream: Upstream): void {
    this.taskRoutes.set(taskId, upstream);
    if (this.taskRoutes.size > MAX_TASK_ROUTES) {
      this.taskRoutes.delete(this.taskRoutes.keys().next().value as string);
    }
  }

  /** The upstream a downstream URI belongs to (by name) and its URI there. */
  private owner(uri: string): { namespace: string; uri: string } | undefined {
    return parseExposedUri(uri) ?? (this.bare === undefined ? undefined : { namespace: this.bare, uri });
  }

  /** An upstream's URI as clients see it: under `gateway://<server>/`, or as it is without a namespace. */
  private shownUri(upstream: Upstream, uri: string): string {
    return upstream.config.namespace ? exposedUri(upstream.name, uri) : uri;
  }

  private target(uri: string): { upstream: Upstream; uri: string } {
    const parsed = this.owner(uri);
    const upstream = parsed && this.upstreams.get(parsed.namespace);
    if (!parsed || !upstream) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown resource: ${uri}. Call resources/list for the available resources.`,
      );
    }
    return { upstream, uri: parsed.uri };
  }

  /**
   * Runs `send` on the upstream session of the client that made `ctx`'s request: its own session
   * for a legacy client, the gateway's catalog session for a 2026-07-28 request (which has none).
   * Not async, and no await once the session is open: this is the gateway's per-call path.
   */
  private forward<T>(
    upstream: Upstream,
    method: string,
    ctx: RequestContext,
    send: (client: Client, options: CallOptions) => Promise<T>,
  ): Promise<T> {
    const first = this.forwardOnce(upstream, method, ctx, send);
    if (!SAFE_TO_REPEAT.has(method)) return first;
    // A read whose session died under it goes again, once, on a new session (a tool call never does).
    return first.catch((error: unknown) => {
      if (!lostConnection(error) || ctx.link.finished) throw error;
      this.logger.warn(`gateway: ${method} on "${upstream.name}" lost its connection; trying once more`);
      return this.forwardOnce(upstream, method, ctx, send);
    });
  }

  private forwardOnce<T>(
    upstream: Upstream,
    method: string,
    ctx: RequestContext,
    send: (client: Client, options: CallOptions) => Promise<T>,
  ): Promise<T> {
    const record = this.telemetry.upstreamCall(upstream.name, method, ctx);
    const id = ctx.link.legacy?.session.id;
    const open = id === undefined ? upstream.openCatalog() : this.sessions.get(id)?.get(upstream.name)?.open;
    if (open && id === undefined && open.client.era === 'legacy' && MAY_ASK.has(method)) {
      // A 2026-07-28 client's call to a legacy upstream, which asks its questions with requests of
      // its own: on a session held by this call alone, so every question is this client's.
      return upstream.lease().then(
        (leased) => {
          const done = this.run(upstream, leased, ctx, send, record);
          const back = () => upstream.giveBack(leased);
          done.then(back, back);
          return done;
        },
        (error: unknown) => {
          record.end(error);
          throw error;
        },
      );
    }
    if (open) return this.run(upstream, open, ctx, send, record);
    return this.sessionFor(upstream, ctx, id).then(
      (session) => this.run(upstream, session, ctx, send, record),
      (error: unknown) => {
        record.end(error);
        throw error;
      },
    );
  }

  private run<T>(
    upstream: Upstream,
    session: UpstreamSession,
    ctx: RequestContext,
    send: (client: Client, options: CallOptions) => Promise<T>,
    record: UpstreamCallRecord,
  ): Promise<T> {
    const call: ForwardedCall = session.router.begin(ctx);
    const options: CallOptions = call.cancellation();
    options.timeoutMs = upstream.config.timeoutMs;
    if (ctx.era === 'modern') {
      // The shared session asks for what this client can answer and the logs it wants.
      options.onBehalfOf = {
        capabilities: ctx.client.capabilities,
        logLevel: ctx.meta?.[META.logLevel] as LoggingLevel | undefined,
      };
    }
    if (ctx.meta?.progressToken !== undefined) {
      options.onprogress = (update) => {
        try {
          ctx.progress(update.progress, update.total, update.message);
        } catch {
          // An upstream whose progress does not increase: drop the report, not the call.
        }
      };
    }
    let sent: Promise<T>;
    try {
      sent = send(session.client, options);
    } catch (error) {
      session.router.end(call);
      record.end(error);
      return Promise.reject(error);
    }
    return sent.then(
      (result) => {
        session.router.end(call);
        record.end();
        if (call.inputRequired) throw call.inputRequired;
        return passDown(result);
      },
      (error: unknown) => {
        session.router.end(call);
        // A question for the downstream client (2026-07-28) is no failure of the upstream.
        record.end(call.inputRequired ? undefined : error);
        throw call.inputRequired ?? error;
      },
    );
  }

  private sessionFor(
    upstream: Upstream,
    ctx: RequestContext,
    id: string | undefined,
  ): Promise<UpstreamSession> {
    if (id === undefined) return upstream.catalog();
    let sessions = this.sessions.get(id);
    if (!sessions) {
      sessions = new Map();
      this.sessions.set(id, sessions);
    }
    let entry = sessions.get(upstream.name);
    if (!entry) {
      const made: ClientSession = { session: upstream.session(ctx.client.capabilities, () => forget()) };
      const forget = () => {
        if (this.sessions.get(id)?.get(upstream.name) === made) this.sessions.get(id)!.delete(upstream.name);
      };
      made.session.then((open) => {
        made.open = open;
      }, forget);
      entry = made;
      sessions.set(upstream.name, entry);
    }
    return entry.session;
  }

  private async closeSessions(id: string): Promise<void> {
    const uris = this.subscribedBy.get(id);
    this.subscribedBy.delete(id);
    for (const uri of uris ?? []) this.release(uri);
    const sessions = this.sessions.get(id);
    if (!sessions) return;
    this.sessions.delete(id);
    await Promise.allSettled(
      [...sessions.values()].map(({ session }) => session.then(({ client }) => client.close())),
    );
  }
}

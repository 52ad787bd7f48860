/**
 * The gateway: one Switchboard `Server` that shows the tools, prompts, resources and templates of
 * every upstream under its namespace and forwards each request to the right upstream, in the
 * session of the downstream client that made it.
 *
 * This file only wires the parts, each in a file of its own: routes.ts (downstream names and URIs ↔
 * upstream), catalog.ts (the upstreams' lists mirrored as the server's pass-through items,
 * `list_changed`), forwarding.ts (upstream sessions, leases, timeouts, retries), following.ts
 * (resource subscriptions), upstream.ts (one upstream: its health and sessions) and telemetry.ts.
 * Every request goes through the server's own pipeline (admission, visibility, middleware, encoder);
 * the gateway adds two middleware: one gives an MCP Apps view's tool calls by its own server's names
 * their downstream names, the other times requests and fills lazily started upstreams' lists.
 */

import type { Channel } from '../engine/channel.js';
import type { Middleware } from '../engine/middleware.js';
import { Server, type ServerOptions } from '../extensions/server.js';
import { SKILLS_EXTENSION, SKILLS_LIST } from '../extensions/skills/types.js';
import type { Params } from '../protocol/jsonrpc.js';
import { featuresOf } from '../protocol/revisions.js';
import type { RequestContext } from '../server/context.js';
import { InputRequiredError } from '../server/input.js';
import { resourceNotFound } from '../server/resources.js';
import type { FetchLike } from '../transports/http/client/fetch-like.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { Catalog } from './catalog.js';
import type { GatewayConfig, HttpUpstreamConfig, UpstreamConfig } from './config.js';
import { Following, keptSubscriptions } from './following.js';
import { Forwarding } from './forwarding.js';
import { SKILL_PREFIX } from './names.js';
import { type PendingTool, type SharedPins, ToolPins } from './pins.js';
import { Routes } from './routes.js';
import { GatewaySkills } from './skills.js';
import type { TaskIdKeyring } from './task-ids.js';
import { GatewayTelemetry } from './telemetry.js';
import { Upstream, type UpstreamHealth, type UpstreamHooks, type UpstreamState } from './upstream.js';

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
  /** With `lock`: the pins every node of a cluster shares (`gateway.redis`), read at `start()`. */
  sharedPins?: SharedPins;
  /**
   * The key that binds the task ids the gateway shows to their callers (see task-ids.ts), or the
   * keys every node of a cluster shares (`gateway.redis`: ids made under the newest, read back
   * under any). Default: random, this process's alone.
   */
  taskIdKey?: Uint8Array | TaskIdKeyring;
}

/**
 * An MCP Apps view calls the tools of its own server by their own names (its HTML was written for
 * that server): a `tools/call` by a name no downstream tool has goes to the one tool of an upstream
 * with views that the name stands for, under its downstream name, so every check applies to it.
 */
function appToolCalls(routes: Routes): Middleware<RequestContext> {
  return (next) => (method, params, ctx) => {
    if (method === 'tools/call' && typeof params.name === 'string') {
      const name = routes.appTool(params.name);
      if (name !== undefined) return next(method, { ...params, name }, ctx);
    }
    return next(method, params, ctx);
  };
}

/** The methods that read or use the mirrored items (see {@link restoredFirst}). */
const CATALOG_METHODS = new Set([
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
]);

/**
 * An upstream is up again (so `/readyz` says) a moment before the catalog read its lists back
 * after its circuit opened: a list or a call in that moment waits for the read, so it sees the
 * items back instead of a list without them or "Unknown tool". Nothing waits otherwise.
 */
function restoredFirst(catalog: Catalog): Middleware<RequestContext> {
  return (next) => (method, params, ctx) => {
    const restoring = CATALOG_METHODS.has(method) ? catalog.restoring() : undefined;
    return restoring === undefined
      ? next(method, params, ctx)
      : restoring.then(() => next(method, params, ctx));
  };
}

/** An upstream that is not up, and why (its last error, or what it is doing). */
export interface NotUp {
  readonly name: string;
  readonly state: UpstreamState;
  readonly why: string;
}

export interface Readiness {
  /** Every eagerly started upstream was tried: up, or failed within its connect time. */
  readonly ready: boolean;
  readonly notUp: readonly NotUp[];
}

type Next = (params: Params) => Promise<unknown>;
type Hook = (params: Params, ctx: RequestContext, next: Next) => unknown;

export class Gateway {
  readonly server: Server;
  /** The tool pins, with `--lock` / the `lock` option. */
  readonly pins: ToolPins | undefined;
  /** Prometheus metrics (`telemetry.metrics()`, served at `/metrics`) and OpenTelemetry spans. */
  readonly telemetry: GatewayTelemetry;
  private readonly routes: Routes;
  private readonly catalog: Catalog;
  private readonly forwarding: Forwarding;
  private readonly followed: Following;
  private readonly skills: GatewaySkills;
  private readonly hooks: UpstreamHooks;
  private current: GatewayConfig;
  private closed = false;
  private readonly sharedPins: SharedPins | undefined;

  constructor(config: GatewayConfig, options: GatewayRuntimeOptions = {}) {
    this.current = config;
    const logger = options.logger ?? silentLogger;
    this.pins = options.lock === undefined ? undefined : ToolPins.load(options.lock);
    this.sharedPins = options.sharedPins;
    const version = options.version ?? '0.0.0';
    this.server = new Server({ name: 'switchboard-gateway', version }, { ...options.shared, logger });
    this.routes = new Routes(config, logger);
    this.telemetry = new GatewayTelemetry(
      { health: () => this.health(), downstreamSessions: () => this.forwarding.downstreamSessions },
      version,
    );
    this.forwarding = new Forwarding(this.routes, this.telemetry, logger, options.taskIdKey);
    this.followed = new Following(this.server, this.routes, logger);
    this.skills = new GatewaySkills(this.server, this.routes, this.forwarding, this.pins, logger);
    this.catalog = new Catalog(this.server, this.routes, this.forwarding, this.pins, this.skills, logger);
    this.hooks = {
      logger,
      version,
      wrapChannel: options.wrapChannel,
      fetchFor: options.fetchFor,
      catalogChanged: (changed) => {
        void this.catalog.refresh(changed);
        this.followed.reconnected(changed);
      },
      restarted: (upstream) => this.telemetry.restarted(upstream.name),
      sessionReopened: (upstream) => this.telemetry.sessionReopened(upstream.name),
      sessionLost: (upstream) => this.telemetry.sessionLost(upstream.name),
      capabilitiesChanged: () => this.server.capabilitiesChanged(),
    };
    for (const upstreamConfig of config.upstreams) this.add(upstreamConfig);
    // Skills (SEP-2640) are negotiated in legacy initialize too; the catalog drops the declaration
    // while no upstream declares the extension.
    this.server.declareExtension(SKILLS_EXTENSION, {}, { legacy: true });
    this.server.addCapabilities((capabilities) => this.catalog.capabilities(capabilities));
    this.server.onSessionClosed((id) => {
      this.followed.sessionClosed(id);
      void this.forwarding.closeSessions(id);
    });
    if (this.pins) {
      // Another node pinned or approved: each running upstream's tools are admitted again.
      this.pins.onChange = () => {
        for (const upstream of this.routes.upstreams.values())
          if (upstream.health().state === 'up') void this.catalog.refresh(upstream, ['tools']);
      };
      this.pins.onerror = (error) => logger.warn(`gateway: the shared tool pins: ${error.message}`);
    }
    this.server.use(restoredFirst(this.catalog));
    // Before the front door's checks, which then judge the tool it stands for.
    this.server.use(appToolCalls(this.routes));
    const first = options.guard?.(this.server);
    if (first) this.server.use(first);
    this.wire();
  }

  /** The config in force (the last one given to {@link reconfigure}). */
  get config(): GatewayConfig {
    return this.current;
  }

  /** Connects the upstreams that start eagerly and mirrors their lists; failures are reported in `health()`. */
  async start(): Promise<void> {
    if (this.pins && this.sharedPins) await this.pins.share(this.sharedPins);
    await this.catalog.connect(
      [...this.routes.upstreams.values()].filter((upstream) => upstream.config.startup === 'eager'),
    );
  }

  /**
   * Pins the current definitions of the held tools and skills named (every one held when none is),
   * and shows them at once: the running upstreams' lists are read again. With shared pins
   * (`gateway.redis`) it resolves once the approval is in Redis (every node then shows them).
   */
  async approve(names: readonly string[] = []): Promise<PendingTool[]> {
    if (!this.pins) return [];
    const approved = this.pins.approve(names);
    if (approved.length === 0) return approved;
    await this.pins.settled();
    await Promise.all(
      [...this.routes.upstreams.values()]
        .filter((upstream) => upstream.health().state === 'up')
        .map((upstream) => this.catalog.refresh(upstream)),
    );
    return approved;
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
    this.routes.configure(next);
    await Promise.all([...removed, ...restarted].map((name) => this.remove(name)));
    const started = [...restarted, ...added].map((name) => this.add(after.get(name)!));
    await this.catalog.connect(started.filter((upstream) => upstream.config.startup === 'eager'));
    return { added, removed, restarted };
  }

  private add(config: UpstreamConfig): Upstream {
    const upstream = new Upstream(config, this.hooks);
    this.routes.upstreams.set(upstream.name, upstream);
    this.telemetry.upstreamAdded(upstream.name);
    this.server.capabilitiesChanged();
    this.catalog.add(upstream);
    return upstream;
  }

  /** Stops an upstream and takes its items off the lists. */
  private async remove(name: string): Promise<void> {
    const upstream = this.routes.upstreams.get(name)!;
    this.routes.upstreams.delete(name);
    this.forwarding.forget(name);
    await upstream.close();
    await this.catalog.remove(upstream);
    this.server.capabilitiesChanged();
    this.followed.forget(name);
  }

  /** The gateway URIs followed upstream for downstream subscribers, with how many hold each. */
  following(): Array<{ uri: string; holders: number }> {
    return this.followed.list();
  }

  health(): UpstreamHealth[] {
    return [...this.routes.upstreams.values()].map((upstream) => upstream.health());
  }

  /**
   * Whether the gateway is ready: once every upstream it starts eagerly was tried (is up, or failed
   * within its connect time), it serves what it can. `notUp` names every upstream that is not up,
   * ready or not, and why.
   */
  readiness(): Readiness {
    const notUp: NotUp[] = [];
    let ready = true;
    for (const upstream of this.routes.upstreams.values()) {
      if (!upstream.started) ready = false;
      const { name, state, lastError } = upstream.health();
      if (state === 'up') continue;
      const why =
        lastError ??
        (state === 'idle'
          ? 'starts on first use (startup: lazy)'
          : state === 'starting'
            ? `connecting (for at most ${upstream.config.connectTimeoutMs} ms)`
            : state);
      notUp.push({ name, state, why });
    }
    return { ready, notUp };
  }

  /** Names shown downstream for each upstream (tools and prompts), for the start-up summary. */
  exposed(upstream: string): { tools: number; prompts: number; resources: number; templates: number } {
    return this.catalog.exposed(this.routes.upstreams.get(upstream));
  }

  /** Closes the server (every downstream connection), then every upstream session. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.catalog.close();
    this.forwarding.close();
    await this.server.close();
    await Promise.allSettled([...this.routes.upstreams.values()].map((upstream) => upstream.close()));
  }

  /**
   * Does the gateway serve `uri` to this caller (a listed resource or a template it may see, not a
   * hidden skill's file)? A subscription to one it does not is answered as a read of it would be:
   * so a URI hidden from the caller (by `gateway.access`...) is refused exactly like one nobody
   * serves, and nothing is followed upstream for it.
   */
  private async serves(uri: string, ctx: RequestContext): Promise<boolean> {
    await this.catalog.ensureStarted();
    if (uri.startsWith(SKILL_PREFIX) && this.skills.hides(uri, ctx)) return false;
    return this.server.resourceServed(uri, ctx);
  }

  /**
   * The gateway's one middleware (a map lookup per request), outermost, so it times every request:
   * lists first connect lazily started upstreams, subscriptions are followed upstream. It calls
   * `next` for every request: items are the server's own (pass-through), and so are their checks.
   * Methods nobody registered go to the fallback, which forwards vendor methods.
   */
  private wire(): void {
    const list: Hook = async (params, _ctx, next) => {
      await this.catalog.ensureStarted();
      return next(params);
    };
    const hooks = new Map<string, Hook>([
      ['tools/list', list],
      ['prompts/list', list],
      ['resources/list', list],
      ['resources/templates/list', list],
      [SKILLS_LIST, list],
      [
        'resources/read',
        (params, ctx, next) => {
          // A file of a hidden skill is unknown, also where an upstream template would serve it.
          const { uri } = params;
          if (typeof uri === 'string' && uri.startsWith(SKILL_PREFIX) && this.skills.hides(uri, ctx)) {
            throw resourceNotFound(uri, featuresOf(ctx.revision).resourceNotFoundCode);
          }
          return next(params);
        },
      ],
      [
        'resources/subscribe',
        async (params, ctx, next) => {
          const { uri } = params;
          if (typeof uri === 'string' && !(await this.serves(uri, ctx))) {
            throw resourceNotFound(uri, featuresOf(ctx.revision).resourceNotFoundCode);
          }
          return this.followed.subscribe(params, ctx, next);
        },
      ],
      ['resources/unsubscribe', (params, ctx, next) => this.followed.unsubscribe(params, ctx, next)],
      [
        'subscriptions/listen',
        async (params, ctx, next) =>
          this.followed.listen(await keptSubscriptions(params, (uri) => this.serves(uri, ctx)), next),
      ],
    ]);
    const { telemetry } = this;
    this.server.use((next) => (method, params, ctx) => {
      const hook = hooks.get(method);
      const done = telemetry.requestStarted(method, ctx);
      if (done === undefined) {
        // Nothing to end when the request settles: no promise layer of this middleware's own.
        return hook === undefined
          ? next(method, params, ctx)
          : Promise.resolve(hook(params, ctx, (changed) => next(method, changed, ctx)));
      }
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
    this.server.fallback((method, params, ctx) => this.forwarding.forwardUnknown(method, params, ctx));
  }
}

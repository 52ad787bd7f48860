/**
 * Forwarding: a downstream request sent to its upstream, in the right upstream session, and the
 * answer passed back. A legacy downstream client has its own session with each upstream; a
 * 2026-07-28 request (which has no session) goes on the gateway's catalog session, or, to a legacy
 * upstream that may ask questions during the call, on a session leased for that call alone. A
 * 2026-07-28 upstream's `input_required` goes down to a 2026-07-28 client as it is, the upstream's
 * `requestState` sealed inside the gateway's, and the retry goes back with it (never run again from
 * the top). Here too: timeouts (the upstream's `timeoutMs`), the one retry of a read whose connection died, and the
 * routes of upstream tasks.
 *
 * The per-call path (`forward` → `run`) is written without `async` and with no await once the
 * session is open: it is what every forwarded call costs.
 */
import type { CallOptions } from '../client/client.js';
import type { Client } from '../extensions/client.js';
import {
  declaresTasks,
  missingTasksExtension,
  TASKS_EXTENSION,
  taskNotFound,
} from '../extensions/tasks/types.js';
import { ErrorCode, methodNotFound, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type {
  CacheHint,
  CallToolResult,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  ReadResourceResult,
} from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import { InputRequiredError } from '../server/input.js';
import { isPlainObject } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import { randomHex } from '../util/random-id.js';
import { callerOf } from './caller.js';
import type { Route, Routes } from './routes.js';
import { type TaskIdKeyring, type TaskIdParts, TaskIds } from './task-ids.js';
import type { GatewayTelemetry, UpstreamCallRecord } from './telemetry.js';
import {
  type ForwardedCall,
  failureText,
  type Upstream,
  UpstreamFailure,
  type UpstreamSession,
} from './upstream.js';

type Send<T> = (client: Client, options: CallOptions) => Promise<T>;

/** A downstream client's session with one upstream: `open` once connected (the per-call path). */
interface ClientSession {
  readonly session: Promise<UpstreamSession>;
  open?: UpstreamSession;
}

/** Requests during which an upstream may ask the client something (elicitation, sampling, roots). */
const MAY_ASK = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** Requests that change nothing upstream: repeated once when their connection is lost mid-way. */
const SAFE_TO_REPEAT = new Set(['resources/read', 'prompts/get', 'completion/complete']);

/** Idle sweeps a session must stay without calls to be closed (one every upstreamSessionIdleMs / IDLE_SWEEPS). */
const IDLE_SWEEPS = 4;

/** The methods of MCP itself (every revision's, and the namespaces they live in). */
const MCP_NAMESPACES = [
  'tools/',
  'prompts/',
  'resources/',
  'completion/',
  'tasks/',
  'subscriptions/',
  'logging/',
  'server/',
  'sampling/',
  'elicitation/',
  'roots/',
  'notifications/',
];

function isMcpMethod(method: string): boolean {
  return method === 'initialize' || method === 'ping' || MCP_NAMESPACES.some((ns) => method.startsWith(ns));
}

function lostConnection(error: unknown): boolean {
  return (
    error instanceof SwitchboardError &&
    (error.code === 'CONNECTION_CLOSED' || error.code === 'NOT_CONNECTED')
  );
}

/**
 * A call whose upstream session died under it (a stdio server that exited) as the client sees it:
 * an error naming the upstream and what happened (a tool call says the same in its error result).
 */
function lostUnder(upstream: Upstream, error: unknown): unknown {
  return lostConnection(error) ? new UpstreamFailure(upstream.name, error) : error;
}

/**
 * A call that ran past its timeout, or whose HTTP exchange with the upstream failed (it went away
 * mid-call, it cannot be reached), as the client sees it: an error naming the upstream. After a
 * failed exchange the upstream is checked (see `suspect`).
 */
function failedAt(upstream: Upstream, error: unknown): unknown {
  if (error instanceof SwitchboardError && error.code === 'TIMEOUT')
    return new UpstreamFailure(upstream.name, error);
  if (!upstream.failedExchange(error)) return error;
  upstream.suspect();
  return new UpstreamFailure(upstream.name, error);
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
  // `_meta` before `resultType`: a 2026-07-28 answer ends `"resultType":...,"_meta":{...}}`, and
  // deleting an object's last property undoes it (the object keeps its fast shape), where deleting
  // any other turns it into a dictionary, which every later read and the downstream serialization
  // pay for (measured in docs/benchmarks.md, "The gateway hop").
  const meta = record._meta as Record<string, unknown> | undefined;
  if (meta !== undefined && meta !== null && typeof meta === 'object') {
    let left = 0;
    for (const key in meta) {
      if (key.startsWith(RESERVED_META)) delete meta[key];
      else left++;
    }
    if (left === 0) delete record._meta;
  }
  // `complete` is the gateway's to say; an extension's (tasks: `task`) is passed on.
  if (record.resultType === 'complete' || record.resultType === 'input_required') delete record.resultType;
  return result;
}

/**
 * What a 2026-07-28 upstream's `input_required` leaves with the gateway's own `requestState`: the
 * upstream it came from and the upstream's own state, echoed to it unchanged on the retry.
 */
interface Carried {
  readonly upstream: string;
  readonly requestState?: string;
}

/**
 * A 2026-07-28 upstream asked the 2026-07-28 client questions: they go down as they are (the
 * upstream's keys), its `requestState` sealed inside the gateway's, bound to this caller and request.
 */
function passOn(upstream: Upstream, answer: Record<string, unknown>, ctx: RequestContext): Error {
  const { inputRequests, requestState } = answer;
  if (requestState !== undefined && typeof requestState !== 'string') {
    return new ProtocolError(
      ErrorCode.InternalError,
      `Upstream "${upstream.name}" answered input_required with a non-string requestState.`,
    );
  }
  const carried: Carried =
    requestState === undefined ? { upstream: upstream.name } : { upstream: upstream.name, requestState };
  return ctx.passInputRequired(inputRequests as Params | undefined, carried);
}

/**
 * The retry of a call whose last round was an upstream's: its state and the client's answers, for
 * that upstream alone (the gateway's state is sealed, so `carry` is what the gateway put there).
 */
function carriedFor(upstream: Upstream, ctx: RequestContext): NonNullable<CallOptions['carryInput']> {
  const carried = ctx.carriedInput;
  if (carried === undefined) return NO_CARRY;
  const { upstream: name, requestState } = carried.carry as Carried;
  if (name !== upstream.name) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `This requestState was issued for upstream "${name}", and this request now goes to "${upstream.name}". Send the request again without requestState and inputResponses.`,
    );
  }
  return { inputResponses: carried.inputResponses, requestState };
}

/**
 * A forwarded tool call that failed, as the client sees it: an upstream that cannot run it answers
 * with an `isError` result (the model reads the reason as the tool's result); a protocol error or a
 * question for the client (2026-07-28) is thrown as it is.
 */
function toolFailure(upstream: Upstream, error: unknown): CallToolResult {
  if (error instanceof UpstreamFailure)
    return { content: [{ type: 'text', text: error.message }], isError: true };
  if (error instanceof ProtocolError || error instanceof InputRequiredError) throw error;
  return {
    content: [{ type: 'text', text: `Upstream "${upstream.name}": ${failureText(error)}` }],
    isError: true,
  };
}

/** {@link toolFailure} of an error thrown before the call was sent, as a settled promise. */
function failedTool(upstream: Upstream, error: unknown): Promise<CallToolResult> {
  try {
    return Promise.resolve(toolFailure(upstream, error));
  } catch (thrown) {
    return Promise.reject(thrown);
  }
}

/**
 * An upstream call that failed before it was sent (no session): recorded, and thrown on. A function
 * of its own rather than a closure made on every call, for the few calls that need it.
 */
function failedBefore(record: UpstreamCallRecord, error: unknown, tool?: Upstream): CallToolResult {
  record.end(error);
  // A tool call's (see `forward`): the tool's error result, or the rejection toolFailure leaves.
  if (tool) return toolFailure(tool, error);
  throw error;
}

/** The requests about one task, by its id (`tasks/list` is answered apart). */
const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result']);

/** Whose a task is, for its id's tag: the caller's principal, or the one anonymous caller without `gateway.auth`. */
const principalOf = (ctx: RequestContext): string => callerOf(ctx.auth)?.id ?? '';

/**
 * 2025-11-25 `tasks/list` through the gateway: the tasks it passed on to this caller in that
 * revision, which are none (it passes on 2026-07-28 tasks alone, which have no list; a 2025-11-25
 * task-augmented call runs to its end upstream and is answered as a plain call).
 */
const NO_TASKS = Object.freeze({ tasks: [] });

/** A first run: an upstream's input_required comes back, nothing is added to the request. */
const NO_CARRY: NonNullable<CallOptions['carryInput']> = Object.freeze({});

export class Forwarding {
  /** Per downstream session: its own session with each upstream. */
  private readonly sessions = new Map<string, Map<string, ClientSession>>();
  /**
   * This gateway process among the nodes of a cluster: named in the ids of its local servers'
   * tasks, which live in its children (see task-ids.ts).
   */
  private readonly node = randomHex(4);
  /** Whether `name` is an upstream's (made once, not per `tasks/*` request). */
  private readonly isUpstream = (name: string): boolean => this.routes.upstreams.has(name);
  /** The task ids shown to callers, each bound to the caller it was shown to (see task-ids.ts). */
  private readonly taskIds: TaskIds;

  /** Closes downstream clients' upstream sessions that stay idle (see {@link sweepIdle}). */
  private readonly idleSweeper: ReturnType<typeof setInterval>;

  constructor(
    private readonly routes: Routes,
    private readonly telemetry: GatewayTelemetry,
    private readonly logger: Logger,
    taskIdKey: Uint8Array | TaskIdKeyring = crypto.getRandomValues(new Uint8Array(32)),
  ) {
    this.taskIds = new TaskIds(taskIdKey, routes.options.separator);
    const idleMs = routes.options.upstreamSessionIdleMs;
    this.idleSweeper = setInterval(() => this.sweepIdle(), Math.ceil(idleMs / IDLE_SWEEPS));
    this.idleSweeper.unref?.();
  }

  /** Stops the idle sweeps (the gateway closes). */
  close(): void {
    clearInterval(this.idleSweeper);
  }

  /**
   * A downstream client's session with an upstream that had no call for about
   * `upstreamSessionIdleMs` (IDLE_SWEEPS sweeps in a row) is closed, well before the downstream
   * session's own idle timeout; the client's next call there opens a new one.
   */
  private sweepIdle(): void {
    for (const [id, sessions] of this.sessions) {
      for (const [name, entry] of sessions) {
        if (!entry.open?.router.idleFor(IDLE_SWEEPS)) continue;
        sessions.delete(name);
        void entry.open.client.close();
      }
      if (sessions.size === 0) this.sessions.delete(id);
    }
  }

  /** Downstream sessions with upstream sessions of their own. */
  get downstreamSessions(): number {
    return this.sessions.size;
  }

  // --- what each kind of item forwards ------------------------------------------------------------

  /**
   * A forwarded `tools/call`; an upstream that cannot run it answers with an `isError` result. Not
   * async: a plain call is one `then` on the forwarded call, no promise layer of its own.
   */
  callTool(route: Route, params: Params, ctx: RequestContext): Promise<CallToolResult> {
    const { upstream } = route;
    const args = params.arguments as Params | undefined;
    // A 2026-07-28 client that declared the tasks extension gets the upstream's task as it is.
    if (
      ctx.era === 'modern' &&
      declaresTasks(ctx.client.capabilities) &&
      upstream.capabilities?.extensions?.[TASKS_EXTENSION] !== undefined
    ) {
      return this.callToolAsTask(route, args, ctx);
    }
    // `tool`: the result shown and a failure made the tool's error result in the forwarded call's
    // own `then`, not in a second promise layer (its promise, reaction and two closures per call).
    try {
      return this.forward(
        upstream,
        'tools/call',
        ctx,
        (client, options) => client.callTool(route.name, args, options),
        true,
      );
    } catch (error) {
      return failedTool(upstream, error);
    }
  }

  /** A `tools/call` whose upstream task, if it makes one, goes to the client as it is. */
  private async callToolAsTask(
    route: Route,
    args: Params | undefined,
    ctx: RequestContext,
  ): Promise<CallToolResult> {
    const { upstream } = route;
    try {
      const upstreamParams: Params =
        args === undefined ? { name: route.name } : { name: route.name, arguments: args };
      const result = (await this.forward(upstream, 'tools/call', ctx, (client, options) =>
        client.request('tools/call', upstreamParams as never, { ...options, unchecked: true }),
      )) as unknown as Record<string, unknown>;
      if (result.resultType === 'task' && typeof result.taskId === 'string')
        result.taskId = await this.shownTaskId(upstream, result.taskId, ctx);
      return result as unknown as CallToolResult;
    } catch (error) {
      return toolFailure(upstream, error);
    }
  }

  async getPrompt(route: Route, params: Params, ctx: RequestContext): Promise<GetPromptResult> {
    const args = params.arguments as Record<string, string> | undefined;
    const result = await this.forward(route.upstream, 'prompts/get', ctx, (client, options) =>
      client.getPrompt(route.name, args, options),
    );
    const { messages } = result;
    // Only a namespaced upstream's URIs change (see `Routes.mapContent`): no array made for others.
    if (route.upstream.config.namespace && Array.isArray(messages)) {
      this.routes.mapContent(
        route.upstream,
        messages.map((message) => message.content),
      );
    }
    return result;
  }

  /**
   * A tool's result with the URIs it names as the gateway serves them (see `Routes.mapContent` and
   * `Routes.viewMeta`): a link to a resource or view, read back through the gateway, reaches it.
   */
  private shownResult(upstream: Upstream, result: CallToolResult): CallToolResult {
    if (Array.isArray(result.content)) this.routes.mapContent(upstream, result.content);
    const meta = upstream.config.namespace ? this.routes.viewMeta(upstream, result._meta) : undefined;
    if (meta !== undefined) result._meta = meta;
    return result;
  }

  /** A forwarded `resources/read` of downstream URI `uri`; the contents' URIs shown as downstream. */
  async readResource(uri: string, ctx: RequestContext): Promise<ReadResourceResult> {
    const target = this.routes.target(uri);
    const { ttlMs, cacheScope, ...result } = (await this.forward(
      target.upstream,
      'resources/read',
      ctx,
      (client, options) => client.readResource(target.uri, options),
    )) as ReadResourceResult & Partial<CacheHint>;
    // A 2026-07-28 upstream's cache hint is the gateway's to give: its server sends it to a client
    // of that era (private when lists differ per caller), none to a legacy one.
    if (ttlMs !== undefined || cacheScope !== undefined) {
      ctx.cacheHint = { ...(ttlMs !== undefined ? { ttlMs } : {}), ...(cacheScope ? { cacheScope } : {}) };
    }
    // `result` is the destructuring's own copy: its contents are replaced in place.
    result.contents = result.contents.map((content) => ({
      ...content,
      uri: this.routes.shownUri(target.upstream, content.uri),
    }));
    return result;
  }

  /** A forwarded `completion/complete` whose ref (a prompt or template) is `upstreamRef` upstream. */
  complete(
    upstream: Upstream,
    upstreamRef: CompleteParams['ref'],
    params: CompleteParams,
    ctx: RequestContext,
  ): Promise<CompleteResult> {
    return this.forward(upstream, 'completion/complete', ctx, (client, options) =>
      client.complete({ ...params, ref: upstreamRef }, options),
    );
  }

  /**
   * A method the gateway does not know: `<server><separator><method>` goes to that server as
   * `<method>`; any other goes to the single upstream, or to the one without a namespace.
   */
  forwardUnknown(method: string, params: Params, ctx: RequestContext): Promise<unknown> {
    const { separator } = this.routes.options;
    // Tasks are the gateway's to answer: only a task it passed on to this caller reaches an upstream.
    if (TASK_METHODS.has(method) && typeof params.taskId === 'string') {
      return this.forwardTask(params.taskId, method, params, ctx);
    }
    if (method === 'tasks/list' && ctx.era === 'legacy') return Promise.resolve(NO_TASKS);
    const at = method.indexOf(separator);
    const named = at > 0 ? this.routes.upstreams.get(method.slice(0, at)) : undefined;
    const upstreamMethod = named ? method.slice(at + separator.length) : method;
    const upstream = named ?? this.routes.defaultUpstream();
    if (upstream === undefined || isMcpMethod(upstreamMethod)) {
      // An MCP method is the gateway's to answer, with its filters and pins: never passed on
      // unread (`files__tools/call` would run a tool the gateway hides).
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        isMcpMethod(upstreamMethod)
          ? `Method not found: ${method}. The gateway answers MCP methods itself; only a server's own methods are forwarded, as <server>${separator}<method>.`
          : `Method not found: ${method}. Through this gateway, a method of one server is called as <server>${separator}<method>.`,
      );
    }
    return this.forwardAs(upstream, upstreamMethod, params, ctx);
  }

  /** `upstreamMethod` with `params` to `upstream`, its result unchecked (vendor methods, skills). */
  forwardAs(
    upstream: Upstream,
    upstreamMethod: string,
    params: Params,
    ctx: RequestContext,
  ): Promise<unknown> {
    return this.forward(upstream, upstreamMethod, ctx, (client, options) =>
      client.request(upstreamMethod as 'ping', params as never, { ...options, unchecked: true }),
    );
  }

  /** The id the caller of `ctx` gets for `upstream`'s task `id` (see task-ids.ts). */
  private shownTaskId(upstream: Upstream, id: string, ctx: RequestContext): Promise<string> {
    const parts: TaskIdParts =
      upstream.config.transport === 'stdio'
        ? { upstream: upstream.name, node: this.node, id }
        : { upstream: upstream.name, id };
    return this.taskIds.show(principalOf(ctx), parts);
  }

  /**
   * A `tasks/*` request for task `shown`: to its upstream under the upstream's own id, the task in
   * the answer shown by the id the client knows, if the gateway passed that task on to this caller.
   * Any other id (another caller's, one the gateway did not make) is unknown, and nothing reaches
   * an upstream. A local server's task made on another node (or before this one restarted) is not
   * here: answered as unknown, saying why.
   */
  private async forwardTask(
    shown: string,
    method: string,
    params: Params,
    ctx: RequestContext,
  ): Promise<unknown> {
    // 2026-07-28 removed `tasks/result` (tasks/get carries the outcome): no such method, whatever the id.
    if (ctx.era === 'modern' && method === 'tasks/result')
      throw methodNotFound(method, "2026-07-28 has no such method: tasks/get returns a task's outcome");
    if (ctx.era === 'modern' && !declaresTasks(ctx.client.capabilities))
      throw missingTasksExtension(`'${method}'`);
    const task = await this.taskIds.read(shown, principalOf(ctx), this.isUpstream);
    if (task === undefined) throw taskNotFound(shown);
    const upstream = this.routes.upstreams.get(task.upstream)!;
    if (upstream.config.transport === 'stdio' && task.node !== this.node) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Task not found: ${JSON.stringify(shown)}. It was made by the local server "${upstream.name}" on another gateway node (or before this one restarted), and a local server's tasks live in the node that runs it: send each client's requests to one node (a sticky balancer, see the gateway's docs on gateway.redis).`,
      );
    }
    const answer = await this.forwardAs(upstream, method, { ...params, taskId: task.id }, ctx);
    const record = answer as Record<string, unknown> | undefined;
    if (record === null || typeof record !== 'object') return answer;
    if (record.taskId === task.id) record.taskId = shown;
    // A tool's outcome names the URIs it links to as a direct call's does: in the task (2026-07-28
    // `tasks/get`) or as the answer itself (2025-11-25 `tasks/result`).
    const outcome = method === 'tasks/result' ? record : record.result;
    if (isPlainObject(outcome) && Array.isArray(outcome.content)) {
      this.shownResult(upstream, outcome as unknown as CallToolResult);
    }
    return answer;
  }

  // --- the per-call path ----------------------------------------------------------------------------

  /**
   * Runs `send` on the upstream session of the client that made `ctx`'s request: its own session
   * for a legacy client, the gateway's catalog session (or a leased one) for a 2026-07-28 request.
   */
  private forward<T>(
    upstream: Upstream,
    method: string,
    ctx: RequestContext,
    send: Send<T>,
    tool = false,
  ): Promise<T> {
    // `tool` (a `tools/call`, never repeated): its answer is the tool's as shown downstream, and a
    // failure the tool's error result, or the rejection `toolFailure` leaves (see `run`).
    if (!SAFE_TO_REPEAT.has(method)) return this.forwardOnce(upstream, method, ctx, send, tool);
    const first = this.forwardOnce(upstream, method, ctx, send, false);
    // A read whose session died under it goes again, once, on a new session (a tool call never does).
    // A Streamable HTTP session does not die under a call: a stream that broke is a failed exchange
    // (never sent again, see `failedAt`), and a session closed under a call is the gateway's own,
    // closed because the upstream stopped answering (`Upstream.suspect`): the call fails naming it.
    return first.catch((error: unknown) => {
      if (!lostConnection(error) || ctx.link.finished || upstream.config.transport === 'http')
        throw lostUnder(upstream, error);
      this.logger.warn(`gateway: ${method} on "${upstream.name}" lost its connection; trying once more`);
      return this.forwardOnce(upstream, method, ctx, send, false).catch((again: unknown) => {
        throw lostUnder(upstream, again);
      });
    });
  }

  private forwardOnce<T>(
    upstream: Upstream,
    method: string,
    ctx: RequestContext,
    send: Send<T>,
    tool: boolean,
  ): Promise<T> {
    const record = this.telemetry.upstreamCall(upstream.name, method, ctx);
    const id = ctx.link.legacy?.session.id;
    if (id !== undefined) {
      const open = this.sessions.get(id)?.get(upstream.name)?.open;
      if (open) return this.run(upstream, open, ctx, send, record, tool);
      return this.sessionFor(upstream, ctx, id).then(
        (session) => this.run(upstream, session, ctx, send, record, tool),
        (error: unknown) => failedBefore(record, error, tool ? upstream : undefined) as T,
      );
    }
    const catalog = upstream.openCatalog();
    if (catalog) return this.onCatalog(upstream, catalog, method, ctx, send, record, tool);
    // The catalog is (re)connecting: the session it comes to decides, as when it is open.
    return upstream.catalog().then(
      (session) => this.onCatalog(upstream, session, method, ctx, send, record, tool),
      (error: unknown) => failedBefore(record, error, tool ? upstream : undefined) as T,
    );
  }

  /** A 2026-07-28 request, once the catalog session (and so the upstream's era) is known. */
  private onCatalog<T>(
    upstream: Upstream,
    catalog: UpstreamSession,
    method: string,
    ctx: RequestContext,
    send: Send<T>,
    record: UpstreamCallRecord,
    tool: boolean,
  ): Promise<T> {
    if (catalog.client.era !== 'legacy' || !MAY_ASK.has(method)) {
      return this.run(upstream, catalog, ctx, send, record, tool);
    }
    // A legacy upstream asks its questions with requests of its own: on a session held by this
    // call alone, so every question is this client's.
    return upstream.lease(ctx).then(
      (leased) => {
        // Given back or discarded by how the upstream call itself ended, so not made a tool's
        // result in it (`tool`) but after.
        const done = this.run(upstream, leased, ctx, send, record, false);
        // Reused only once the upstream answered: a call that timed out or was cancelled may
        // still log, ask or report progress there, which must not reach the next holder.
        done.then(
          () => upstream.giveBack(leased),
          (error: unknown) =>
            error instanceof ProtocolError && !(error instanceof UpstreamFailure)
              ? upstream.giveBack(leased)
              : upstream.discard(leased),
        );
        if (!tool) return done;
        return done.then(
          (result) => this.shownResult(upstream, result as CallToolResult) as T,
          (error: unknown) => toolFailure(upstream, error) as T,
        );
      },
      (error: unknown) => failedBefore(record, error, tool ? upstream : undefined) as T,
    );
  }

  private run<T>(
    upstream: Upstream,
    session: UpstreamSession,
    ctx: RequestContext,
    send: Send<T>,
    record: UpstreamCallRecord,
    tool: boolean,
  ): Promise<T> {
    const call: ForwardedCall = session.router.begin(ctx);
    const options: CallOptions = call.cancellation(upstream.config.timeoutMs);
    if (ctx.era === 'modern') {
      // The shared session asks for what this client can answer and the logs it wants.
      options.onBehalfOf = {
        capabilities: ctx.client.capabilities,
        logLevel: ctx.meta?.[META.logLevel] as LoggingLevel | undefined,
      };
      if (session.client.era === 'modern' && MAY_ASK.has(ctx.method)) {
        try {
          options.carryInput = carriedFor(upstream, ctx);
        } catch (error) {
          session.router.end(call);
          record.end(error);
          return tool ? (failedTool(upstream, error) as Promise<T>) : Promise.reject(error);
        }
      }
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
      return tool ? (failedTool(upstream, error) as Promise<T>) : Promise.reject(error);
    }
    return sent.then(
      (result) => {
        session.router.end(call);
        record.end();
        let shown: T;
        try {
          if (call.inputRequired) throw call.inputRequired;
          if (options.carryInput !== undefined) {
            const answer = result as Record<string, unknown>;
            if (answer.resultType === 'input_required') throw passOn(upstream, answer, ctx);
          }
          shown = passDown(result);
        } catch (error) {
          if (tool) return toolFailure(upstream, error) as T;
          throw error;
        }
        return tool ? (this.shownResult(upstream, shown as CallToolResult) as T) : shown;
      },
      (error: unknown) => {
        session.router.end(call);
        // A question for the downstream client (2026-07-28) is no failure of the upstream.
        record.end(call.inputRequired ? undefined : error);
        const failure = call.inputRequired ?? failedAt(upstream, error);
        if (tool) return toolFailure(upstream, failure) as T;
        throw failure;
      },
    );
  }

  // --- downstream clients' sessions -------------------------------------------------------------------

  private sessionFor(upstream: Upstream, ctx: RequestContext, id: string): Promise<UpstreamSession> {
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

  /** An upstream is gone (removed or restarted by a new config): its sessions are its own to close. */
  forget(upstream: string): void {
    for (const sessions of this.sessions.values()) sessions.delete(upstream);
  }

  /** A downstream session ended: its upstream sessions close. */
  async closeSessions(id: string): Promise<void> {
    const sessions = this.sessions.get(id);
    if (!sessions) return;
    this.sessions.delete(id);
    await Promise.allSettled(
      [...sessions.values()].map(({ session }) => session.then(({ client }) => client.close())),
    );
  }
}

/**
 * One upstream server as the gateway holds it: its health, the gateway's own session with it (the
 * catalog: lists, subscriptions, and calls that arrive without a downstream session), and the
 * sessions opened for each downstream client, whose server→client requests (elicitation, sampling,
 * roots), logs and progress go to that client's request and nobody else's.
 */
import type { CallOptions } from '../client/client.js';
import type { InputContext } from '../client/input-handlers.js';
import type { Channel, ChannelSink } from '../engine/channel.js';
import { ChannelDecorator } from '../engine/channel-decorator.js';
import type { Cancellable } from '../engine/peer.js';
import { Client } from '../extensions/client.js';
import { openTarget } from '../node/target.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { Era } from '../protocol/revisions.js';
import type {
  ClientCapabilities,
  CreateMessageResult,
  ElicitResult,
  LoggingLevel,
  ServerCapabilities,
} from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import { type InputCallOptions, InputRequiredError } from '../server/input.js';
import { redactText } from '../server/redact.js';
import type { FetchLike } from '../transports/http/client/fetch-like.js';
import { clip } from '../util/clip.js';
import { errorMessage, isPlainObject } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import type { HttpUpstreamConfig, UpstreamConfig } from './config.js';
import { LeasePool } from './lease-pool.js';

export type UpstreamState = 'idle' | 'starting' | 'up' | 'failing' | 'circuit-open' | 'stopped';

export interface UpstreamHealth {
  readonly name: string;
  readonly state: UpstreamState;
  /** `stdio`, `http` or `sse`. */
  readonly transport: UpstreamConfig['transport'];
  /** The protocol revision the catalog session speaks, once up. */
  readonly revision?: string;
  /** Why it is failing (with the end of its stderr, for a stdio server). */
  readonly lastError?: string;
  /** Times the catalog session was reopened after a failure. */
  readonly restarts: number;
  /** Sessions open for downstream clients. */
  readonly sessions: number;
  /**
   * Sessions the upstream forgot (an HTTP server answering 404: restarted, or it evicted them) that
   * were replaced by new ones for the same client, the gateway's own included.
   */
  readonly sessionsReopened: number;
  /**
   * Sessions that ended without the gateway closing them (a stdio server that exited or crashed, a
   * connection that dropped), the gateway's own included.
   */
  readonly sessionsLost: number;
  /**
   * 2026-07-28 clients' calls waiting for a leased session now: its `maxSessions` leases are in
   * use (see {@link Upstream.lease}).
   */
  readonly leaseWaits: number;
}

/** What the catalog and leased sessions declare: they answer for any client. */
const EVERY_INPUT: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
/** Leased sessions kept open while idle, per upstream (stdio: processes). */
const MAX_IDLE_LEASES = 4;

/** Lines of a failure kept for health reports (the first, and the last of a stderr tail), and each line's length. */
const FAILURE_LINES = 8;
const FAILURE_LINE_CHARS = 240;

/**
 * Why an upstream failed, fit to be shown (`/readyz`, logs, an error to a client): secrets masked by
 * the log masking rules (a server may print its key on stderr, which a stdio failure quotes), and
 * trimmed to the first line and the last lines, each cut to a readable length.
 */
export function failureText(error: unknown): string {
  const lines = redactText(errorMessage(error)).split('\n');
  const kept = lines.length <= FAILURE_LINES ? lines : [lines[0]!, ...lines.slice(1 - FAILURE_LINES)];
  return kept.map((line) => clip(line, FAILURE_LINE_CHARS)).join('\n');
}

/**
 * A call's failure the gateway puts down to the upstream (its process died, its HTTP exchange
 * failed), not an answer of the upstream's: it names the upstream, and a tool call shows it as
 * the tool's error result, as the gateway does for every upstream that cannot run a tool.
 */
export class UpstreamFailure extends ProtocolError {
  constructor(upstream: string, cause: unknown) {
    super(ErrorCode.InternalError, `Upstream "${upstream}": ${failureText(cause)}`, { upstream });
  }
}

/** After this many failures in a row the circuit opens: calls fail at once until the next attempt. */
const CIRCUIT_FAILURES = 3;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/**
 * One downstream request served through an upstream session. A stoppable call (on the shared
 * session, or for a 2026-07-28 request) is its upstream call's cancellation itself: stopped when the
 * downstream request is cancelled or needs input first, and the name of the call an upstream's
 * 2026-07-28 question belongs to. A Cancellable rather than an AbortController: a controller per
 * forwarded call, with the peer's listener on its signal, was an eighth of a 2026-07-28 call's CPU.
 */
export class ForwardedCall implements Cancellable {
  /** The downstream answer needs input first (2026-07-28): what the handler must rethrow. */
  inputRequired: InputRequiredError | undefined;
  #stopped = false;
  #reason: unknown;
  /** The first listener still registered (the upstream call's, the only one as a rule): no array per call. */
  #listener: ((reason: unknown) => void) | undefined;
  /** Listeners registered while {@link #listener} was taken, in order. */
  #listeners: ((reason: unknown) => void)[] | undefined;

  constructor(
    readonly ctx: RequestContext,
    readonly stoppable: boolean,
  ) {
    if (!stoppable) return;
    // Told by the link where it can (the downstream request's own signal is an AbortController
    // too); a cancellation after the call ended stops nothing any more.
    const { cancellable } = ctx.link;
    if (cancellable) cancellable.onCancel((reason) => this.stop(reason));
    else if (ctx.signal.aborted) this.stop(ctx.signal.reason);
    else ctx.signal.addEventListener('abort', () => this.stop(ctx.signal.reason), { once: true });
  }

  onCancel(listener: (reason: unknown) => void): () => void {
    if (this.#stopped) {
      const reason = this.#reason;
      queueMicrotask(() => listener(reason));
      return () => {};
    }
    if (this.#listener === undefined && this.#listeners === undefined) {
      this.#listener = listener;
      return () => {
        if (this.#listener === listener) this.#listener = undefined;
      };
    }
    this.#listeners ??= [];
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners?.indexOf(listener) ?? -1;
      if (at !== -1) this.#listeners!.splice(at, 1);
    };
  }

  /** Stops the upstream call (once). */
  stop(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason = reason;
    const first = this.#listener;
    const listeners = this.#listeners;
    this.#listener = undefined;
    this.#listeners = undefined;
    first?.(reason);
    if (listeners) for (const listener of listeners) listener(reason);
  }

  /**
   * What stops the upstream call: this call when stoppable, else the downstream request's
   * cancellation, told without an `AbortSignal` where the link can (a signal per forwarded call
   * was a third of the gateway's CPU). With the upstream call's `timeoutMs`, in the one literal: a
   * key added after it grew the object a property store of its own on every call.
   */
  cancellation(timeoutMs: number | undefined): CallOptions {
    if (this.stoppable) return { cancelledBy: this, timeoutMs };
    const { cancellable } = this.ctx.link;
    return cancellable ? { cancelledBy: cancellable, timeoutMs } : { signal: this.ctx.signal, timeoutMs };
  }
}

/** The downstream request's cancellation as a Cancellable: its link's, else from its signal. */
function cancellationOf(ctx: RequestContext): Cancellable {
  const { cancellable } = ctx.link;
  if (cancellable) return cancellable;
  return {
    onCancel(listener) {
      const { signal } = ctx;
      const aborted = () => listener(signal.reason);
      if (signal.aborted) {
        queueMicrotask(aborted);
        return () => {};
      }
      signal.addEventListener('abort', aborted, { once: true });
      return () => signal.removeEventListener('abort', aborted);
    },
  };
}

/**
 * The calls to one upstream, over all its sessions, as its health check reads them: whether one
 * began since the last tick, and how many run now. Two field writes per call, no clock read.
 */
export class CallActivity {
  /** A call began since the last {@link idle} check. */
  started = false;
  inFlight = 0;

  /** Whether no call began since the last check and none runs now (and starts the next period). */
  idle(): boolean {
    const idle = !this.started && this.inFlight === 0;
    this.started = false;
    return idle;
  }
}

/**
 * Which downstream request a server→client message on an upstream session belongs to. A session of
 * one downstream client gives it to that client's latest call (any of them reaches the right
 * person). The shared catalog session serves requests of many clients, so it routes only when
 * exactly one call is in flight, and otherwise refuses rather than ask the wrong person.
 */
export class CallRouter {
  private readonly calls = new Set<ForwardedCall>();
  /** A call began since the last {@link idleFor} sweep. */
  private used = false;
  /** Sweeps in a row that found the session without calls. */
  private idleSweeps = 0;

  constructor(
    readonly shared: boolean,
    /** The upstream's calls over all its sessions (see {@link Upstream} health checks). */
    private readonly activity?: CallActivity,
  ) {}

  begin(ctx: RequestContext): ForwardedCall {
    // A 2026-07-28 request's upstream call stops when the request needs input first (see `ask`).
    const call = new ForwardedCall(ctx, this.shared || ctx.era === 'modern');
    this.used = true;
    this.calls.add(call);
    if (this.activity) {
      this.activity.started = true;
      this.activity.inFlight++;
    }
    return call;
  }

  end(call: ForwardedCall): void {
    if (this.calls.delete(call) && this.activity) this.activity.inFlight--;
  }

  /**
   * One idle sweep (no clock read per call: a call only sets a flag): whether the session has had
   * no call in flight and none begun for `sweeps` sweeps in a row.
   */
  idleFor(sweeps: number): boolean {
    if (this.used || this.calls.size > 0) {
      this.used = false;
      this.idleSweeps = 0;
      return false;
    }
    return ++this.idleSweeps >= sweeps;
  }

  /**
   * `by`: the cancellation an upstream's 2026-07-28 question came with, that of the call it
   * answers (on the shared session each call is its own), which names the call even among many.
   */
  target(by?: Cancellable): ForwardedCall | undefined {
    if (by instanceof ForwardedCall && this.shared && this.calls.has(by)) return by;
    if (this.shared && this.calls.size !== 1) return undefined;
    let last: ForwardedCall | undefined;
    for (const call of this.calls) last = call;
    return last;
  }
}

export interface UpstreamHooks {
  readonly logger: Logger;
  readonly version: string;
  /** Wraps each channel to the upstream (a schema check in tests, tracing). */
  readonly wrapChannel?: ((channel: Channel, upstream: string) => Channel) | undefined;
  /** The catalog session (re)connected or its lists changed: mirror them again. */
  catalogChanged(upstream: Upstream): void;
  /** The upstream is being reconnected after a failure (a restart, for a stdio server). */
  restarted?(upstream: Upstream): void;
  /** A session the upstream forgot was replaced by a new one (see `UpstreamHealth.sessionsReopened`). */
  sessionReopened?(upstream: Upstream): void;
  /** A session ended without the gateway closing it (see `UpstreamHealth.sessionsLost`). */
  sessionLost?(upstream: Upstream): void;
  /** The upstream offers other capabilities than before (first connection, or changed since). */
  capabilitiesChanged?(): void;
  /**
   * The fetch of an HTTP upstream's channel (default `nodeFetch`): the CLI gives an OAuth client's
   * (stored tokens, sign-in on 401) to upstreams without an `Authorization` header of their own.
   */
  readonly fetchFor?: ((upstream: HttpUpstreamConfig) => FetchLike | undefined) | undefined;
}

/** A session with the upstream, and the router of its server→client messages. */
export interface UpstreamSession {
  readonly client: Client;
  readonly router: CallRouter;
}

export class Upstream {
  private state: UpstreamState = 'idle';
  private lastError: string | undefined;
  private failures = 0;
  private restarts = 0;
  private sessionsReopened = 0;
  private sessionsLost = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private catalogSession: Promise<UpstreamSession> | undefined;
  /** What the server spoke last, so later sessions skip the probe of the other era. */
  private era: Era | undefined;
  private readonly open = new Set<Client>();
  /** Sessions leased to single calls, held to `maxSessions` (see {@link lease}). */
  private readonly leases: LeasePool<UpstreamSession>;
  private stopped = false;
  /** Sessions open for legacy downstream clients (see {@link session}; held to `maxSessions`). */
  private clientSessions = 0;
  /** A first connection was tried (see {@link started}). */
  private tried = false;
  /** The catalog session is being pinged (a failed exchange, or the health check: see {@link suspect}). */
  private probing = false;
  /** The calls to it over all its sessions, which the health check reads (see {@link checkHealth}). */
  private readonly activity = new CallActivity();
  /** Ticks every `healthCheckIntervalMs` while it is up (see {@link checkHealth}). */
  private healthTimer: ReturnType<typeof setInterval> | undefined;
  /** How the HTTP channel names this upstream in its errors (`data.url`): its origin and a slash. */
  private readonly origin: string | undefined;

  constructor(
    readonly config: UpstreamConfig,
    private readonly hooks: UpstreamHooks,
  ) {
    this.origin = config.transport === 'stdio' ? undefined : `${new URL(config.url).origin}/`;
    const { maxSessions, timeoutMs } = config;
    this.leases = new LeasePool({
      cap: maxSessions,
      maxIdle: MAX_IDLE_LEASES,
      waitMs: timeoutMs,
      open: (onClosed) => this.openSession(EVERY_INPUT, onClosed),
      close: (session) => void session.client.close(),
      full: () =>
        new ProtocolError(
          ErrorCode.InternalError,
          `Upstream "${this.name}" has all ${maxSessions} sessions it leases to single calls in use, its cap (maxSessions ${maxSessions}), ` +
            `and none came back within ${timeoutMs} ms. Try again later, or raise "maxSessions" of "${this.name}" (or gateway.maxSessionsPerUpstream).`,
          { upstream: this.name, maxSessions },
        ),
    });
  }

  get name(): string {
    return this.config.name;
  }

  health(): UpstreamHealth {
    const catalog = this.state === 'up' ? this.catalogClient : undefined;
    return {
      name: this.name,
      state: this.state,
      transport: this.config.transport,
      ...(catalog ? { revision: catalog.revision } : {}),
      ...(this.lastError !== undefined && this.state !== 'up' ? { lastError: this.lastError } : {}),
      restarts: this.restarts,
      sessions: Math.max(0, this.open.size - (this.catalogClient ? 1 : 0)),
      sessionsReopened: this.sessionsReopened,
      sessionsLost: this.sessionsLost,
      leaseWaits: this.leases.waiting,
    };
  }

  private catalogClient: Client | undefined;
  private catalogOpen: UpstreamSession | undefined;
  /** What the server offered when last connected (kept while it is down); undefined until then. */
  capabilities: ServerCapabilities | undefined;

  /** The catalog session if it is up now, without a promise (the gateway's per-call path). */
  openCatalog(): UpstreamSession | undefined {
    return this.state === 'up' && !this.stopped ? this.catalogOpen : undefined;
  }

  /** The gateway's own session, connected on first use; fails fast while the upstream is down. */
  catalog(): Promise<UpstreamSession> {
    if (this.stopped) return Promise.reject(this.unavailable());
    if (this.state === 'failing' || this.state === 'circuit-open') return Promise.reject(this.unavailable());
    this.catalogSession ??= this.connectCatalog();
    return this.catalogSession;
  }

  /** A session of one downstream client, declaring what that client can answer. */
  async session(capabilities: ClientCapabilities, onClosed: () => void): Promise<UpstreamSession> {
    const { maxSessions } = this.config;
    if (this.clientSessions >= maxSessions) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Upstream "${this.name}" already has ${this.clientSessions} sessions open for clients, its cap (maxSessions ${maxSessions}). ` +
          `Try again when a client's session ends or idles out, or raise "maxSessions" of "${this.name}" (or gateway.maxSessionsPerUpstream).`,
        { upstream: this.name, maxSessions },
      );
    }
    this.clientSessions++;
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      this.clientSessions--;
    };
    try {
      return await this.openSession(capabilities, () => {
        release();
        onClosed();
      });
    } catch (error) {
      release();
      throw error;
    }
  }

  private async openSession(
    capabilities: ClientCapabilities,
    onClosed: () => void,
  ): Promise<UpstreamSession> {
    if (this.stopped || this.state === 'failing' || this.state === 'circuit-open') throw this.unavailable();
    const router = new CallRouter(false, this.activity);
    // Every log message comes to the gateway, which passes on what the client's level lets through.
    const client = this.client(router, capabilities, 'debug');
    await this.connect(client, onClosed);
    return { client, router };
  }

  /**
   * A session for one call alone (a 2026-07-28 client's call to a legacy upstream, whose questions
   * come as requests on the session): an idle one, a new one, or beyond `maxSessions` the first to
   * come back, waited for at most `timeoutMs` and never past the call's cancellation (see
   * {@link LeasePool}). Give it back with {@link giveBack}, or {@link discard} it.
   */
  lease(ctx: RequestContext): Promise<UpstreamSession> {
    if (this.stopped) return Promise.reject(this.unavailable());
    return this.leases.lease(() => cancellationOf(ctx));
  }

  /** A leased session is free again: to a waiting call, kept for the next, or closed. */
  giveBack(session: UpstreamSession): void {
    if (this.stopped || !this.open.has(session.client)) return;
    this.leases.giveBack(session);
  }

  /** A leased session whose call ended without the upstream's answer: closed, never reused. */
  discard(session: UpstreamSession): void {
    void session.client.close();
  }

  /**
   * Whether `error` is the HTTP channel's account of an exchange with this upstream that failed
   * (not reached, its event stream broke or ended without the answer, an answer it could not use)
   * rather than the upstream's own JSON-RPC error: the channel's errors name the URL they concern.
   * An HTTP error status is the server's answer, and a sign-in that failed (`Could not sign in`: a
   * caller without the token the upstream needs) the caller's; both are passed on as they are.
   */
  failedExchange(error: unknown): error is ProtocolError {
    if (this.origin === undefined || !(error instanceof ProtocolError)) return false;
    if (error.code !== ErrorCode.InternalError || error instanceof UpstreamFailure) return false;
    const data = isPlainObject(error.data) ? error.data : undefined;
    if (data === undefined || data.httpStatus !== undefined || error.message.startsWith('Could not sign in'))
      return false;
    return typeof data.url === 'string' && data.url.startsWith(this.origin);
  }

  /**
   * A call's HTTP exchange failed (see {@link failedExchange}), or the health check found the
   * upstream idle (see {@link checkHealth}): the catalog session is pinged, once at a time. An
   * upstream that does not answer is failing, as when its catalog session dies: `/readyz` says so,
   * calls fail at once naming it, and it is reconnected with a backoff (its downstream clients' own
   * sessions stay, reopened by the channel when the upstream forgot them). A 2026-07-28 session is
   * asked `server/discover` instead, which that revision's servers must answer (it has no `ping`).
   * A ping answered with method-not-found is answered: the server is there, it only does not
   * implement `ping` (some do not).
   */
  suspect(): void {
    const client = this.catalogClient;
    if (this.probing || this.state !== 'up' || this.stopped || client === undefined) return;
    this.probing = true;
    const { connectTimeoutMs } = this.config;
    const method = client.era === 'modern' ? 'server/discover' : 'ping';
    const probe =
      method === 'ping'
        ? client.ping({ timeoutMs: connectTimeoutMs })
        : client.request(method, {}, { timeoutMs: connectTimeoutMs });
    probe
      .catch((error: unknown) => {
        if (error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound) return;
        if (this.catalogClient !== client || this.state !== 'up') return;
        this.catalogClient = undefined;
        this.catalogOpen = undefined;
        // The limit in play is the connect time, not a call's timeoutMs: say so.
        this.failed(
          error instanceof SwitchboardError && error.code === 'TIMEOUT'
            ? new Error(
                `it did not answer ${method} within ${connectTimeoutMs} ms (connectTimeoutMs); it may be hung or overloaded`,
              )
            : error,
        );
        void client.close();
      })
      .finally(() => {
        this.probing = false;
      });
  }

  /**
   * One tick of the health check: an upstream that had no call started since the last tick, and
   * none running, is pinged (see {@link suspect}). An HTTP connection is no process the gateway can
   * watch, and a stdio server may hang without exiting: without this, only a failed call would
   * tell. A call that ran tells as much itself (a failed exchange is suspected, a hang times out),
   * and pinging under a running call could time out behind it on a server that serves one request
   * at a time.
   */
  private checkHealth(): void {
    if (this.activity.idle()) this.suspect();
  }

  /** The health check runs while the catalog session is up; never keeps the process alive. */
  private startHealthChecks(): void {
    this.stopHealthChecks();
    const every = this.config.healthCheckIntervalMs;
    if (every === 0 || this.stopped) return;
    // A period starts now: a call before the upstream came up says nothing about this session.
    this.activity.started = false;
    this.healthTimer = setInterval(() => this.checkHealth(), every);
    this.healthTimer.unref?.();
  }

  private stopHealthChecks(): void {
    clearInterval(this.healthTimer);
    this.healthTimer = undefined;
  }

  /** Closes every session (stdio servers get stdin → SIGTERM → SIGKILL) and stops reconnecting. */
  async close(): Promise<void> {
    this.stopped = true;
    this.leases.close(() => this.unavailable());
    this.state = 'stopped';
    clearTimeout(this.retryTimer);
    this.stopHealthChecks();
    await Promise.allSettled([...this.open].map((client) => client.close()));
  }

  /**
   * Whether the start is over for this upstream: its first connection was tried (up, or failed
   * within its connect time). A lazily started one that nobody used yet counts as started.
   */
  get started(): boolean {
    return this.tried || (this.state === 'idle' && this.config.startup === 'lazy');
  }

  private async connectCatalog(): Promise<UpstreamSession> {
    this.state = 'starting';
    const router = new CallRouter(true, this.activity);
    // The catalog answers for any client: it declares every kind of input and routes each question.
    const client = this.client(router, EVERY_INPUT);
    try {
      await this.connect(client, (why) => {
        if (this.catalogClient !== client) return;
        this.catalogClient = undefined;
        this.catalogOpen = undefined;
        // The channel's own account (an HTTP+SSE stream that ended, a process that exited with its
        // stderr) is what `/readyz` shows until the reconnect says more.
        this.failed(why ?? new Error('the connection closed'));
      });
    } catch (error) {
      this.tried = true;
      this.failed(error);
      throw this.unavailable();
    }
    this.tried = true;
    this.catalogClient = client;
    this.catalogOpen = { client, router };
    const changed = JSON.stringify(client.serverCapabilities) !== JSON.stringify(this.capabilities);
    this.capabilities = client.serverCapabilities;
    if (changed) this.hooks.capabilitiesChanged?.();
    this.state = 'up';
    this.failures = 0;
    this.lastError = undefined;
    this.startHealthChecks();
    this.hooks.catalogChanged(this);
    return { client, router };
  }

  /** The catalog failed: report it, and try again after a backoff that doubles up to 30 s. */
  private failed(error: unknown): void {
    this.catalogSession = undefined;
    // Reconnecting is its own check: the next session starts the ticks again once up.
    this.stopHealthChecks();
    if (this.stopped) return;
    this.failures++;
    this.lastError = failureText(error);
    this.state = this.failures >= CIRCUIT_FAILURES ? 'circuit-open' : 'failing';
    this.hooks.logger.warn(`gateway: upstream "${this.name}" is ${this.state}: ${this.lastError}`);
    this.hooks.catalogChanged(this);
    const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.failures - 1));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.stopped) return;
      this.restarts++;
      this.hooks.restarted?.(this);
      this.state = 'idle';
      this.catalog().catch(() => undefined);
    }, delay);
    this.retryTimer.unref?.();
  }

  private unavailable(): ProtocolError {
    const why = this.stopped ? 'the gateway is stopping' : (this.lastError ?? 'it is not connected');
    return new ProtocolError(
      ErrorCode.InternalError,
      `Upstream "${this.name}" is unavailable (${this.state}): ${why}`,
    );
  }

  private client(router: CallRouter, capabilities: ClientCapabilities, logLevel?: LoggingLevel): Client {
    const client = new Client(
      { name: 'switchboard-gateway', version: this.hooks.version },
      {
        timeoutMs: this.config.timeoutMs,
        cache: false,
        // A tool that runs as a task upstream is followed to its end (the gateway's own task, if any,
        // is what its client holds).
        tasks: true,
        // Skills (SEP-2640): the gateway lists them and forwards their reads.
        skills: true,
        logger: this.hooks.logger,
        ...(logLevel === undefined ? {} : { logLevel }),
      },
    );
    const ask = async <T>(
      question: (ctx: RequestContext, options: InputCallOptions) => Promise<T>,
      input: InputContext,
      /** What the upstream is told while its question goes to the downstream client (never sent: see below). */
      unsent: T,
    ): Promise<T> => {
      const call = router.target(input.cancelledBy);
      if (call === undefined) {
        throw new ProtocolError(
          ErrorCode.InvalidRequest,
          router.shared
            ? 'The gateway cannot tell which client this question is for (several calls are in flight on a shared session).'
            : 'The gateway has no request of this client in flight to ask the question in.',
        );
      }
      try {
        // The upstream's key for the question is the downstream client's too (2026-07-28).
        return await question(call.ctx, input.key === undefined ? {} : { key: input.key });
      } catch (error) {
        if (!(error instanceof InputRequiredError)) throw error;
        // 2026-07-28 downstream: the downstream request answers input_required (with every question
        // of the upstream's input_required: the client goes on to the next one) and runs again with
        // the answers. The upstream call is stopped before its retry leaves, so `unsent` never does.
        call.inputRequired ??= error;
        call.stop(error);
        if (input.era === 'modern' && call.stoppable) return unsent;
        throw error;
      }
    };
    const elicitation = capabilities.elicitation as { form?: object; url?: object } | undefined;
    if (elicitation) {
      client.onElicitation(
        (params, input) =>
          ask(
            async (ctx, options) => {
              const outcome = await ctx.elicit(params as Parameters<RequestContext['elicit']>[0], options);
              return outcome as unknown as ElicitResult;
            },
            input,
            { action: 'cancel' },
          ),
        // A legacy `elicitation: {}` means form.
        {
          form: elicitation.form !== undefined || elicitation.url === undefined,
          url: elicitation.url !== undefined,
        },
      );
    }
    if (capabilities.sampling) {
      client.onSampling((params, input) =>
        ask((ctx, options) => ctx.sample(params, options), input, UNSENT_SAMPLE),
      );
    }
    if (capabilities.roots) {
      client.setRoots((input) => ask((ctx, options) => ctx.listRoots(options), input, []));
    }
    client.onLog((message) => {
      router.target()?.ctx.log(message.level, message.data, message.logger);
    });
    return client;
  }

  /** `onClosed` is told why the session ended when its channel says (undefined: closed by the gateway, or no reason). */
  private async connect(client: Client, onClosed: (why?: Error) => void): Promise<void> {
    let last: Channel | undefined;
    let connected = false;
    this.open.add(client);
    // Negotiation may open a second channel (a legacy server that hung up on the modern probe):
    // only the close of the one in use after connecting ends the session.
    let abandoned = false;
    const open = (): Channel => {
      // Past the connect time nothing new starts (negotiation would open a second channel when the
      // first closes under its probe).
      if (abandoned)
        throw new SwitchboardError('NOT_CONNECTED', `the connection to "${this.name}" was abandoned`);
      const made = this.channel();
      const channel = this.hooks.wrapChannel ? this.hooks.wrapChannel(made, this.name) : made;
      last = channel;
      return new CloseWatch(
        channel,
        (unexpected, why) => {
          if (!connected || last !== channel) return;
          this.open.delete(client);
          if (unexpected && !this.stopped) this.lost();
          onClosed(unexpected ? why : undefined);
        },
        () => {
          if (connected && last === channel) this.reopened(client);
        },
      );
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const { connectTimeoutMs } = this.config;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new SwitchboardError(
              'TIMEOUT',
              `"${this.name}" did not finish connecting within ${connectTimeoutMs} ms (connectTimeoutMs). ` +
                'Check that it runs and answers initialize (switchboard check <command or url>), or raise connectTimeoutMs.',
            ),
          ),
        connectTimeoutMs,
      );
    });
    const connecting = client.connect(open);
    try {
      await Promise.race([connecting, late]);
      connected = true;
    } catch (error) {
      // Past the connect time: the attempt is abandoned (closing the client stops its process).
      abandoned = true;
      connecting.catch(() => undefined);
      this.open.delete(client);
      await client.close().catch(() => undefined);
      // The stdio channel's error already quotes the end of the server's stderr.
      throw error;
    } finally {
      clearTimeout(timer);
    }
    this.era = client.era;
  }

  /**
   * The upstream forgot a session (HTTP 404) and its channel opened a new one for the same client,
   * whose own state the client set up again (see `ChannelSink.renewed`). The catalog's lists are
   * read again: a restarted server may serve others.
   */
  private reopened(client: Client): void {
    this.sessionsReopened++;
    this.hooks.logger.warn(
      `gateway: upstream "${this.name}" forgot a session (HTTP 404); a new one took its place for the same client`,
    );
    this.hooks.sessionReopened?.(this);
    if (client === this.catalogClient) this.hooks.catalogChanged(this);
  }

  /** A session ended under the gateway (its server exited, its connection dropped). */
  private lost(): void {
    this.sessionsLost++;
    this.hooks.sessionLost?.(this);
  }

  private channel(): Channel {
    const { config } = this;
    if (config.transport === 'stdio') {
      return openTarget(
        { kind: 'stdio', command: config.command, args: config.args, env: config.env, cwd: config.cwd },
        {
          stdio: {
            stderr: 'pipe',
            ...(this.era !== undefined ? { preferredEra: this.era } : {}),
            logger: this.hooks.logger,
          },
        },
      );
    }
    return openTarget(
      { kind: 'http', url: config.url, headers: config.headers },
      {
        http: {
          fetch: this.hooks.fetchFor?.(config),
          transport: config.transport === 'sse' ? 'sse' : 'auto',
        },
      },
    );
  }
}

const UNSENT_SAMPLE: CreateMessageResult = {
  role: 'assistant',
  content: { type: 'text', text: '' },
  model: 'switchboard-gateway',
};

/**
 * A channel that also tells `onClosed` when it closes, for whatever reason (`unexpected` when it
 * closed on its own rather than by `close()`: a server that exited, a connection that dropped, with
 * the channel's error if it gave one), and `onRenewed` when it replaced its session with the server
 * by a new one.
 */
export class CloseWatch extends ChannelDecorator {
  #told = false;
  #closing = false;

  constructor(
    inner: Channel,
    private readonly onClosed: (unexpected: boolean, error?: Error) => void,
    private readonly onRenewed: () => void = () => {},
  ) {
    super(inner);
  }

  override close(): Promise<void> {
    this.#closing = true;
    return super.close().finally(() => this.tell());
  }

  protected override closed(error: Error | undefined, sink: ChannelSink): void {
    this.tell(error);
    super.closed(error, sink);
  }

  protected override renewed(sink: ChannelSink): void {
    this.onRenewed();
    super.renewed(sink);
  }

  private tell(error?: Error): void {
    if (this.#told) return;
    this.#told = true;
    this.onClosed(!this.#closing, error);
  }
}

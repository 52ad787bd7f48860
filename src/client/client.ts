/**
 * The client: connects over any Channel, works out which era the server speaks, and offers a typed
 * method for every request. Results come back in the same shape from both eras, and every built-in
 * method's result is shape-checked (`protocol/results.ts`) before its caller sees it.
 *
 * `ClientCore` is the client without extensions; the `Client` users import (`extensions/client.ts`)
 * adds tasks and MCP Apps through the protected hooks below.
 */
import type { Channel, InboundExtra } from '../engine/channel.js';
import { compose, type MethodHandler, type Middleware } from '../engine/middleware.js';
import {
  type Cancellable,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type InboundRequest,
  Peer,
  type ProgressUpdate,
  type RequestOptions,
} from '../engine/peer.js';
import { encodeClientCapabilities, encodeImplementation } from '../protocol/codec.js';
import { ErrorCode, invalidRequest, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import { SerializedMeta } from '../protocol/frames.js';
import type { JsonRpcNotification, Params } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type { KnownMethod, ParamsOf, ResultOf } from '../protocol/method-map.js';
import { methodSpec } from '../protocol/methods.js';
import {
  type Era,
  featuresOf,
  isLegacyRevision,
  isModernRevision,
  LATEST_LEGACY_REVISION,
  LEGACY_REVISIONS,
  type LegacyRevision,
  MODERN_REVISIONS,
  type ModernRevision,
  type Revision,
} from '../protocol/revisions.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  Meta,
  ReadResourceResult,
  ServerCapabilities,
  SubscriptionFilter,
  Tool,
} from '../protocol/types.js';
import {
  type CompiledSchema,
  compileSchema,
  formatIssues,
  type InferInput,
  type SchemaLike,
} from '../schema/index.js';
import { loadLinearPatterns, mayHavePatterns } from '../schema/linear-pattern.js';
import { asError, isPlainObject } from '../util/guards.js';
import { type Logger, withOnerror } from '../util/logger.js';
import { ResultCache } from './cache.js';
import {
  type ElicitationHandler,
  type ElicitationOptions,
  type InputContext,
  InputHandlers,
  type RootsProvider,
  type SamplingHandler,
  type SamplingOptions,
} from './input-handlers.js';
import { type ListenHandlers, type Subscription, SubscriptionManager } from './subscriptions.js';

/**
 * How the client picks the protocol era:
 * - `auto` (default): probe with `server/discover`; fall back to `initialize` on any error that is
 *   not a recognised modern error, or on timeout (the spec's rule).
 * - `legacy`: `initialize` only.
 * - `{ pin: revision }`: exactly that revision, or fail.
 */
export type VersionNegotiation = 'auto' | 'legacy' | { pin: Revision };

export interface ClientCoreOptions {
  /** Capabilities to declare to the server. */
  capabilities?: ClientCapabilities;
  version?: VersionNegotiation;
  /** Default timeout of every call. Default 60 s. */
  timeoutMs?: number;
  /** How long `auto` waits for `server/discover` before falling back to `initialize`. Default: `timeoutMs`. */
  probeTimeoutMs?: number;
  /** Page cap when a list call walks all pages. Default 100. */
  maxPages?: number;
  /** Cache cacheable 2026-07-28 results per their `ttlMs`. Default true. */
  cache?: boolean;
  /**
   * Where problems go that concern no single call (a malformed frame, a failing listener, an output
   * schema that cannot be compiled, a tool an HTTP channel dropped): `console`, or any
   * {@link Logger}. The channels this client connects use it too, unless given their own. Default: silent.
   */
  logger?: Logger;
  /** Receives the errors the logger would (kept from before `logger`; both are called when both are given). */
  onerror?: (error: Error) => void;
  /**
   * Ask the server for log messages at this level and above: on 2026-07-28 every request carries
   * `_meta["io.modelcontextprotocol/logLevel"]`; on legacy connections `logging/setLevel` is sent
   * after initialize (when the server offers logging). Receive them with `onLog()`.
   */
  logLevel?: LoggingLevel;
  /** 2026-07-28: how many `input_required` rounds one call may take before it fails. Default 8. */
  maxInputRounds?: number;
}

/** A log message from the server (`notifications/message`). */
export interface LogMessage {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Cancels the call like `signal`, told by a listener instead (an inbound request a gateway forwards). */
  cancelledBy?: Cancellable;
  timeoutMs?: number;
  onprogress?: (update: ProgressUpdate) => void;
  /** Whether progress restarts the timeout. Default true. */
  resetTimeoutOnProgress?: boolean;
  /** Upper bound however much progress arrives. Default 10 minutes. */
  maxTotalTimeoutMs?: number;
  /** Extra `_meta` for the request. */
  meta?: Meta;
  /** Skip the 2026-07-28 result cache for this call. */
  fresh?: boolean;
  /**
   * 2026-07-28: the call is made for another client (a gateway forwarding that client's request):
   * its capabilities and log level go in the request's `_meta` instead of this client's.
   */
  onBehalfOf?: { capabilities: ClientCapabilities; logLevel: LoggingLevel | undefined };
  /**
   * 2026-07-28, for a proxy carrying its own client's input rounds: an `input_required` answer is
   * returned as it is (its questions for that client, not this one's handlers), and a retry's
   * `inputResponses` and `requestState` (the server's own, echoed) go with the request.
   */
  carryInput?: { inputResponses?: Params | undefined; requestState?: string | undefined };
}

export interface ListOptions extends CallOptions {
  /** Fetch the single page after this cursor instead of walking every page. */
  cursor?: string;
  /** Fetch only the first page. */
  singlePage?: boolean;
}

/** Options of `client.request()`. */
export interface RequestCallOptions<R extends SchemaLike | undefined = undefined> extends CallOptions {
  /**
   * A schema of the result (zod, valibot, arktype or raw JSON Schema), for a method the client does
   * not know: the result is checked against it (`INVALID_RESULT`) and typed by it.
   */
  result?: R;
  /**
   * Hand the result over as the server sent it, without the method's shape check (a conformance
   * checker that judges results itself). `resultType` is still checked.
   */
  unchecked?: boolean;
}

/** The params (and options) of `client.request(method, ...)`: params may be left out when the method needs none. */
export type RequestArgs<M extends string, R extends SchemaLike | undefined> =
  {} extends ParamsOf<M>
    ? [params?: ParamsOf<M>, options?: RequestCallOptions<R>]
    : [params: ParamsOf<M>, options?: RequestCallOptions<R>];

/** What `client.request(method, ...)` resolves with: the result schema's type, else the typed map's. */
export type RequestResult<M extends string, R> = R extends SchemaLike ? InferInput<R> : ResultOf<M>;

/** What sending middleware sees about the call it wraps. */
export interface ClientCallContext {
  readonly client: ClientCore;
  readonly options: CallOptions;
}

type NotificationListener = (params: Params, extra: InboundExtra | undefined) => void;

const DEFAULT_MAX_PAGES = 100;
/** Envelopes kept for the clients a client calls for (see `onBehalfOf`); past it, they are made again. */
const MAX_ON_BEHALF_ENVELOPES = 64;
const DEFAULT_MAX_INPUT_ROUNDS = 8;
/**
 * A legacy server's requests (elicitation, sampling, roots) served at once, and waiting beyond
 * that; past both, refused with an error. A server flooding the client must not run `onElicitation`
 * thousands of times at once (issue 15).
 */
const SERVER_REQUEST_LIMIT = { concurrent: 16, queued: 1024 } as const;

/** A connection's negotiated facts. */
interface Negotiated {
  revision: Revision;
  serverInfo: Implementation | undefined;
  capabilities: ServerCapabilities;
  instructions: string | undefined;
}

export class ClientCore {
  readonly info: Implementation;
  protected readonly options: ClientCoreOptions;
  private readonly logger: Logger;
  private peer: Peer | undefined;
  private negotiated: Negotiated | undefined;
  /** The 2026-07-28 `_meta` every request carries, serialized once (rebuilt when it changes). */
  private envelope: SerializedMeta | undefined;
  /** Envelopes of calls made for other clients (a gateway's callers), by capabilities and log level, made from `onBehalfBase`. */
  private readonly onBehalf = new Map<string, SerializedMeta>();
  private onBehalfBase: SerializedMeta | undefined;
  private readonly cache: ResultCache | undefined;
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  private readonly middleware: Middleware<ClientCallContext>[] = [];
  private chain: MethodHandler<ClientCallContext>;
  private readonly outputValidators = new Map<string, CompiledSchema>();
  protected readonly inputs = new InputHandlers();
  private logLevel: LoggingLevel | undefined;
  /** Legacy: whether `roots.listChanged` was declared at initialize (so root changes may be announced). */
  private rootsDeclared = false;
  private readonly subscriptions: SubscriptionManager;
  /** The JSON each output validator was compiled from: a relisted, unchanged schema is not recompiled. */
  private readonly outputSchemaJson = new Map<string, string>();

  constructor(info: Implementation, options: ClientCoreOptions = {}) {
    if (!info || typeof info.name !== 'string' || typeof info.version !== 'string') {
      throw new SwitchboardError(
        'CONFIG',
        'new Client(info): info needs a string "name" and "version", e.g. { name: "my-app", version: "1.0.0" }.',
      );
    }
    this.info = info;
    this.options = options;
    this.logger = withOnerror(options.logger, options.onerror);
    this.cache = options.cache === false ? undefined : new ResultCache();
    this.chain = (method, params, ctx) => this.send(method, params, ctx.options);
    this.logLevel = options.logLevel;
    this.subscriptions = new SubscriptionManager({
      era: () =>
        this.negotiated && this.peer && !this.peer.closed
          ? featuresOf(this.negotiated.revision).era
          : undefined,
      serverCapabilities: () => this.facts.capabilities,
      request: (method, params, callOptions) => this.call(method, params, callOptions),
      notify: (method, params) => this.peer?.notify(method, params),
      ackTimeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      report: (error) => this.logger.error(error),
    });
  }

  // --- connection ----------------------------------------------------------------------------

  /**
   * Connects and negotiates the era. Pass a factory instead of a channel to let `auto` negotiation
   * start a fresh channel when a legacy server hangs up on the `server/discover` probe (some do).
   */
  async connect(channel: Channel | (() => Channel)): Promise<void> {
    if (this.peer && !this.peer.closed) {
      throw new SwitchboardError(
        'CONFIG',
        'This client is already connected; close() it first or create another Client.',
      );
    }
    const open = typeof channel === 'function' ? channel : undefined;
    const first = open ? open() : (channel as Channel);
    this.attach(first);
    const mode = this.options.version ?? 'auto';
    try {
      if (mode === 'legacy') {
        await this.initialize(LATEST_LEGACY_REVISION);
      } else if (typeof mode === 'object') {
        if (isModernRevision(mode.pin)) await this.discoverPinned(mode.pin);
        else if (isLegacyRevision(mode.pin)) await this.initialize(mode.pin, true);
        else
          throw new SwitchboardError(
            'CONFIG',
            `Cannot pin unknown protocol revision ${JSON.stringify(mode.pin)}; known: ${[...MODERN_REVISIONS, ...LEGACY_REVISIONS].join(', ')}.`,
          );
      } else {
        await this.negotiateAuto(open, first.preferredEra);
      }
    } catch (error) {
      await this.peer?.close().catch(() => undefined);
      throw error;
    }
    // A reconnection: subscriptions the old connection lost open again on this one.
    this.subscriptions.connected();
  }

  private attach(channel: Channel): void {
    this.negotiated = undefined;
    this.envelope = undefined;
    this.cache?.clear();
    // Output schemas belong to the server they were listed from, not to the next one.
    this.outputValidators.clear();
    this.connectionReset();
    this.outputSchemaJson.clear();
    const peer = new Peer(
      channel,
      {
        request: (request) => this.onRequest(request),
        notification: (n, extra) => this.onNotification(n, extra),
        batch: () => this.batchVerdict(),
        error: (error) => this.logger.error(error),
        closed: () => {
          if (this.peer === peer) this.subscriptions.disconnected();
        },
        renewed: () => {
          if (this.peer === peer) this.sessionRenewed();
        },
      },
      {
        timeoutMs: this.options.timeoutMs,
        logger: this.options.logger || this.options.onerror ? this.logger : undefined,
        inboundLimit: SERVER_REQUEST_LIMIT,
      },
    );
    this.peer = peer;
    peer.start();
  }

  /**
   * The channel replaced the legacy session by a new one (the server forgot the old one, 404): what
   * the old one held at the server is set up again, the log level and the resource subscriptions,
   * and results cached from the old one are dropped.
   */
  private sessionRenewed(): void {
    this.cache?.clear();
    this.subscriptions.renewed();
    const level = this.logLevel;
    if (level === undefined || !this.negotiated?.capabilities.logging) return;
    this.peer!.request('logging/setLevel', { level }).catch((error: unknown) =>
      this.logger.error(asError(error)),
    );
  }

  private async negotiateAuto(open: (() => Channel) | undefined, preferred: Era | undefined): Promise<void> {
    if (preferred === 'legacy') {
      // The channel knows this server as legacy: handshake at once, and probe only if that fails.
      try {
        await this.initialize(LATEST_LEGACY_REVISION);
        return;
      } catch (error) {
        if (this.peer!.closed) throw error;
      }
    }
    // Default: the ordinary request timeout. A stdio server's start-up (npx fetching a package, say)
    // counts against the probe, and a premature fallback would lose the modern era for good.
    const probeTimeout = this.options.probeTimeoutMs ?? this.options.timeoutMs;
    let revision: ModernRevision = MODERN_REVISIONS[0];
    this.probeUnanswered = false;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.discover(revision, probeTimeout);
        return;
      } catch (error) {
        this.probeUnanswered = error instanceof SwitchboardError && error.code === 'TIMEOUT';
        // The transport itself failed (nothing to spawn, nothing listening): no handshake can help.
        const cause = (error as { cause?: unknown }).cause;
        if (cause instanceof SwitchboardError && cause.code === 'TRANSPORT') throw cause;
        // Retry with a version the server lists; once even with the same one (see discoverPinned).
        const retry = this.modernRetryVersion(error);
        if (retry && (retry !== revision || attempt === 0)) {
          revision = retry;
          continue;
        }
        break;
      }
    }
    // Not a modern server we can talk to: the legacy handshake, on a fresh channel if the probe killed it.
    if (this.peer!.closed) {
      if (!open) {
        throw new SwitchboardError(
          'CONNECTION_CLOSED',
          `${this.peer!.label} closed during the server/discover probe, so the legacy fallback cannot run. ` +
            'Pass a channel factory to connect() so a fresh channel can be opened, or use version: "legacy".',
        );
      }
      this.attach(open());
    }
    await this.initialize(
      LATEST_LEGACY_REVISION,
      false,
      'it answered neither server/discover nor initialize: check that the command or URL is an MCP server.',
    );
  }

  /** A pinned modern revision: a server that refuses the probe does not speak it. */
  private async discoverPinned(revision: ModernRevision): Promise<void> {
    try {
      await this.discover(revision, this.options.timeoutMs).catch((error: unknown) => {
        // -32022 whose `supported` lists the very version we sent contradicts itself (a node behind
        // the same endpoint that is not upgraded yet, say): the spec's "retry with a supported
        // version" then means sending it again, once.
        if (this.modernRetryVersion(error) !== revision) throw error;
        return this.discover(revision, this.options.timeoutMs);
      });
    } catch (error) {
      throw handshakeRefused(
        'server/discover',
        revision,
        error,
        'if it speaks only legacy revisions, use version "auto".',
      );
    }
  }

  /** On -32022 with a modern version we speak in `supported`, the version to retry with. */
  private modernRetryVersion(error: unknown): ModernRevision | undefined {
    if (!(error instanceof ProtocolError) || error.code !== ErrorCode.UnsupportedProtocolVersion)
      return undefined;
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    if (!Array.isArray(supported)) return undefined;
    return MODERN_REVISIONS.find((r) => supported.includes(r));
  }

  private async discover(revision: ModernRevision, timeoutMs: number | undefined): Promise<void> {
    this.envelope = this.buildEnvelope(revision);
    const result = await this.peer!.request('server/discover', {}, { timeoutMs }, this.envelope);
    const supported = Array.isArray(result.supportedVersions) ? (result.supportedVersions as unknown[]) : [];
    if (!supported.includes(revision)) {
      const other = MODERN_REVISIONS.find((r) => supported.includes(r));
      if (other) return this.discover(other, timeoutMs);
      this.envelope = undefined;
      throw new SwitchboardError(
        'NEGOTIATION_FAILED',
        `The server supports protocol ${supported.join(', ') || '(none listed)'}, none of which this client speaks in the modern era.`,
      );
    }
    this.negotiated = {
      revision,
      serverInfo: (result._meta as Meta | undefined)?.[META.serverInfo] as Implementation | undefined,
      capabilities: (result.capabilities as ServerCapabilities | undefined) ?? {},
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    };
  }

  /**
   * The legacy handshake. `advice` ends the NEGOTIATION_FAILED message when the server refuses it:
   * what to try next depends on how we got here (explicit legacy, a pin, or auto's fallback).
   */
  private async initialize(
    requested: LegacyRevision,
    pinned = false,
    advice = 'if it speaks only 2026-07-28, use version "auto".',
  ): Promise<void> {
    const f = featuresOf(requested);
    const result = await this.peer!.request(
      'initialize',
      {
        protocolVersion: requested,
        capabilities: encodeClientCapabilities(this.declaredCapabilities(), f),
        clientInfo: encodeImplementation(this.info, f),
      },
      { sendCancellation: false },
    ).catch((error: unknown) => {
      throw handshakeRefused('initialize', requested, error, advice);
    });
    const revision = result.protocolVersion;
    if (!isLegacyRevision(revision) || (pinned && revision !== requested)) {
      throw new SwitchboardError(
        'NEGOTIATION_FAILED',
        `The server answered initialize with protocol version ${JSON.stringify(revision)}, which this client ` +
          (pinned
            ? `does not accept (pinned to ${requested}).`
            : `does not speak (it speaks ${LEGACY_REVISIONS.join(', ')}).`),
      );
    }
    this.negotiated = {
      revision,
      serverInfo: result.serverInfo as Implementation | undefined,
      capabilities: (result.capabilities as ServerCapabilities | undefined) ?? {},
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
    };
    this.rootsDeclared = this.inputs.hasRoots;
    this.peer!.notify('notifications/initialized');
    if (this.logLevel !== undefined && this.negotiated.capabilities.logging) {
      // A log level is a preference, not a reason to fail the connection.
      await this.peer!.request('logging/setLevel', { level: this.logLevel }).catch((error: unknown) =>
        this.logger.error(asError(error)),
      );
    }
  }

  /** Assumes, as the server's caches do, that `info` is not mutated once the client is connected. */
  private buildEnvelope(revision: ModernRevision): SerializedMeta {
    const f = featuresOf(revision);
    const envelope: Meta = {
      [META.protocolVersion]: revision,
      [META.clientCapabilities]: encodeClientCapabilities(this.declaredCapabilities(), f),
      [META.clientInfo]: encodeImplementation(this.info, f),
    };
    if (this.logLevel !== undefined) envelope[META.logLevel] = this.logLevel;
    return new SerializedMeta(Object.freeze(envelope));
  }

  /**
   * The envelope of a call made for another client that adds nothing else to it, serialized once
   * per capabilities and log level (a gateway forwards every call of a 2026-07-28 client so).
   */
  private onBehalfEnvelope(options: CallOptions, envelope: SerializedMeta): SerializedMeta {
    if (this.onBehalfBase !== envelope) {
      this.onBehalf.clear();
      this.onBehalfBase = envelope;
    }
    const other = options.onBehalfOf!;
    const key = `${other.logLevel ?? ''}\n${JSON.stringify(other.capabilities)}`;
    let found = this.onBehalf.get(key);
    if (found === undefined) {
      if (this.onBehalf.size >= MAX_ON_BEHALF_ENVELOPES) this.onBehalf.clear();
      found = new SerializedMeta(Object.freeze(this.envelopeFor(options)!));
      this.onBehalf.set(key, found);
    }
    return found;
  }

  /** The envelope of one call: this client's, or the one of the client it is made for. */
  private envelopeFor(options: CallOptions): Meta | undefined {
    const other = options.onBehalfOf;
    if (other === undefined || this.envelope === undefined) return this.envelope?.value;
    const envelope: Meta = {
      ...this.envelope.value,
      [META.clientCapabilities]: encodeClientCapabilities(
        other.capabilities,
        featuresOf(this.facts.revision),
      ),
    };
    if (other.logLevel === undefined) delete envelope[META.logLevel];
    else envelope[META.logLevel] = other.logLevel;
    return envelope;
  }

  /** The options' capabilities merged with those the registered input handlers (and extensions) imply. */
  protected declaredCapabilities(): ClientCapabilities {
    const declared: Record<string, unknown> = { ...this.inputs.capabilities() };
    this.extendCapabilities(declared);
    for (const [key, value] of Object.entries(this.options.capabilities ?? {})) {
      const derived = declared[key];
      declared[key] =
        typeof derived === 'object' && typeof value === 'object' && value !== null
          ? { ...derived, ...value }
          : value;
    }
    return declared as ClientCapabilities;
  }

  /** Handlers or the log level changed: modern requests carry the change from the next request on. */
  private refreshEnvelope(): void {
    const revision = this.negotiated?.revision;
    if (revision !== undefined && isModernRevision(revision)) this.envelope = this.buildEnvelope(revision);
  }

  // --- input handlers --------------------------------------------------------------------------

  /**
   * Answers the server's elicitation requests (`ctx.elicit` on a Switchboard server) in both eras;
   * declares the `elicitation` capability with the modes enabled. A form answer is checked against
   * the requested form before it is sent. Pass `null` to remove. On legacy connections register
   * handlers before `connect()`: capabilities are fixed at initialize.
   */
  onElicitation(handler: ElicitationHandler | null, options?: ElicitationOptions): this {
    this.inputs.setElicitation(handler ?? undefined, options);
    this.refreshEnvelope();
    return this;
  }

  /**
   * Answers the server's sampling requests with your model; declares `sampling` (plus `tools` /
   * `context` when enabled). Pass `null` to remove.
   * @deprecated in 2026-07-28 together with MCP sampling; still served for at least 12 months.
   */
  onSampling(handler: SamplingHandler | null, options?: SamplingOptions): this {
    this.inputs.setSampling(handler ?? undefined, options);
    this.refreshEnvelope();
    return this;
  }

  /**
   * The roots this client exposes (a list, or a function asked each time); declares `roots`. On a
   * legacy connection that declared roots, a change sends `notifications/roots/list_changed`.
   * @deprecated in 2026-07-28 together with MCP roots; still served for at least 12 months.
   */
  setRoots(roots: RootsProvider | null): this {
    this.inputs.setRoots(roots ?? undefined);
    this.refreshEnvelope();
    const peer = this.peer;
    if (
      this.rootsDeclared &&
      peer &&
      !peer.closed &&
      this.negotiated &&
      !featuresOf(this.negotiated.revision).modern
    ) {
      peer.notify('notifications/roots/list_changed');
    }
    return this;
  }

  /** Listens for the server's log messages (see the `logLevel` option). Returns an unsubscribe function. */
  onLog(listener: (message: LogMessage, extra: InboundExtra | undefined) => void): () => void {
    return this.on('notifications/message', (params, extra) =>
      listener(params as unknown as LogMessage, extra),
    );
  }

  /** Closes the connection; pending calls reject with `CONNECTION_CLOSED`, subscriptions end (`closed`). */
  async close(): Promise<void> {
    this.subscriptions.clientClosed();
    await this.peer?.close();
  }

  // --- negotiated facts ----------------------------------------------------------------------

  private get facts(): Negotiated {
    if (!this.negotiated || !this.peer || this.peer.closed) {
      throw new SwitchboardError(
        'NOT_CONNECTED',
        'The client is not connected: await client.connect(channel) first.',
      );
    }
    return this.negotiated;
  }

  get revision(): Revision {
    return this.facts.revision;
  }
  get era(): Era {
    return featuresOf(this.facts.revision).era;
  }
  /**
   * @internal `auto` fell back to the legacy handshake because `server/discover` got no answer in
   * time (rather than a refusal): the server may be modern but slow to start. The CLI does not
   * remember such an era.
   */
  probeUnanswered = false;
  get serverInfo(): Implementation | undefined {
    return this.facts.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities {
    return this.facts.capabilities;
  }
  get instructions(): string | undefined {
    return this.facts.instructions;
  }

  /**
   * Keeps this client's pending calls from timing out (short of their maximum total, 10 minutes)
   * until the returned function is called, after which each has its whole timeout again: for times
   * the answer waits on the user on this side, such as a sign-in an HTTP request runs into
   * (`oauth.fetch(nodeFetch, { holdTimeouts: () => client.holdTimeouts() })`). Without a connection,
   * nothing to hold.
   */
  holdTimeouts(): () => void {
    return this.peer ? this.peer.holdTimeouts() : () => undefined;
  }

  // --- middleware and notifications ----------------------------------------------------------

  /** Adds sending middleware around every request this client makes. The first added is outermost. */
  use(middleware: Middleware<ClientCallContext>): this {
    this.middleware.push(middleware);
    this.chain = compose((method, params, ctx) => this.send(method, params, ctx.options), this.middleware);
    return this;
  }

  /** Listens for a server notification (e.g. `notifications/tools/list_changed`). Returns an unsubscribe function. */
  on(method: string, listener: NotificationListener): () => void {
    let set = this.listeners.get(method);
    if (!set) {
      set = new Set();
      this.listeners.set(method, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * Follows server changes, in either era with the same code: list changes of tools, prompts and
   * resources, and updates of the resources named in `filter.resourceSubscriptions`. On 2026-07-28
   * this holds a `subscriptions/listen` request open; on a legacy connection it subscribes to the
   * URIs (`resources/subscribe`) and listens to the connection's `list_changed` notifications.
   * Pass handlers per notification type, or one function for all.
   *
   * The returned subscription's `acknowledged` settles with the part of `filter` the server agreed
   * to (what its capabilities allow). A subscription whose stream the transport lost re-opens
   * itself: at once while the connection is up, or when `connect()` succeeds again. The result
   * cache is invalidated by these notifications whether or not anyone listens.
   */
  listen(
    filter: SubscriptionFilter,
    handlers: ListenHandlers | ((method: string, params: Params) => void) = {},
  ): Subscription {
    void this.facts;
    return this.subscriptions.open(
      filter,
      typeof handlers === 'function' ? { onNotification: handlers } : handlers,
    );
  }

  private onNotification(notification: JsonRpcNotification, extra: InboundExtra | undefined): void {
    this.cache?.invalidate(notification.method, notification.params);
    this.subscriptions.route(notification);
    const set = this.listeners.get(notification.method);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(notification.params ?? {}, extra);
      } catch (error) {
        this.logger.error(asError(error));
      }
    }
  }

  private async onRequest(request: InboundRequest): Promise<unknown> {
    const revision = this.negotiated?.revision ?? LATEST_LEGACY_REVISION;
    const f = featuresOf(revision);
    if (f.modern) {
      // 2026-07-28 servers ask through input_required results, never with requests of their own.
      throw invalidRequest(
        `Protocol ${revision} has no requests to the client ('${request.method}' refused): a server asks for input by answering input_required.`,
      );
    }
    if (request.method === 'ping') return {};
    // A request on behalf of a task (2025-11-25) names it in _meta: input handlers see which.
    const related = (request.params?._meta as Meta | undefined)?.[META.relatedTask];
    const taskId = isPlainObject(related) && typeof related.taskId === 'string' ? related.taskId : undefined;
    const ctx: InputContext = { signal: request.signal, revision, era: f.era, ...(taskId ? { taskId } : {}) };
    // The server waits on us (a user filling a form): our own calls to it must not time out meanwhile.
    const release = this.peer!.holdTimeouts();
    try {
      return await this.inputs.answer(request.method, request.params, ctx, f);
    } finally {
      release();
    }
  }

  /** Servers may send JSON-RPC batches only on 2025-03-26, the one revision that has them. */
  private batchVerdict(): true | string {
    const revision = this.negotiated?.revision;
    if (revision === '2025-03-26') return true;
    return `JSON-RPC batches are allowed only on protocol 2025-03-26; this connection ${revision ? `speaks ${revision}` : 'has not finished its handshake'}. Send messages one at a time.`;
  }

  // --- requests ------------------------------------------------------------------------------

  /**
   * Sends any request through the middleware chain: a built-in method (typed by the typed map,
   * {@link McpMethods}, and its result shape-checked), a method of an extension or a vendor method
   * (`acme/search`: typed by declaration merging, or by a `result` schema it is checked against).
   */
  request<M extends string, R extends SchemaLike | undefined = undefined>(
    method: M,
    ...[params, options]: RequestArgs<M, R>
  ): Promise<RequestResult<M, R>> {
    const call = this.call(method, (params ?? {}) as Params, options ?? {});
    const schema = options?.result;
    if (schema === undefined) return call as Promise<RequestResult<M, R>>;
    const validator = compileSchema(schema, { role: 'output', name: method, kind: 'method' });
    return call.then(async (result) => {
      const verdict = await validator.validate(result);
      if (!verdict.ok) {
        throw new SwitchboardError(
          'INVALID_RESULT',
          formatIssues(verdict.issues, `The server's ${method} result does not match the result schema`),
        );
      }
      return verdict.value as RequestResult<M, R>;
    });
  }

  /**
   * A request through the middleware chain, untyped: what the typed methods build on. Not async (one
   * promise layer less per call), so a middleware that throws synchronously becomes a rejection here.
   */
  protected call(
    method: string,
    params: Params,
    options: RequestCallOptions<SchemaLike | undefined>,
  ): Promise<Record<string, unknown>> {
    try {
      return Promise.resolve(this.chain(method, params, { client: this, options })) as Promise<
        Record<string, unknown>
      >;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A built-in method, typed by the typed map: the typed methods of this class use it. */
  private known<M extends KnownMethod>(
    method: M,
    params: Params,
    options: CallOptions,
  ): Promise<ResultOf<M>> {
    return this.call(method, params, options) as Promise<ResultOf<M>>;
  }

  /**
   * Not async: a call answered at once (almost every one) is the peer's promise and one `then` that
   * checks the result, not an async function's frame kept across an await (the largest object a
   * gateway made per forwarded call). A result asking for input goes on in {@link answerRounds}.
   * Never throws: whatever goes wrong before the request is sent is a rejection, as it was.
   */
  private send(
    method: string,
    params: Params,
    options: RequestCallOptions<SchemaLike | undefined>,
  ): Promise<Record<string, unknown>> {
    try {
      const facts = this.facts;
      const modern = featuresOf(facts.revision).modern;
      const spec = methodSpec(method);
      const carry = modern ? options.carryInput : undefined;
      // A retry's result is never cached (nor is a first run's that may come back as questions).
      const cacheable = modern && this.cache !== undefined && spec?.cacheable === true && carry === undefined;
      const cacheKey = cacheable ? ResultCache.key(method, params) : '';
      if (cacheable && !options.fresh) {
        const hit = this.cache!.get(cacheKey);
        if (hit) return Promise.resolve(hit);
      }
      const extra = options.meta;
      if (carry !== undefined) params = withCarriedInput(params, carry);
      let wire = params;
      // Most calls add nothing to the envelope: the peer splices its JSON, serialized once, into the
      // request rather than copying its object into a fresh `_meta` and serializing it again per call.
      let envelope: SerializedMeta | undefined;
      if (modern) {
        const plain = extra === undefined && params._meta === undefined;
        if (plain && options.onBehalfOf === undefined) {
          envelope = this.envelope;
        } else if (plain && this.envelope !== undefined) {
          envelope = this.onBehalfEnvelope(options, this.envelope);
        } else {
          const meta = { ...(params._meta as Meta | undefined), ...extra, ...this.envelopeFor(options) };
          wire = { ...params, _meta: meta };
        }
      } else if (extra !== undefined) {
        wire = { ...params, _meta: { ...(params._meta as Meta | undefined), ...extra } };
      }
      // CallOptions carries the Peer's RequestOptions fields under the same names (listen requests, see
      // subscriptions.ts, add their id callback and cancellation policy): passed as is rather than
      // copied into a new object per call.
      const asks = modern && spec?.inputRequired === true;
      return this.peer!.request(method, wire, options as RequestOptions, envelope).then((result) =>
        asks && result.resultType === 'input_required'
          ? this.answerRounds(method, params, wire, result, options, carry !== undefined, cacheable, cacheKey)
          : this.accepted(method, result, options, cacheable, cacheKey),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A 2026-07-28 result asking for input (`input_required`, for a method that may): its questions
   * answered and the request sent again, round after round, up to `maxInputRounds`. Carried
   * (`carryInput`): the questions are the proxy's client's, returned unanswered.
   */
  private async answerRounds(
    method: string,
    params: Params,
    wire: Params,
    first: Record<string, unknown>,
    options: RequestCallOptions<SchemaLike | undefined>,
    carried: boolean,
    cacheable: boolean,
    cacheKey: string,
  ): Promise<Record<string, unknown>> {
    if (carried) return first;
    let result = first;
    let rounds = 0;
    while (result.resultType === 'input_required') {
      if (++rounds > (this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS)) {
        throw new SwitchboardError(
          'INPUT_ROUNDS_EXCEEDED',
          `The server still needed input for '${method}' after ${rounds - 1} rounds; giving up. Raise maxInputRounds if the server legitimately asks that many questions.`,
        );
      }
      result = await this.peer!.request(
        method,
        await this.nextRound(method, params, wire, result, options),
        options as RequestOptions,
      );
    }
    // Retries carry inputResponses/requestState: their results are never cached.
    return this.accepted(method, result, options, cacheable && rounds === 0, cacheKey);
  }

  /** A request's final result, checked (and cached, when `cache`) before it is returned. */
  private accepted(
    method: string,
    result: Record<string, unknown>,
    options: RequestCallOptions<SchemaLike | undefined>,
    cache: boolean,
    cacheKey: string,
  ): Record<string, unknown> {
    this.checkResultType(method, result);
    if (!options.unchecked) methodSpec(method)?.checkResult?.(result, method);
    if (cache) this.cache!.put(cacheKey, result);
    return result;
  }

  /** 2026-07-28: answers an `input_required` result's questions; the params of the retry. */
  private async nextRound(
    method: string,
    params: Params,
    wire: Params,
    result: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Params> {
    const { inputRequests, requestState } = result;
    if (inputRequests === undefined && requestState === undefined) {
      throw new SwitchboardError(
        'INVALID_RESULT',
        `The server answered '${method}' with input_required but neither inputRequests nor requestState.`,
      );
    }
    if (requestState !== undefined && typeof requestState !== 'string') {
      throw new SwitchboardError(
        'INVALID_RESULT',
        `The server answered '${method}' with a non-string requestState.`,
      );
    }
    const { inputResponses: _responses, requestState: _state, ...original } = wire;
    const retry: Params = {
      ...original,
      _meta: { ...(original._meta as Meta | undefined), ...this.envelopeFor(options) },
    };
    if (inputRequests !== undefined) {
      const revision = this.facts.revision;
      const ctx: InputContext = {
        signal: options.signal ?? NEVER_ABORTED,
        revision,
        era: 'modern',
        request: { method, params },
        ...(options.cancelledBy === undefined ? {} : { cancelledBy: options.cancelledBy }),
      };
      retry.inputResponses = await this.inputs.fulfil(inputRequests, ctx, featuresOf(revision));
    }
    // Echoed exactly as received, and only when one was given.
    if (requestState !== undefined) retry.requestState = requestState;
    return retry;
  }

  private checkResultType(method: string, result: Record<string, unknown>): void {
    const type = result.resultType;
    // A missing resultType means "complete": that is how every legacy server answers.
    if (type === undefined || type === 'complete') return;
    // An extension's answer (tasks: `task`, to a tool call that declared the extension).
    if (this.acceptsResultType(method, type)) return;
    if (type === 'input_required') {
      const revision = this.facts.revision;
      throw new SwitchboardError(
        'INVALID_RESULT',
        featuresOf(revision).modern
          ? `The server answered '${method}' with resultType "input_required", which only tools/call, prompts/get and resources/read may use.`
          : `The server answered '${method}' with resultType "input_required", which protocol ${revision} does not have (a legacy server asks for input with a request of its own).`,
      );
    }
    throw new SwitchboardError(
      'INVALID_RESULT',
      `The server answered '${method}' with resultType ${JSON.stringify(type)}, which this client does not recognise.`,
    );
  }

  /**
   * Walks every page of a list up to `maxPages`, or fetches one page on request. The pages' shape is
   * checked by the method's result check (every list method has one).
   */
  protected async list<K extends string>(
    method: string,
    key: K,
    options: ListOptions,
  ): Promise<Record<K, unknown[]> & { nextCursor?: string }> {
    const { cursor, singlePage, ...call } = options;
    type Page = Record<K, unknown[]> & { nextCursor?: string };
    if (cursor !== undefined || singlePage) {
      return (await this.call(method, cursor === undefined ? {} : { cursor }, call)) as Page;
    }
    const maxPages = this.options.maxPages ?? DEFAULT_MAX_PAGES;
    const items: unknown[] = [];
    let next: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === maxPages) {
        throw new SwitchboardError(
          'PAGINATION_LIMIT',
          `'${method}' returned more than ${maxPages} pages; raise maxPages or page manually with { cursor }.`,
        );
      }
      const page = (await this.call(method, next === undefined ? {} : { cursor: next }, call)) as Page;
      items.push(...page[key]);
      next = page.nextCursor;
      if (next === undefined) return { [key]: items } as Record<K, unknown[]>;
    }
  }

  async listTools(options: ListOptions = {}): Promise<ListToolsResult> {
    const result = (await this.list('tools/list', 'tools', options)) as unknown as ListToolsResult;
    for (const tool of result.tools) await this.rememberOutputSchema(tool);
    this.toolsListed(result.tools);
    return result;
  }

  /**
   * Calls a tool and returns its result. When the server runs the call as a task (2026-07-28 with
   * the `tasks` option; 2025-11-25 for a tool listed as `taskSupport: "required"`), the task is
   * followed to its end transparently: polled, its input requests answered with the registered
   * handlers. `options.signal` stops the wait (use `callToolAsTask` to hold the task itself).
   */
  callTool(name: string, args?: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    // Not async, and a result with nothing to check is returned as it is, not as a promise: two
    // promise layers less on every call (a gateway makes one per forwarded call).
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    try {
      this.prepareToolCall(name, params);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.known('tools/call', params, options).then((result) =>
      // Questions carried for a proxy's client (`carryInput`): not a result to check yet.
      result.resultType === 'input_required'
        ? (result as unknown as CallToolResult)
        : this.finishToolCall(name, params, result as unknown as Record<string, unknown>, options),
    );
  }

  /**
   * The check a tool result gets beyond its shape (which `send` checked): structured output per the
   * output schema the tool was listed with. Only such a tool costs a validation (and a promise).
   */
  protected checkToolResult(
    name: string | undefined,
    result: CallToolResult,
  ): CallToolResult | Promise<CallToolResult> {
    if (name === undefined || !this.outputValidators.has(name)) return result;
    return this.checkStructuredContent(name, result).then(() => result);
  }

  // --- extension hooks (tasks, apps: see extensions/client.ts) -----------------------------------

  /** Adds what extensions declare to the capabilities (tasks: the extension, when asked for). */
  protected extendCapabilities(_declared: Record<string, unknown>): void {}

  /** Whether an extension takes a `resultType` the core does not know (tasks: `task`). */
  protected acceptsResultType(_method: string, _type: unknown): boolean {
    return false;
  }

  /** Lets an extension change a tool call's params before it goes (2025-11-25 tasks: `task`). */
  protected prepareToolCall(_name: string, _params: Params): void {}

  /** What a tool call's answer becomes (tasks: a task is followed to its end). */
  protected finishToolCall(
    name: string,
    _params: Params,
    result: Record<string, unknown>,
    _options: CallOptions,
  ): CallToolResult | Promise<CallToolResult> {
    return this.checkToolResult(name, result as unknown as CallToolResult);
  }

  /** Tools were listed (tasks: which of them run only as tasks). */
  protected toolsListed(_tools: readonly Tool[]): void {}

  /** The connection was replaced: what an extension learned of the old server is stale. */
  protected connectionReset(): void {}

  listResources(options: ListOptions = {}): Promise<ListResourcesResult> {
    return this.list('resources/list', 'resources', options) as unknown as Promise<ListResourcesResult>;
  }

  listResourceTemplates(options: ListOptions = {}): Promise<ListResourceTemplatesResult> {
    return this.list(
      'resources/templates/list',
      'resourceTemplates',
      options,
    ) as unknown as Promise<ListResourceTemplatesResult>;
  }

  readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    return this.known('resources/read', { uri }, options);
  }

  listPrompts(options: ListOptions = {}): Promise<ListPromptsResult> {
    return this.list('prompts/list', 'prompts', options) as unknown as Promise<ListPromptsResult>;
  }

  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    return this.known('prompts/get', params, options);
  }

  async complete(params: CompleteParams, options: CallOptions = {}): Promise<CompleteResult> {
    const wire: Params = { ...params };
    // `context` arrived in 2025-06-18; older servers would not expect it.
    if (!featuresOf(this.revision).structured) delete wire.context;
    return this.known('completion/complete', wire, options);
  }

  /** Legacy only: `ping` does not exist in 2026-07-28. */
  async ping(options: CallOptions = {}): Promise<void> {
    await this.known('ping', {}, options);
  }

  /**
   * Sets the level of log messages the server sends: legacy connections send `logging/setLevel`;
   * on 2026-07-28 the level rides on every following request's `_meta`.
   */
  async setLoggingLevel(level: LoggingLevel, options: CallOptions = {}): Promise<void> {
    this.logLevel = level;
    if (this.era === 'modern') {
      this.refreshEnvelope();
      return;
    }
    await this.known('logging/setLevel', { level }, options);
  }

  // --- structured output ---------------------------------------------------------------------

  private async rememberOutputSchema(tool: Tool): Promise<void> {
    if (!tool.outputSchema) {
      this.outputValidators.delete(tool.name);
      this.outputSchemaJson.delete(tool.name);
      return;
    }
    try {
      // Every tools/list brings new schema objects; compiling is far dearer than comparing their JSON.
      const json = JSON.stringify(tool.outputSchema);
      if (this.outputSchemaJson.get(tool.name) === json && this.outputValidators.has(tool.name)) return;
      // The server's patterns are matched in linear time: a backtracking engine can be stalled.
      const peerPatterns = mayHavePatterns(json) ? await loadLinearPatterns() : undefined;
      this.outputValidators.set(
        tool.name,
        compileSchema(tool.outputSchema, { role: 'output', name: tool.name, peerPatterns }),
      );
      this.outputSchemaJson.set(tool.name, json);
    } catch (error) {
      // A schema we cannot compile must not break listing; the result simply goes unchecked.
      this.outputValidators.delete(tool.name);
      this.outputSchemaJson.delete(tool.name);
      this.logger.error(asError(error));
    }
  }

  private async checkStructuredContent(name: string, result: CallToolResult): Promise<void> {
    const validator = this.outputValidators.get(name);
    if (!validator || result.isError) return;
    if (result.structuredContent === undefined) {
      throw new SwitchboardError(
        'INVALID_RESULT',
        `Tool "${name}" declares an outputSchema but its result has no structuredContent.`,
      );
    }
    const verdict = await validator.validate(result.structuredContent);
    if (!verdict.ok) {
      throw new SwitchboardError(
        'INVALID_RESULT',
        formatIssues(
          verdict.issues,
          `Tool "${name}" returned structuredContent that does not match its outputSchema`,
        ),
      );
    }
  }
}

/**
 * A protocol error answering the handshake: the two sides share no revision. Other failures pass
 * through, among them an HTTP 401/403 (an authorization refusal says nothing about revisions).
 */
function handshakeRefused(method: string, revision: Revision, error: unknown, advice: string): unknown {
  if (!(error instanceof ProtocolError)) return error;
  const httpStatus = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
  if (httpStatus === 401 || httpStatus === 403) return error;
  return new SwitchboardError(
    'NEGOTIATION_FAILED',
    `The server refused ${method} on protocol ${revision} (${error.code}: ${error.message}); ${advice}`,
    { cause: error },
  );
}

const NEVER_ABORTED = new AbortController().signal;

/** A request's params with a carried retry's `inputResponses` and `requestState` (each only when given). */
function withCarriedInput(params: Params, carry: NonNullable<CallOptions['carryInput']>): Params {
  if (carry.inputResponses === undefined && carry.requestState === undefined) return params;
  const wire: Params = { ...params };
  if (carry.inputResponses !== undefined) wire.inputResponses = carry.inputResponses;
  if (carry.requestState !== undefined) wire.requestState = carry.requestState;
  return wire;
}

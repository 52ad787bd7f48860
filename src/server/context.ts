/**
 * What a handler knows about the request it serves, and what it can do while serving it. The same
 * object in both eras: `progress`, `log` and `signal` behave identically whether the client spoke
 * `initialize` (legacy) or sent a 2026-07-28 `_meta` envelope (modern).
 */
import type { AuthInfo } from '../engine/channel.js';
import { encodeProgressParams } from '../protocol/codec.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import { type Era, featuresOf, type Revision } from '../protocol/revisions.js';
import {
  type CacheHint,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitFormSchema,
  type ElicitResult,
  type ElicitUrlParams,
  LOGGING_LEVELS,
  type LoggingLevel,
  type Meta,
  type Root,
} from '../protocol/types.js';
import { checkElicitContent, type ElicitFormContent } from '../schema/elicitation.js';
import { formatIssues } from '../schema/issues.js';
import type { InferInput, StandardJsonSchema } from '../schema/types.js';
import { asError } from '../util/guards.js';
import { prepareForm } from './elicit-form.js';
import {
  capabilityError,
  DEFAULT_INPUT_TIMEOUT_MS,
  type InputCallOptions,
  type InputRequiredError,
  type InputSource,
  LinkInput,
  UnavailableInput,
} from './input.js';
import type { ClientView, RequestLink } from './link.js';
import type { CarriedInput, MrtrRound } from './mrtr.js';
import { type RedactFn, redactSecrets } from './redact.js';
import type { UrlElicitationTracker } from './url-elicitations.js';

/** Server-wide settings a request context uses. */
export interface ContextServices {
  /** Applied to every log message; `false` sends data as is. Default {@link redactSecrets}. */
  readonly redact?: RedactFn | false;
  /** Legacy: default wait for the client's answer to an input request. */
  readonly inputTimeoutMs?: number;
  /** 2025-11-25 URL elicitations awaiting `notifications/elicitation/complete`. */
  readonly urlElicitations?: UrlElicitationTracker;
  /** Problems outside the request's own outcome (a failing redact function). */
  readonly reportError?: (error: Error) => void;
}

/** The outcome of `ctx.elicit`: `content` is present (and checked against the schema) when accepted. */
export type ElicitOutcome<T> =
  | { action: 'accept'; content: T; _meta?: Meta }
  | { action: 'decline' | 'cancel'; content?: undefined; _meta?: Meta };

/** Form-mode params of `ctx.elicit`: a raw form schema or a flat Standard schema (zod, valibot...). */
export interface ElicitFormRequest<S> {
  mode?: 'form';
  /** Why the input is needed, shown to the user. */
  message: string;
  requestedSchema: S;
  _meta?: Meta;
}

/** URL-mode params: the user is sent to `url` (2025-11-25+; the client must declare `elicitation.url`). */
export type ElicitUrlRequest = Omit<ElicitUrlParams, 'mode'> & { mode: 'url' };

const levelRank = (level: LoggingLevel): number => LOGGING_LEVELS.indexOf(level);

export class RequestContext {
  /**
   * 2026-07-28 cacheable results (`resources/read`, lists, methods declared `cacheable`): the
   * `ttlMs`/`cacheScope` the result goes out with, over the method's default. A resource's `cache`
   * config lands here when it is read; a middleware that replaces the result keeps it, or sets its
   * own. Per request: the hint travels with the request, not with the result object.
   */
  cacheHint: Partial<CacheHint> | undefined = undefined;
  private lastProgress = Number.NEGATIVE_INFINITY;
  private inputSource: InputSource | undefined;
  private readonly services: ContextServices;
  private readonly source: InputSource | undefined;
  private readonly round: MrtrRound | undefined;

  constructor(
    /** The method being served, e.g. `tools/call`. */
    readonly method: string,
    /** The JSON-RPC id of the request. */
    readonly requestId: RequestId | undefined,
    /** The protocol revision this request speaks. */
    readonly revision: Revision,
    readonly client: ClientView,
    /** The request's `_meta`, including the 2026-07-28 envelope keys. */
    readonly meta: Meta | undefined,
    /** @internal How this request reaches its client (the listen stream and subscriptions need it). */
    readonly link: RequestLink,
    /**
     * `round`: the 2026-07-28 replay this run belongs to; `input`: where input calls go instead (a
     * task's handler waits for `tasks/update`). Without either, the era decides (see `input`).
     */
    options: { round?: MrtrRound; input?: InputSource; services?: ContextServices } = {},
  ) {
    this.source = options.input ?? options.round;
    this.round = options.input === undefined ? options.round : undefined;
    this.services = options.services ?? {};
  }

  get era(): Era {
    return featuresOf(this.revision).era;
  }

  /** Aborted when the client cancels this request or disconnects. Stop work and return. */
  get signal(): AbortSignal {
    return this.link.signal;
  }

  /** Credentials the transport verified for this request (HTTP with authorization). */
  get auth(): AuthInfo | undefined {
    return this.link.extra?.auth;
  }

  /**
   * The headers of the HTTP request this message came with (lower-case names, repeated headers
   * joined with ", "); undefined over stdio and in memory. On a legacy session that is the POST
   * carrying this request, not the one that opened the session.
   */
  get requestHeaders(): Readonly<Record<string, string>> | undefined {
    const headers = this.link.extra?.transport?.headers;
    return headers === undefined ? undefined : (headers as Readonly<Record<string, string>>);
  }

  /**
   * Legacy Streamable HTTP sessions (2025-11-25, with an event store): ends the HTTP response that
   * carries this request's SSE stream, without ending the request — what a long-running handler may
   * do rather than hold a connection open (SEP-1699). The client waits the stream's `retry` delay,
   * reconnects with GET and `Last-Event-ID`, and receives what was sent meanwhile, the result
   * included. Returns false (and does nothing) on any other transport, revision or response mode.
   */
  closeSseStream(): boolean {
    return this.link.legacy?.closeStream?.() ?? false;
  }

  /**
   * Reports progress when the client asked for it (a `progressToken` in `_meta`); otherwise does
   * nothing. `progress` must increase with every call. Nothing is sent after the request finished.
   */
  progress(progress: number, total?: number, message?: string): void {
    const token = this.meta?.progressToken;
    if (token === undefined || this.link.finished) return;
    if (!(progress > this.lastProgress)) {
      throw new SwitchboardError(
        'CONFIG',
        `Progress must increase with every report: got ${progress} after ${this.lastProgress}.`,
      );
    }
    this.lastProgress = progress;
    const params: Params = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.link.notify('notifications/progress', encodeProgressParams(params, featuresOf(this.revision)));
  }

  /**
   * Tools registered with `deferTask: true`: return this from the handler to make the call a task
   * now and run `work` as it, in the background, with the task's own context (input through
   * `tasks/update`, `signal` aborting on `tasks/cancel`). What the handler did before (asking for
   * input in multi-round trips on 2026-07-28) happened before any task existed. Where the call
   * cannot become a task (no tasks extension declared, an older revision, a call already running as
   * a task), `work` runs at once with this context instead. See docs/tasks.md.
   */
  continueAsTask<R>(work: (ctx: RequestContext) => R | Promise<R>): TaskHandoff<R> {
    return new TaskHandoff(work);
  }

  /** @internal Applies `logging/setLevel` to the connection this request arrived on. */
  setLogLevel(level: LoggingLevel): void {
    const legacy = this.link.legacy;
    if (legacy) legacy.session.logLevel = level;
  }

  /**
   * Sends a log message to the client if its level passes the client's threshold: the legacy
   * `logging/setLevel` level of the connection, or on 2026-07-28 the request's
   * `_meta["io.modelcontextprotocol/logLevel"]` (no level, no message). `data` goes through the
   * server's `redact` option first (by default secrets are masked; see `redact.ts`).
   * @deprecated in 2026-07-28 together with MCP logging; still served for at least 12 months.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (this.link.finished) return;
    const threshold =
      this.era === 'modern'
        ? (this.meta?.[META.logLevel] as LoggingLevel | undefined)
        : (this.link.legacy?.session.logLevel ?? 'debug');
    if (threshold === undefined || levelRank(level) < levelRank(threshold)) return;
    const redact = this.services.redact ?? redactSecrets;
    let safe = data;
    if (redact) {
      try {
        safe = redact(data, level, logger);
      } catch (error) {
        // Fail closed: a message that could not be redacted is not sent.
        this.services.reportError?.(asError(error));
        return;
      }
    }
    const params: Params = { level, data: safe };
    if (logger !== undefined) params.logger = logger;
    this.link.notify('notifications/message', params);
  }

  // --- input from the client: one API in both eras (see docs/input.md) ------------------------

  /**
   * Asks the user for input through the client (elicitation). Form mode takes a flat schema — raw
   * (the content type is inferred from it) or a Standard schema (zod, valibot, arktype), which then
   * also validates the answer. The accepted `content` is checked against the schema before it is
   * returned.
   *
   * Legacy: sends `elicitation/create` and waits for the answer. 2026-07-28: returns the answer the
   * client sent on this retry, or makes the request answer `input_required` (the handler runs again
   * from the top with the answer — keep what precedes this call idempotent).
   */
  elicit<S extends StandardJsonSchema>(
    params: ElicitFormRequest<S>,
    options?: InputCallOptions,
  ): Promise<ElicitOutcome<InferInput<S>>>;
  elicit<const S extends ElicitFormSchema>(
    params: ElicitFormRequest<S>,
    options?: InputCallOptions,
  ): Promise<ElicitOutcome<ElicitFormContent<S>>>;
  elicit(params: ElicitUrlRequest, options?: InputCallOptions): Promise<ElicitOutcome<undefined>>;
  async elicit(
    params: ElicitFormRequest<ElicitFormSchema | StandardJsonSchema> | ElicitUrlRequest,
    options: InputCallOptions = {},
  ): Promise<ElicitOutcome<unknown>> {
    if (params.mode === 'url') {
      checkUrlRequest(params);
      const result = (await this.input.ask(
        'elicitation/create',
        params as unknown as Params,
        options,
      )) as unknown as ElicitResult;
      return outcome(result, undefined);
    }
    const form = prepareForm(params.requestedSchema);
    const wire: Params = { message: params.message, requestedSchema: form.wire };
    if (params.mode) wire.mode = params.mode;
    if (params._meta) wire._meta = params._meta;
    const result = (await this.input.ask('elicitation/create', wire, options)) as unknown as ElicitResult;
    if (result.action !== 'accept') return outcome(result, undefined);
    const checked = checkElicitContent(form.wire, result.content);
    const heading = "The client's answer to the elicitation does not match its requestedSchema";
    if (checked.issues.length > 0) throw this.input.invalidAnswer(formatIssues(checked.issues, heading));
    if (!form.validate) return outcome(result, checked.content);
    const verdict = await form.validate(checked.content);
    if (!verdict.ok) throw this.input.invalidAnswer(formatIssues(verdict.issues, heading));
    return outcome(result, verdict.value);
  }

  /**
   * Asks the client's model for a completion (sampling). `tools`/`toolChoice` and
   * `tool_use`/`tool_result` content need protocol 2025-11-25+ and the client's `sampling.tools`.
   * @deprecated in 2026-07-28 together with MCP sampling; still served for at least 12 months.
   */
  async sample(params: CreateMessageParams, options: InputCallOptions = {}): Promise<CreateMessageResult> {
    return (await this.input.ask(
      'sampling/createMessage',
      params as unknown as Params,
      options,
    )) as unknown as CreateMessageResult;
  }

  /**
   * The client's roots (directories or files it exposes).
   * @deprecated in 2026-07-28 together with MCP roots; still served for at least 12 months.
   */
  async listRoots(options: InputCallOptions = {}): Promise<Root[]> {
    const result = await this.input.ask('roots/list', undefined, options);
    return result.roots as Root[];
  }

  /**
   * Stops this request until the user completes an out-of-band interaction at `url` (third-party
   * authorization, payment...). Call it when the interaction is still needed; the request fails or
   * pauses here and the client retries after the user went to the URL. On 2025-11-25 it answers the
   * request with error -32042 (`URLElicitationRequiredError`); announce completion later with
   * `server.completeElicitation(elicitationId)`. On 2026-07-28 it answers `input_required` with a
   * URL elicitation; the retry runs the handler again, which checks whether the interaction
   * finished. The client must declare `elicitation.url`.
   */
  async requireUrlElicitation(params: Omit<ElicitUrlParams, 'mode'>): Promise<never> {
    const request = { mode: 'url' as const, ...params };
    checkUrlRequest(request);
    const f = featuresOf(this.revision);
    if (f.modern) {
      // A fresh question never has an answer: this always rejects (InputRequiredError, or why not).
      return this.input.ask('elicitation/create', request as unknown as Params, {}, true) as Promise<never>;
    }
    const refused = capabilityError(
      'elicitation/create',
      request as unknown as Params,
      this.client.capabilities,
      f,
    );
    if (refused) throw refused;
    if (!f.icons) {
      throw new SwitchboardError(
        'CAPABILITY_MISSING',
        `URL-mode elicitation needs protocol 2025-11-25 or later; this client speaks ${this.revision}.`,
      );
    }
    const elicitationId = params.elicitationId ?? crypto.randomUUID();
    const legacy = this.link.legacy;
    if (legacy) this.services.urlElicitations?.track(elicitationId, legacy.notifyConnection.bind(legacy));
    throw new ProtocolError(ErrorCode.UrlElicitationRequired, params.message, {
      elicitations: [{ mode: 'url', elicitationId, url: params.url, message: params.message }],
    });
  }

  // --- 2026-07-28 input of a server behind a pass-through item (proxies, gateways) --------------

  /**
   * The retry of a request whose previous round passed on another server's `input_required` (see
   * {@link passInputRequired}): what was carried, verified (sealed, this caller's, this request's,
   * unused, unexpired), and the client's `inputResponses`. Undefined otherwise.
   */
  get carriedInput(): CarriedInput | undefined {
    return this.round?.carried;
  }

  /**
   * 2026-07-28, for a pass-through item whose server behind answered `input_required`: this
   * request answers `input_required` with that server's `inputRequests` as they are (its keys, its
   * questions) and a `requestState` of this server's, sealed and bound like its own, holding `carry`
   * (any JSON: that server's own `requestState`, and what routes the retry back). The retry's
   * {@link carriedInput} gives `carry` back with the client's answers. Throw what it returns.
   */
  passInputRequired(inputRequests: Params | undefined, carry: unknown): InputRequiredError {
    if (this.round === undefined) {
      throw new SwitchboardError(
        'CONFIG',
        `'${this.method}' cannot answer input_required here: only a 2026-07-28 tools/call, prompts/get or resources/read can (a legacy client is asked with requests of its own).`,
      );
    }
    return this.round.passInputRequired(inputRequests, carry);
  }

  private get input(): InputSource {
    this.inputSource ??=
      this.source ??
      (this.era === 'modern'
        ? new UnavailableInput(this.method)
        : new LinkInput(this.link, {
            features: featuresOf(this.revision),
            capabilities: this.client.capabilities,
            signal: this.link.signal,
            timeoutMs: this.services.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS,
            urlElicitations: this.services.urlElicitations,
          }));
    return this.inputSource;
  }
}

function outcome(result: ElicitResult, content: unknown): ElicitOutcome<unknown> {
  const out: Record<string, unknown> = { action: result.action };
  if (result.action === 'accept' && content !== undefined) out.content = content;
  if (result._meta !== undefined) out._meta = result._meta;
  return out as ElicitOutcome<unknown>;
}

function checkUrlRequest(params: { message?: unknown; url?: unknown }): void {
  let ok = typeof params.message === 'string' && typeof params.url === 'string';
  if (ok) {
    try {
      new URL(params.url as string);
    } catch {
      ok = false;
    }
  }
  if (!ok) {
    throw new SwitchboardError(
      'CONFIG',
      'A URL elicitation needs a string "message" and an absolute "url" (https in production).',
    );
  }
}

/**
 * What a tool handler returns to hand the rest of its work to a task (`ctx.continueAsTask(work)`):
 * the handler runs inline first — it may ask for input, on 2026-07-28 in multi-round trips before
 * any task exists — and the call becomes a task only at this point (SEP-2663's MRTR-then-task
 * composition). Where the call cannot become a task, the work runs inline instead.
 */
export class TaskHandoff<R = unknown> {
  /** @internal Built by `ctx.continueAsTask()`. */
  constructor(
    /** The rest of the tool's work: runs as the task, with the task's context (or inline, with the call's). */
    readonly work: (ctx: RequestContext) => R | Promise<R>,
  ) {}
}

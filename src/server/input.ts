/**
 * How a handler obtains input from the client (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) with one
 * API in both eras:
 * - legacy: a real server→client request over the connection ({@link LinkInput});
 * - 2026-07-28: multi-round-trip replay ({@link MrtrRound} in `mrtr.ts`) — the call either returns
 *   the answer the client sent on this retry, or records the question and rejects with
 *   {@link InputRequiredError} so the request is answered `input_required`.
 * Either way the server never asks for what the client did not declare: modern → -32021 with
 * `data.requiredCapabilities`; legacy → a `CAPABILITY_MISSING` error (an `isError` tool result).
 */
import { ErrorCode, invalidParams, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import {
  encodeInputParams,
  type InputMethod,
  inputResultProblem,
  missingCapabilities,
  requiredCapabilities,
} from '../protocol/input-requests.js';
import type { Params } from '../protocol/jsonrpc.js';
import type { RevisionFeatures } from '../protocol/revisions.js';
import type { ClientCapabilities } from '../protocol/types.js';
import type { RequestLink } from './link.js';
import type { UrlElicitationTracker } from './url-elicitations.js';

/** Per-call options of `ctx.elicit`, `ctx.sample`, `ctx.listRoots`. */
export interface InputCallOptions {
  /** Legacy only: how long to wait for the client's answer. Default: the server's `inputTimeoutMs` (10 minutes). */
  timeoutMs?: number;
  /** Legacy only: abandons the request to the client (it is also abandoned when this request is cancelled). */
  signal?: AbortSignal;
  /**
   * 2026-07-28 only: the question's key in `inputRequests` (and its answer's in `inputResponses`).
   * Default: the call's position in the run ("0", "1", ...). Name it when clients or tests expect a
   * stable, meaningful key (`"user_name"`); keys must be unique within one run of the handler.
   */
  key?: string;
}

export const DEFAULT_INPUT_TIMEOUT_MS = 10 * 60_000;

/**
 * Thrown by `ctx.elicit` (and its siblings) on 2026-07-28 when the answer is not there yet. Let it
 * propagate: the request is answered `input_required`, and when the client retries with the answer
 * the handler runs again from the top and the same call returns it. Even if handler code catches
 * this error, the request is still answered `input_required`.
 */
export class InputRequiredError extends Error {
  override name = 'InputRequiredError';
  constructor(
    /** The input request's method (of the first, when a server behind asked; none when it sent only a state). */
    readonly method: InputMethod | undefined,
    /** Its key in `inputRequests`. */
    readonly key: string | undefined,
  ) {
    super(
      `Input required${method === undefined ? '' : ` (${method})`}: this request will be answered with input_required and run again with the client's answer. Let this error propagate.`,
    );
  }
}

/** Where a request context's input calls go. */
export interface InputSource {
  /**
   * Asks the client. Resolves with its result, shape-checked for `method`. `fresh`: never replay an
   * earlier answer (URL elicitations that are required again).
   */
  ask(
    method: InputMethod,
    params: Params | undefined,
    options: InputCallOptions,
    fresh?: boolean,
  ): Promise<Record<string, unknown>>;
  /** The error for an answer whose content is wrong (-32602 on 2026-07-28, where it is request params). */
  invalidAnswer(message: string): Error;
}

/** What the client must declare for `method`, as an era-appropriate error; undefined when declared. */
export function capabilityError(
  method: InputMethod,
  params: Params | undefined,
  declared: ClientCapabilities,
  f: RevisionFeatures,
): Error | undefined {
  const missing = missingCapabilities(requiredCapabilities(method, params), declared);
  if (!missing) return undefined;
  const what = JSON.stringify(missing);
  if (f.modern) {
    return new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      `This request needs the client capability ${what} (for ${method}), which the client did not declare in _meta["io.modelcontextprotocol/clientCapabilities"].`,
      { requiredCapabilities: missing },
    );
  }
  return new SwitchboardError(
    'CAPABILITY_MISSING',
    `This tool needs input from the client (${method}), but the client did not declare the capability ${what} at initialize. Use a client that supports it, or pass what is needed as arguments.`,
  );
}

export interface LinkInputOptions {
  readonly features: RevisionFeatures;
  readonly capabilities: ClientCapabilities;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly urlElicitations: UrlElicitationTracker | undefined;
}

/** Legacy: each call is a server→client request tied to the inbound request (HTTP routes it to its stream). */
export class LinkInput implements InputSource {
  constructor(
    private readonly link: RequestLink,
    private readonly options: LinkInputOptions,
  ) {}

  async ask(
    method: InputMethod,
    params: Params | undefined,
    call: InputCallOptions,
  ): Promise<Record<string, unknown>> {
    const { features: f, capabilities } = this.options;
    // What the revision cannot carry at all is said first: a client cannot declare it either.
    let wire = encodeInputParams(method, params, f);
    const refused = capabilityError(method, params, capabilities, f);
    if (refused) throw refused;
    if (method === 'elicitation/create' && wire?.mode === 'url') wire = this.trackUrl(wire);
    const legacy = this.link.legacy;
    if (!legacy) {
      throw new SwitchboardError(
        'CONFIG',
        `This connection cannot send ${method} to the client: its transport does not carry server-to-client requests.`,
      );
    }
    const signal = call.signal ? AbortSignal.any([this.options.signal, call.signal]) : this.options.signal;
    let result: Record<string, unknown>;
    try {
      result = await legacy.request(method, wire, {
        signal,
        timeoutMs: call.timeoutMs ?? this.options.timeoutMs,
      });
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      // The client's refusal is this handler's failure, not an error of the request being served.
      throw new SwitchboardError(
        'INPUT_FAILED',
        `The client could not answer ${method}: ${error.message} (error ${error.code}).`,
        { cause: error },
      );
    }
    const problem = inputResultProblem(method, result);
    if (problem) {
      throw new SwitchboardError(
        'INVALID_RESULT',
        `The client's answer to ${method} is malformed: ${problem}.`,
      );
    }
    return result;
  }

  invalidAnswer(message: string): Error {
    return new SwitchboardError('INVALID_RESULT', message);
  }

  /** 2025-11-25 URL elicitations carry an id the completion notification names. */
  private trackUrl(wire: Params): Params {
    const elicitationId = typeof wire.elicitationId === 'string' ? wire.elicitationId : crypto.randomUUID();
    const legacy = this.link.legacy;
    if (legacy) this.options.urlElicitations?.track(elicitationId, legacy.notifyConnection.bind(legacy));
    return { ...wire, elicitationId };
  }
}

/** 2026-07-28 requests that may not answer `input_required` (lists, completion, discovery). */
export class UnavailableInput implements InputSource {
  constructor(private readonly method: string) {}

  ask(method: InputMethod): Promise<never> {
    return Promise.reject(
      new SwitchboardError(
        'CONFIG',
        `Cannot ask the client for input (${method}) while serving '${this.method}': on protocol 2026-07-28 only tools/call, prompts/get and resources/read may answer input_required.`,
      ),
    );
  }

  invalidAnswer(message: string): Error {
    return invalidParams(message);
  }
}

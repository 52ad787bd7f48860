/**
 * The client's side of input requests: the handlers an application registers for elicitation,
 * sampling and roots, the capabilities they imply, and the two ways a server's question arrives —
 * a legacy server→client request ({@link InputHandlers.answer}) or the `inputRequests` of a
 * 2026-07-28 `input_required` result ({@link InputHandlers.fulfil}). Either way the same handler
 * runs, and a form answer is checked against the form before it leaves.
 */

import type { Cancellable } from '../engine/peer.js';
import { invalidParams, methodNotFound, SwitchboardError } from '../protocol/errors.js';
import {
  encodeInputResult,
  type InputMethod,
  inputParamsProblem,
  inputResultProblem,
  isInputMethod,
  missingCapabilities,
  requiredCapabilities,
} from '../protocol/input-requests.js';
import type { Params } from '../protocol/jsonrpc.js';
import type { Era, Revision, RevisionFeatures } from '../protocol/revisions.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitFormParams,
  ElicitParams,
  ElicitResult,
  Root,
} from '../protocol/types.js';
import { checkElicitContent, checkFormSchema } from '../schema/elicitation.js';
import { formatIssues } from '../schema/issues.js';

/** What an input handler knows about the question it answers. */
export interface InputContext {
  /** Aborted when the server cancels the question, or the call that needs it is abandoned. */
  readonly signal: AbortSignal;
  readonly revision: Revision;
  readonly era: Era;
  /** 2026-07-28: the call that needs this input (legacy requests do not say). */
  readonly request?: { readonly method: string; readonly params: Params };
  /**
   * 2026-07-28: the `cancelledBy` of the call that needs this input, when it was made with one
   * (a call made with `signal` has it as `signal`): names that call among several in flight.
   */
  readonly cancelledBy?: Cancellable;
  /** 2026-07-28: the question's key in `inputRequests`. */
  readonly key?: string;
  /** The task the question belongs to, when a task asks (both eras). */
  readonly taskId?: string;
}

export type ElicitationHandler = (
  params: ElicitParams,
  ctx: InputContext,
) => ElicitResult | Promise<ElicitResult>;
export type SamplingHandler = (
  params: CreateMessageParams,
  ctx: InputContext,
) => CreateMessageResult | Promise<CreateMessageResult>;
/** The client's roots, or a function returning them when the server asks. */
export type RootsProvider =
  | readonly Root[]
  | ((ctx: InputContext) => readonly Root[] | Promise<readonly Root[]>);

export interface ElicitationOptions {
  /** Answer form-mode elicitation. Default true. */
  form?: boolean;
  /** Answer URL-mode elicitation (the handler shows the URL and asks consent to open it). Default false. */
  url?: boolean;
}

export interface SamplingOptions {
  /** The handler supports `tools`/`toolChoice` (declares `sampling.tools`). Default false. */
  tools?: boolean;
  /** The handler honours `includeContext` other than "none" (declares `sampling.context`). Default false. */
  context?: boolean;
}

export class InputHandlers {
  private elicitation: { handler: ElicitationHandler; options: ElicitationOptions } | undefined;
  private sampling: { handler: SamplingHandler; options: SamplingOptions } | undefined;
  private roots: RootsProvider | undefined;

  setElicitation(handler: ElicitationHandler | undefined, options: ElicitationOptions = {}): void {
    if (handler && options.form === false && !options.url) {
      throw new SwitchboardError('CONFIG', 'onElicitation(): enable at least one mode (form or url).');
    }
    this.elicitation = handler && { handler, options };
  }

  setSampling(handler: SamplingHandler | undefined, options: SamplingOptions = {}): void {
    this.sampling = handler && { handler, options };
  }

  setRoots(roots: RootsProvider | undefined): void {
    this.roots = roots;
  }

  get hasRoots(): boolean {
    return this.roots !== undefined;
  }

  /** The capabilities the registered handlers imply. */
  capabilities(): ClientCapabilities {
    const caps: ClientCapabilities = {};
    if (this.elicitation) {
      const { form = true, url = false } = this.elicitation.options;
      caps.elicitation = {};
      if (form) caps.elicitation.form = {};
      if (url) caps.elicitation.url = {};
    }
    if (this.sampling) {
      caps.sampling = {};
      if (this.sampling.options.tools) caps.sampling.tools = {};
      if (this.sampling.options.context) caps.sampling.context = {};
    }
    if (this.roots) caps.roots = { listChanged: true };
    return caps;
  }

  /**
   * Answers a legacy server→client request. Throws `ProtocolError` for what the server got wrong
   * (-32601 without a handler, -32602 for bad params) and `SwitchboardError('CONFIG')` when our own
   * handler's answer is wrong; the Peer turns either into the error response.
   */
  async answer(
    method: string,
    params: unknown,
    ctx: InputContext,
    f: RevisionFeatures,
  ): Promise<Record<string, unknown>> {
    if (!isInputMethod(method) || !this.handles(method)) {
      throw methodNotFound(method, 'This client has no handler for it');
    }
    const problem = inputParamsProblem(method, params);
    if (problem) throw invalidParams(`Invalid params for '${method}': ${problem}.`);
    const missing = missingCapabilities(requiredCapabilities(method, params as Params), this.capabilities());
    if (missing) {
      throw invalidParams(
        `This client did not declare ${JSON.stringify(missing)}, which '${method}' with these params needs.`,
      );
    }
    const result = await this.run(method, params as Params | undefined, ctx);
    return encodeInputResult(method, result, f);
  }

  /** Answers every question of an `input_required` result, in key order; the values are `inputResponses`. */
  async fulfil(
    inputRequests: unknown,
    ctx: InputContext,
    f: RevisionFeatures,
  ): Promise<Record<string, unknown>> {
    if (typeof inputRequests !== 'object' || inputRequests === null || Array.isArray(inputRequests)) {
      throw new SwitchboardError('INVALID_RESULT', 'The server sent "inputRequests" that is not an object.');
    }
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(inputRequests)) {
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
      if (!isInputMethod(method)) {
        throw new SwitchboardError(
          'INVALID_RESULT',
          `The server asked for input with unknown method ${JSON.stringify(method)} (key ${JSON.stringify(key)}).`,
        );
      }
      if (!this.handles(method)) {
        throw new SwitchboardError(
          'CAPABILITY_MISSING',
          `The server needs input this client cannot give: ${method}. Register a handler (${HANDLER_HINT[method]}) before calling.`,
        );
      }
      const problem = inputParamsProblem(method, params);
      if (problem)
        throw new SwitchboardError(
          'INVALID_RESULT',
          `The server's ${method} input request is malformed: ${problem}.`,
        );
      const result = await this.run(method, params as Params | undefined, { ...ctx, key });
      responses[key] = encodeInputResult(method, result, f);
    }
    return responses;
  }

  private handles(method: InputMethod): boolean {
    if (method === 'elicitation/create') return this.elicitation !== undefined;
    if (method === 'sampling/createMessage') return this.sampling !== undefined;
    return this.roots !== undefined;
  }

  private async run(
    method: InputMethod,
    params: Params | undefined,
    ctx: InputContext,
  ): Promise<Record<string, unknown>> {
    let result: unknown;
    if (method === 'elicitation/create') {
      result = await this.elicit(params as unknown as ElicitParams, ctx);
    } else if (method === 'sampling/createMessage') {
      result = await this.sampling!.handler(params as unknown as CreateMessageParams, ctx);
    } else {
      const roots = typeof this.roots === 'function' ? await this.roots(ctx) : this.roots!;
      result = { roots: [...roots] };
    }
    const problem = inputResultProblem(method, result);
    if (problem)
      throw new SwitchboardError('CONFIG', `The ${method} handler returned a malformed result: ${problem}.`);
    return result as Record<string, unknown>;
  }

  private async elicit(params: ElicitParams, ctx: InputContext): Promise<ElicitResult> {
    if (params.mode === 'url') {
      const { action, _meta } = await this.elicitation!.handler(params, ctx);
      return _meta === undefined ? { action } : { action, _meta };
    }
    let schema: ElicitFormParams['requestedSchema'];
    try {
      schema = checkFormSchema(params.requestedSchema, { where: 'The requested form', lenient: true });
    } catch (error) {
      throw invalidParams((error as Error).message);
    }
    const result = await this.elicitation!.handler(params, ctx);
    if (result?.action !== 'accept') return result;
    // Never send what the form did not ask for, or an answer it would refuse.
    const checked = checkElicitContent(schema, result.content);
    if (checked.issues.length > 0) {
      throw new SwitchboardError(
        'CONFIG',
        formatIssues(
          checked.issues,
          'The elicitation handler accepted with content that does not match the requested form',
        ),
      );
    }
    return { ...result, content: checked.content };
  }
}

const HANDLER_HINT: Record<InputMethod, string> = {
  'elicitation/create': 'client.onElicitation()',
  'sampling/createMessage': 'client.onSampling()',
  'roots/list': 'client.setRoots()',
};

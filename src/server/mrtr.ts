/**
 * Multi-round-trip requests (2026-07-28) on the server: the replay engine behind `ctx.elicit` and
 * its siblings, and the sealed `requestState` that carries answers between rounds.
 *
 * A round is one run of the handler. Input calls get keys by call order ("0", "1", ...) unless they
 * name their own (`{ key }`, unique within the run). A call whose key holds an answer to the same
 * question (same method, same params digest) returns it; any other call records its question and
 * rejects with {@link InputRequiredError}. When the handler settles with questions recorded, the
 * request is answered `input_required` with those questions and a new sealed state holding the
 * answers so far. The retry brings `inputResponses` for the questions plus that state; only answers
 * to the questions the state lists are taken.
 *
 * Everything here is per request (a {@link MrtrRound} per context): nothing leaks between concurrent
 * requests. A first run (no `requestState`) opens its round synchronously, and the round allocates
 * nothing more until the handler asks for input.
 */
import { type AuthInfo, type InboundExtra, principalOf } from '../engine/channel.js';
import { invalidParams, SwitchboardError } from '../protocol/errors.js';
import {
  encodeInputParams,
  type InputMethod,
  inputResultProblem,
  isInputMethod,
} from '../protocol/input-requests.js';
import type { Params } from '../protocol/jsonrpc.js';
import type { RevisionFeatures } from '../protocol/revisions.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { capabilityError, type InputCallOptions, InputRequiredError, type InputSource } from './input.js';
import {
  canonicalJson,
  digest,
  MemoryRequestStateStore,
  newNonce,
  type RequestStatePayload,
  type RequestStateSealer,
  type RequestStateStore,
  type SealedAnswer,
  type SealedQuestion,
} from './request-state.js';

export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60_000;

interface Question extends SealedQuestion {
  readonly params: Params | undefined;
}

interface Binding {
  readonly method: string;
  readonly request: string;
  readonly caller: string | null;
}

/**
 * One run of a handler on 2026-07-28: its answers, and the questions it asked that have none.
 *
 * Every `tools/call`, `prompts/get` and `resources/read` gets one, and almost none asks for input:
 * so a round starts as one small object, and its collections are created by the first input call
 * (`ask`). An idle round costs no map, no promise and no await (see `Server.serve`).
 */
export class MrtrRound implements InputSource {
  private nextKey = 0;
  /** Keys taken in this run: a key asked twice would make two questions share one answer. */
  private keys: Set<string> | undefined;
  /** Questions without an answer, by key (created by the first unanswered question). */
  private asked: Map<string, Question> | undefined;
  /** The input calls of this run, settled or not (created by the first). */
  private inflight: Promise<unknown>[] | undefined;

  private bound: Promise<Binding> | undefined;
  /** What the previous round carried for the server behind a pass-through item (a retry's). */
  carried: CarriedInput | undefined;
  /** The questions of the server behind, passed to the client in this round's answer. */
  private passed: { readonly inputRequests: Params | undefined; readonly carry: unknown } | undefined;

  constructor(
    /** Answers carried by the request's `requestState` (and its `inputResponses`); none on a first run. */
    private readonly answers: ReadonlyMap<string, SealedAnswer> | undefined,
    private readonly f: RevisionFeatures,
    private readonly capabilities: ClientCapabilities,
    private readonly method: string,
    private readonly params: Params,
    /** Where the caller's credentials are: read only when a state is sealed or verified. */
    private readonly link: CallerLink,
  ) {}

  /** Identity of the request and caller, sealed into each state. Computed only when a state is. */
  binding(): Promise<Binding> {
    this.bound ??= (async () => ({
      method: this.method,
      request: await requestDigest(this.method, this.params),
      caller: await callerDigest(this.link.extra?.auth),
    }))();
    return this.bound;
  }

  /** True when no input call was made and nothing was passed on: nothing to wait for, nothing to ask. */
  get idle(): boolean {
    return this.inflight === undefined && this.passed === undefined;
  }

  /** What this round passes on of the server behind (see {@link passInputRequired}). */
  get passedOn(): { readonly inputRequests: Params | undefined; readonly carry: unknown } | undefined {
    return this.passed;
  }

  /**
   * A pass-through item's forward got `input_required` from the server behind: this round answers
   * with that server's questions, and `carry` (its `requestState`, where it is) goes sealed into
   * this server's own state, bound to the caller and request like any other.
   */
  passInputRequired(inputRequests: Params | undefined, carry: unknown): InputRequiredError {
    if (this.passed !== undefined || this.inflight !== undefined) {
      throw new SwitchboardError(
        'CONFIG',
        'A request can answer input_required with its own questions or pass on those of one server behind it, once, not both.',
      );
    }
    this.passed = { inputRequests, carry };
    const first = inputRequests === undefined ? undefined : Object.entries(inputRequests)[0];
    const method = (first?.[1] as { method?: unknown } | undefined)?.method;
    return new InputRequiredError(isInputMethod(method) ? method : undefined, first?.[0]);
  }

  /** Questions without an answer, by key. */
  get questions(): ReadonlyMap<string, Question> {
    return this.asked ?? NO_QUESTIONS;
  }

  ask(method: InputMethod, params: Params | undefined, options: InputCallOptions, fresh = false) {
    // The key is taken synchronously, so calls started together (Promise.all) keep their call order.
    const key = options.key ?? String(this.nextKey++);
    this.keys ??= new Set();
    const keys = this.keys;
    if (typeof key !== 'string' || key === '' || keys.has(key)) {
      return Promise.reject(
        new SwitchboardError(
          'CONFIG',
          `Input key ${JSON.stringify(key)} is ${typeof key === 'string' && key !== '' ? 'used twice in one run of this handler' : 'not a non-empty string'}: give every ctx.elicit/sample/listRoots call of a run its own key (or none, for "0", "1", ...).`,
        ),
      );
    }
    keys.add(key);
    const work = this.resolve(key, method, params, fresh);
    this.inflight ??= [];
    this.inflight.push(work.catch(() => undefined));
    return work;
  }

  invalidAnswer(message: string): Error {
    return invalidParams(message);
  }

  private async resolve(
    key: string,
    method: InputMethod,
    params: Params | undefined,
    fresh: boolean,
  ): Promise<Record<string, unknown>> {
    const refused = capabilityError(method, params, this.capabilities, this.f);
    if (refused) throw refused;
    const wire = encodeInputParams(method, params, this.f);
    const h = await digest(`${method}\n${canonicalJson(wire ?? {})}`);
    const answer = fresh ? undefined : this.answers?.get(key);
    if (answer && answer.m === method && answer.h === h) return answer.r as Record<string, unknown>;
    // No answer, or an answer to another question (the handler's calls changed): ask (again).
    this.asked ??= new Map();
    this.asked.set(key, { m: method, h, params: wire });
    throw new InputRequiredError(method, key);
  }

  /** Waits for calls still recording their questions (the handler may settle before they do). */
  async settled(): Promise<void> {
    const inflight = this.inflight ?? [];
    for (let seen = 0; seen < inflight.length; ) {
      const batch = inflight.slice(seen);
      seen = inflight.length;
      await Promise.all(batch);
    }
  }

  /** Answers to keep in the next state: every answer whose key is not being asked again. */
  keptAnswers(): Record<string, SealedAnswer> {
    const kept: Record<string, SealedAnswer> = {};
    if (!this.answers) return kept;
    for (const [key, answer] of this.answers) if (!this.asked?.has(key)) kept[key] = answer;
    return kept;
  }
}

const NO_QUESTIONS: ReadonlyMap<string, Question> = new Map();

/** A retry's input for the server behind a pass-through item: what was carried, and the client's answers. */
export interface CarriedInput {
  /** What the forward passed with `ctx.passInputRequired` in the previous round. */
  readonly carry: unknown;
  /** The retry's `inputResponses`, as the client sent them (the server behind checks them). */
  readonly inputResponses: Params | undefined;
}

/** The slice of a request's link a round reads: the credentials of the transport (HTTP auth). */
interface CallerLink {
  readonly extra: InboundExtra | undefined;
}

export interface MrtrOptions {
  readonly sealer: RequestStateSealer;
  /** Default: an in-memory store (one process). */
  readonly store?: RequestStateStore;
  /** Lifetime of each issued `requestState`. Default 10 minutes. */
  readonly ttlMs?: number;
}

/** Opens rounds from incoming requests and turns unanswered questions into `input_required`. */
export class Mrtr {
  private readonly store: RequestStateStore;
  private readonly ttlMs: number;

  constructor(private readonly options: MrtrOptions) {
    this.store = options.store ?? new MemoryRequestStateStore();
    this.ttlMs = options.ttlMs ?? DEFAULT_REQUEST_STATE_TTL_MS;
  }

  /**
   * The round of a `tools/call`, `prompts/get` or `resources/read` that carries no `requestState`
   * (a first run: nearly every request). Synchronous: there is nothing to verify. Its
   * `inputResponses`, if any, answer nothing this server asked, and are ignored.
   */
  open(
    method: string,
    params: Params,
    link: CallerLink,
    f: RevisionFeatures,
    capabilities: ClientCapabilities,
  ): MrtrRound {
    return new MrtrRound(undefined, f, capabilities, method, params, link);
  }

  /** The round of a retry: verifies its `requestState` and takes the answers it carries. */
  async resume(
    method: string,
    params: Params & { requestState: string },
    link: CallerLink,
    f: RevisionFeatures,
    capabilities: ClientCapabilities,
  ): Promise<MrtrRound> {
    const answers = new Map<string, SealedAnswer>();
    const round = new MrtrRound(answers, f, capabilities, method, params, link);
    const state = await this.verify(params.requestState, await round.binding());
    if (state.u !== undefined) {
      round.carried = { carry: state.u, inputResponses: params.inputResponses as Params | undefined };
      return round;
    }
    for (const [key, answer] of Object.entries(state.a)) answers.set(key, answer);
    const responses = (params.inputResponses ?? {}) as Record<string, unknown>;
    for (const [key, question] of Object.entries(state.p)) {
      if (!Object.hasOwn(responses, key)) continue;
      const problem = inputResultProblem(question.m as InputMethod, responses[key]);
      if (problem) {
        throw invalidParams(
          `inputResponses[${JSON.stringify(key)}] is not a valid ${question.m} result: ${problem}.`,
        );
      }
      answers.set(key, { m: question.m, h: question.h, r: responses[key] });
    }
    return round;
  }

  /** After the handler settled: the `input_required` result if it asked anything, else undefined. */
  async finish(round: MrtrRound): Promise<Record<string, unknown> | undefined> {
    if (round.idle) return undefined;
    const passed = round.passedOn;
    if (passed !== undefined) {
      // Another server's questions, under its keys; its state rides inside ours.
      const payload = await this.payload(round, {}, {}, passed.carry);
      const result: Record<string, unknown> = { resultType: 'input_required' };
      if (passed.inputRequests !== undefined) result.inputRequests = passed.inputRequests;
      result.requestState = await this.options.sealer.seal(payload);
      return result;
    }
    await round.settled();
    if (round.questions.size === 0) return undefined;
    const inputRequests: Record<string, unknown> = {};
    const asked: Record<string, SealedQuestion> = {};
    for (const [key, q] of round.questions) {
      inputRequests[key] = q.params === undefined ? { method: q.m } : { method: q.m, params: q.params };
      asked[key] = { m: q.m, h: q.h };
    }
    const payload = await this.payload(round, round.keptAnswers(), asked, undefined);
    return {
      resultType: 'input_required',
      inputRequests,
      requestState: await this.options.sealer.seal(payload),
    };
  }

  /** The state of the next round: bound to this request and caller, good once, until it expires. */
  private async payload(
    round: MrtrRound,
    answers: Record<string, SealedAnswer>,
    asked: Record<string, SealedQuestion>,
    carry: unknown,
  ): Promise<RequestStatePayload> {
    const binding = await round.binding();
    return {
      v: 1,
      m: binding.method,
      r: binding.request,
      c: binding.caller,
      e: Date.now() + this.ttlMs,
      n: newNonce(),
      a: answers,
      p: asked,
      ...(carry === undefined ? {} : { u: carry }),
    };
  }

  private async verify(token: string, binding: Binding): Promise<RequestStatePayload> {
    const state = await this.options.sealer.open(token);
    if (!state || !isPayload(state)) {
      throw invalidParams(
        'Invalid requestState: it was altered, or sealed by another server or key (servers behind one endpoint must share requestStateKey). Send the request again without requestState and inputResponses.',
      );
    }
    if (state.e <= Date.now()) {
      throw invalidParams(
        'Expired requestState: the input took too long. Send the request again without requestState and inputResponses.',
      );
    }
    if (state.m !== binding.method || state.r !== binding.request) {
      throw invalidParams(
        'This requestState belongs to another request (method, name, uri or arguments differ): echo it only on a retry of the exact request that received it.',
      );
    }
    if (state.c !== binding.caller) {
      throw invalidParams(
        'This requestState was issued to another caller; it cannot be used with these credentials.',
      );
    }
    if (!(await this.store.consume(state.n, state.e))) {
      throw invalidParams(
        'This requestState was already used: each one is good for a single retry. Send the request again without requestState and inputResponses.',
      );
    }
    return state;
  }
}

function isPayload(value: Record<string, unknown>): value is RequestStatePayload & Record<string, unknown> {
  const entries = (map: unknown, withResult: boolean) =>
    typeof map === 'object' &&
    map !== null &&
    Object.values(map).every(
      (e) =>
        typeof e === 'object' &&
        e !== null &&
        isInputMethod((e as SealedAnswer).m) &&
        typeof (e as SealedAnswer).h === 'string' &&
        (!withResult || 'r' in e),
    );
  return (
    value.v === 1 &&
    typeof value.m === 'string' &&
    typeof value.r === 'string' &&
    (value.c === null || typeof value.c === 'string') &&
    typeof value.e === 'number' &&
    typeof value.n === 'string' &&
    entries(value.a, true) &&
    entries(value.p, false)
  );
}

/** Digest of what a request is about: its method, target and arguments. */
function requestDigest(method: string, params: Params): Promise<string> {
  const target =
    method === 'resources/read'
      ? { uri: params.uri }
      : { name: params.name, arguments: params.arguments ?? {} };
  return digest(`${method}\n${canonicalJson(target)}`);
}

/**
 * Digest of who is calling: the verified subject and client, else the token; null when
 * unauthenticated. Also what tasks are bound to (`extensions/tasks`).
 */
export async function callerDigest(auth: AuthInfo | undefined): Promise<string | null> {
  const principal = principalOf(auth);
  return principal === null ? null : digest(principal);
}

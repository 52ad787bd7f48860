/**
 * The checker's end of a connection: raw JSON-RPC over any Channel, with nothing between the probes
 * and the server. It sends what a probe asks (valid or not), pairs responses with requests by id,
 * answers the few requests a legacy server may send, and keeps every message the server sent,
 * each checked against the official schema of the revision in use (`switchboard/testing`'s
 * MessageSchemaChecker) and against the JSON-RPC envelope rules.
 */
import type { Channel, FrameInfo } from '../engine/channel.js';
import { errorFrame, notificationFrame, requestFrame, resultFrame } from '../protocol/frames.js';
import type { Params, RequestId } from '../protocol/jsonrpc.js';
import type { Revision } from '../protocol/revisions.js';
import type { MessageSchemaChecker } from '../testing/message-schema-checker.js';
import type { SchemaViolation } from '../testing/schema-violation.js';
import { clip, jsonPreview } from '../util/clip.js';
import { isPlainObject } from '../util/guards.js';

export type Json = Record<string, unknown>;

/** How a request ended. `message` is the response as the server sent it. */
export type Reply =
  | { readonly kind: 'result'; readonly result: Json; readonly message: Json }
  | {
      readonly kind: 'error';
      readonly code: unknown;
      readonly text: unknown;
      readonly data: unknown;
      readonly message: Json;
    }
  | {
      readonly kind: 'timeout';
      readonly ms: number;
      /** What came instead of the answer while it was awaited (a frame with another id, a broken line), clipped. */
      readonly instead?: readonly string[];
    }
  | { readonly kind: 'closed'; readonly reason: string };

/** Something wrong with a message as a JSON-RPC message, whatever the revision's schema says. */
export interface EnvelopeProblem {
  readonly rule: 'jsonrpc.version' | 'jsonrpc.response-id' | 'jsonrpc.result-or-error' | 'jsonrpc.error-code';
  readonly evidence: string;
}

export interface WireOptions {
  /** Longest wait for a response, in ms. */
  readonly timeoutMs: number;
  /** Called for each request the server sends; the reply goes back as is. */
  readonly onServerRequest: (
    method: string,
    params: unknown,
  ) => Json | { error: { code: number; message: string } };
  /**
   * Over HTTP a server refuses a POSTed notification with an error status whose body may be a
   * JSON-RPC error without an id (the transports page): such an error is no stray response.
   */
  readonly http?: boolean;
}

interface Pending {
  readonly method: string;
  readonly frame: string;
  readonly resolve: (reply: Reply) => void;
  timer: ReturnType<typeof setTimeout>;
  /** Gives up on the answer now, saying what came instead. */
  readonly expire: (ms: number) => void;
  readonly instead: string[];
}

/**
 * Once something that is not the answer came (a response with another id, a line that is no
 * message), the answer gets this much longer: a server that broke its framing or its ids will not
 * answer after all, and the report should not wait out the whole timeout for each request.
 */
const STRAY_GRACE_MS = 3_000;
/** Characters of a stray frame quoted in evidence. */
const STRAY_CHARS = 200;

/** A short, one-line rendering of a message for evidence. */
export function brief(value: unknown, max = 400): string {
  return jsonPreview(value, max);
}

export class ProbeWire {
  /** Every message the server sent, in order. */
  readonly inbound: Json[] = [];
  /** When each message came (Date.now()). */
  readonly arrivals = new WeakMap<Json, number>();
  /** Notifications the server sent, in order. */
  readonly notifications: Json[] = [];
  /** Requests the server sent, in order (method and when, relative to `initialized`). */
  readonly serverRequests: { method: string; beforeInitialized: boolean }[] = [];
  /** Lines on the transport that were not JSON-RPC messages. */
  readonly malformed: string[] = [];
  /** Responses to no request in flight (unknown id, second answer, answer to a notification). */
  readonly unmatched: Json[] = [];
  /** Answers that came after the checker stopped waiting for them (a slow tool). */
  readonly lateAnswers: Json[] = [];
  /** HTTP only: errors without an id, the bodies of refused notifications. */
  readonly refusedNotifications: Json[] = [];
  readonly envelopeProblems: EnvelopeProblem[] = [];
  /** Violations of the schema as published. */
  readonly violations: SchemaViolation[] = [];
  /** Violations only the strict schema finds: fields the revision does not define. */
  readonly extraFields: SchemaViolation[] = [];
  /** Every result, with the method of the request it answers. */
  readonly results: { readonly method: string; readonly result: Json }[] = [];
  /** Set once the legacy `initialized` notification went out. */
  initialized = false;
  #nextId = 1;
  readonly #pending = new Map<RequestId, Pending>();
  /** Methods of answered requests, so a second answer is recognised as such. */
  readonly #answered = new Set<RequestId>();
  /** Requests the checker stopped waiting for: their late answers are no stray responses. */
  readonly #abandoned = new Set<RequestId>();
  #closed: string | undefined;

  constructor(
    readonly channel: Channel,
    readonly revision: Revision,
    private readonly checkers: {
      readonly published: MessageSchemaChecker;
      readonly strict: MessageSchemaChecker;
    },
    private readonly options: WireOptions,
  ) {}

  start(): void {
    this.channel.start({
      message: (value) => {
        if (Array.isArray(value)) for (const item of value) this.#receive(item);
        else this.#receive(value);
      },
      malformed: (error) => {
        this.malformed.push(error.message);
        this.#stray(`a line that is no JSON-RPC message: ${error.message}`);
      },
      closed: (error) => {
        this.#closed = error ? error.message : 'the connection closed';
        for (const waiter of [...this.#notificationWaiters]) waiter(undefined);
        for (const [id, pending] of this.#pending) {
          clearTimeout(pending.timer);
          this.#pending.delete(id);
          pending.resolve({ kind: 'closed', reason: this.#closed });
        }
      },
    });
  }

  get closedReason(): string | undefined {
    return this.#closed;
  }

  /** Sends a request and waits for its response (or the timeout, or the connection's end). */
  request(method: string, params?: Params, timeoutMs = this.options.timeoutMs): Promise<Reply> {
    return this.begin(method, params, timeoutMs).reply;
  }

  /** Sends a request; its id (to cancel it, or to tell its notifications) and its reply to come. */
  begin(
    method: string,
    params?: Params,
    timeoutMs = this.options.timeoutMs,
  ): { readonly id: number; readonly reply: Promise<Reply> } {
    const id = this.#nextId++;
    const reply = this.#send(
      id,
      method,
      requestFrame(id, method, params),
      { kind: 'request', id, method, params },
      timeoutMs,
    );
    return { id, reply };
  }

  /**
   * The first notification (already received, or to come within `timeoutMs`) that `matches`;
   * undefined when none came in time or the connection closed.
   */
  notification(matches: (message: Json) => boolean, timeoutMs: number): Promise<Json | undefined> {
    const seen = this.notifications.find(matches);
    if (seen || this.#closed) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const waiter = (message: Json | undefined) => {
        if (message !== undefined && !matches(message)) return;
        clearTimeout(timer);
        this.#notificationWaiters.delete(waiter);
        resolve(message);
      };
      const timer = setTimeout(() => waiter(undefined), timeoutMs);
      this.#notificationWaiters.add(waiter);
    });
  }

  readonly #notificationWaiters = new Set<(message: Json | undefined) => void>();

  /**
   * Sends a frame as is (malformed on purpose) and waits for its response: one with the id the
   * frame carries, if any, or one with id null (a server that could not read the id).
   */
  requestRaw(
    frame: string,
    id: RequestId | undefined,
    method: string,
    timeoutMs = this.options.timeoutMs,
    /** Filled with a function that gives up on the answer at once (its wait no longer catches a null-id error). */
    handle?: { giveUp?: () => void },
  ): Promise<Reply> {
    return this.#send(
      id ?? `unreadable-${this.#nextId++}`,
      method,
      frame,
      undefined,
      timeoutMs,
      true,
      handle,
    );
  }

  /** Answers to these ids are expected without a request in flight (the items of a batch sent raw). */
  expectAnswers(ids: readonly RequestId[]): void {
    for (const id of ids) this.#abandoned.add(id);
  }

  notify(method: string, params?: Params): void {
    if (this.#closed) return;
    this.channel.send(notificationFrame(method, params), { kind: 'notification', method, params });
  }

  /** Closes the channel (for stdio: stdin EOF, then signals, as the transport does). */
  async close(): Promise<void> {
    await this.channel.close().catch(() => undefined);
  }

  /** Frames answered with id null wait here: any null-id response settles the oldest of them. */
  readonly #nullIdWaiters: RequestId[] = [];

  #send(
    key: RequestId,
    method: string,
    frame: string,
    info: FrameInfo | undefined,
    timeoutMs: number,
    nullId = false,
    handle?: { giveUp?: () => void },
  ): Promise<Reply> {
    if (this.#closed) return Promise.resolve({ kind: 'closed', reason: this.#closed });
    return new Promise<Reply>((resolve) => {
      const started = Date.now();
      const instead: string[] = [];
      const expire = () => {
        clearTimeout(pending.timer);
        this.#pending.delete(key);
        this.#abandoned.add(key);
        const at = this.#nullIdWaiters.indexOf(key);
        if (at >= 0) this.#nullIdWaiters.splice(at, 1);
        resolve({
          kind: 'timeout',
          ms: Date.now() - started,
          ...(instead.length > 0 ? { instead: [...instead] } : {}),
        });
      };
      const pending: Pending = {
        method,
        frame,
        resolve,
        timer: setTimeout(expire, timeoutMs),
        expire,
        instead,
      };
      this.#pending.set(key, pending);
      if (handle) handle.giveUp = () => (this.#pending.get(key) === pending ? expire() : undefined);
      if (nullId) this.#nullIdWaiters.push(key);
      this.channel.send(frame, info);
    });
  }

  /** Something that is no answer came: every request awaited is told, and waits only a little longer. */
  #stray(what: string): void {
    const clipped = clip(what, STRAY_CHARS);
    for (const pending of this.#pending.values()) {
      if (pending.instead.length === 0) {
        clearTimeout(pending.timer);
        pending.timer = setTimeout(() => pending.expire(0), STRAY_GRACE_MS);
      }
      if (pending.instead.length < 3) pending.instead.push(clipped);
    }
  }

  #receive(value: unknown): void {
    if (!isPlainObject(value)) {
      this.malformed.push(`not a JSON object: ${brief(value)}`);
      this.#stray(`not a JSON object: ${brief(value, STRAY_CHARS)}`);
      return;
    }
    this.inbound.push(value);
    this.arrivals.set(value, Date.now());
    if (value.jsonrpc !== '2.0') {
      this.envelopeProblems.push({
        rule: 'jsonrpc.version',
        evidence: `the server sent ${brief(value)}: "jsonrpc" is ${brief(value.jsonrpc)}, not "2.0"`,
      });
    }
    if (typeof value.method === 'string') {
      // Checked against the schema first, so a server request's answer (below) is not mistaken for it.
      this.#checkSchema(value);
      if ('id' in value) this.#serverRequest(value);
      else {
        this.notifications.push(value);
        for (const waiter of [...this.#notificationWaiters]) waiter(value);
      }
      return;
    }
    this.#response(value);
  }

  #checkSchema(message: Json, method?: string): void {
    const context = method ? { method } : {};
    const found = this.checkers.published.checkMessage(this.revision, 'server', message, context);
    this.violations.push(...found);
    if (found.length === 0) {
      this.extraFields.push(...this.checkers.strict.checkMessage(this.revision, 'server', message, context));
    }
  }

  #serverRequest(message: Json): void {
    const method = message.method as string;
    this.serverRequests.push({ method, beforeInitialized: !this.initialized });
    const id = message.id as RequestId;
    const answer = this.options.onServerRequest(method, message.params);
    if (this.#closed) return;
    if ('error' in answer && isPlainObject(answer.error)) {
      this.channel.send(errorFrame(id, answer.error as { code: number; message: string }), {
        kind: 'response',
        id,
      });
    } else {
      this.channel.send(resultFrame(id, answer), { kind: 'response', id });
    }
  }

  #response(message: Json): void {
    const hasResult = 'result' in message;
    const hasError = 'error' in message;
    if (hasResult === hasError) {
      this.envelopeProblems.push({
        rule: 'jsonrpc.result-or-error',
        evidence: `the server sent ${brief(message)}: a response holds exactly one of "result" and "error"`,
      });
    }
    if (hasError) {
      const error = message.error;
      if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
        this.envelopeProblems.push({
          rule: 'jsonrpc.error-code',
          evidence: `the server sent ${brief(message)}: "error" needs an integer "code" and a string "message"`,
        });
      }
    }
    const id = message.id;
    let key: RequestId | undefined;
    if (id === null || id === undefined) key = this.#nullIdWaiters.shift();
    else if ((typeof id === 'string' || typeof id === 'number') && this.#pending.has(id)) key = id;
    const pending = key === undefined ? undefined : this.#pending.get(key);
    if (
      key === undefined &&
      (typeof id === 'string' || typeof id === 'number') &&
      this.#abandoned.delete(id)
    ) {
      this.lateAnswers.push(message);
      return;
    }
    if (key === undefined && id === null && hasError && this.options.http) {
      this.refusedNotifications.push(message);
      return;
    }
    if (key === undefined || !pending) {
      // No request to read its result by: only the envelope rules apply to it.
      this.unmatched.push(message);
      const again = (typeof id === 'string' || typeof id === 'number') && this.#answered.has(id);
      this.envelopeProblems.push({
        rule: 'jsonrpc.response-id',
        evidence: again
          ? `the server answered request ${brief(id)} a second time: ${brief(message)}`
          : `the server sent a response to no request in flight: ${brief(message)}${this.#pending.size > 0 ? ` (awaited: ${[...this.#pending.keys()].map((k) => brief(k)).join(', ')})` : ''}`,
      });
      if (!again) this.#stray(`a response with id ${brief(id)}: ${brief(message, STRAY_CHARS)}`);
      return;
    }
    this.#pending.delete(key);
    this.#answered.add(key);
    clearTimeout(pending.timer);
    this.#checkSchema(message, pending.method);
    if (hasResult && isPlainObject(message.result)) {
      this.results.push({ method: pending.method, result: message.result });
      pending.resolve({ kind: 'result', result: message.result, message });
    } else if (hasError) {
      const error = isPlainObject(message.error) ? message.error : {};
      pending.resolve({ kind: 'error', code: error.code, text: error.message, data: error.data, message });
    } else {
      pending.resolve({ kind: 'result', result: {}, message });
    }
  }
}

/** One line describing a reply, for evidence. */
export function describeReply(reply: Reply): string {
  switch (reply.kind) {
    case 'result':
      // What came, not what the probes read: a `null` result is shown as `null`, not as `{}`.
      return 'result' in reply.message
        ? `result ${brief(reply.message.result, 200)}`
        : 'a response with neither "result" nor "error"';
    case 'error':
      return `error ${brief(reply.code)} ${brief(reply.text)}`;
    case 'timeout':
      return reply.instead
        ? `nothing but ${reply.instead.join('; then ')}`
        : `no answer within ${reply.ms} ms`;
    case 'closed':
      return `the connection closed (${reply.reason})`;
  }
}

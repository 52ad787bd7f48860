/**
 * What every probe gets: the connection, the verdicts it records into, what the server declared,
 * and `request`, which wraps params in the 2026-07-28 envelope when that is the revision in use.
 */

import type { Params } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import type { Revision } from '../../protocol/revisions.js';
import type { Area, TransportKind } from '../requirements.js';
import type { Verdicts } from '../results.js';
import { SurfaceRecorder } from '../snapshot.js';
import type { Json, ProbeWire, Reply } from '../wire.js';

export const CHECKER_INFO = { name: 'switchboard-check', version: '1' } as const;

/**
 * What the checker declares as a client: roots (answered with none) and, where the revision has
 * it, form elicitation (answered with decline), so tools and prompts that ask for input can be
 * exercised. Never sampling: the checker has no model to answer with.
 */
export function checkerCapabilities(revision: Revision): Json {
  if (revision === '2026-07-28') return { elicitation: {} };
  return revision >= '2025-06-18' ? { roots: {}, elicitation: {} } : { roots: {} };
}

/** The checker's answers to the requests a legacy server may send it. */
export function answerServerRequest(method: string): Json | { error: { code: number; message: string } } {
  if (method === 'ping') return {};
  if (method === 'roots/list') return { roots: [] };
  if (method === 'elicitation/create') return { action: 'decline' };
  return { error: { code: -32601, message: `The checker does not answer ${method}.` } };
}

export interface ProbeOptions {
  /** Call every tool, not only those annotated readOnlyHint: true. */
  readonly callTools: boolean;
  /** Longest wait for one answer, in ms. */
  readonly timeoutMs: number;
  /**
   * Longest wait for the handshake's answer, in ms: longer, since a freshly spawned server may
   * take a while to start on a busy machine.
   */
  readonly handshakeTimeoutMs: number;
  /** The areas the report keeps (`--only`/`--skip`): probes that can show none of them are not run. Absent: all. */
  readonly areas?: ReadonlySet<Area>;
  /**
   * Slow tool calls already made in an earlier revision (by tool definition and arguments): the
   * same call is not made again, its answer is judged again (a tool defined alike is checked alike).
   */
  readonly slowCalls?: Map<string, SlowCall>;
}

/** A tool call that took SLOW_CALL_MS or more, and how it was answered. */
export interface SlowCall {
  readonly revision: Revision;
  readonly ms: number;
  readonly reply: Reply;
}

/** A tool call this slow is made once per check, not once per revision. */
export const SLOW_CALL_MS = 2_000;

/** A request the checker gave a progressToken, and how it went (for the progress and cancellation probes). */
export interface TokenedRequest {
  readonly method: string;
  readonly params: Params;
  readonly sentAt: number;
  /** The reply, once it came; with the time it took. */
  reply?: Reply;
  tookMs?: number;
}

export class ProbeContext {
  /** The server's capabilities, from initialize or server/discover. */
  capabilities: Json = {};
  /** Requests sent with a progressToken, by token. */
  readonly progressTokens = new Map<string, TokenedRequest>();
  /** Work a probe left running (a wait for a late answer or notification): awaited before the verdicts. */
  readonly pending: Promise<void>[] = [];
  /** What the server offers, as the probes found it (for `--snapshot` and `--against`). */
  readonly surface: SurfaceRecorder;

  constructor(
    readonly wire: ProbeWire,
    readonly verdicts: Verdicts,
    readonly revision: Revision,
    readonly transport: TransportKind,
    readonly options: ProbeOptions,
  ) {
    this.surface = new SurfaceRecorder(revision);
  }

  get modern(): boolean {
    return this.revision === '2026-07-28';
  }

  /** The 2026-07-28 `_meta` envelope of a request, with `overrides` applied. */
  envelope(overrides: Json = {}): Json {
    return {
      [META.protocolVersion]: this.revision,
      [META.clientCapabilities]: checkerCapabilities(this.revision),
      [META.clientInfo]: CHECKER_INFO,
      ...overrides,
    };
  }

  /** A request in the revision in use (enveloped on 2026-07-28). */
  request(method: string, params: Params = {}): Promise<Reply> {
    return this.begin(method, params).reply;
  }

  /** `request`, with the request's id (to cancel it, or to tell its notifications). */
  begin(method: string, params: Params = {}, timeoutMs?: number): { id: number; reply: Promise<Reply> } {
    if (!this.modern) return this.wire.begin(method, params, timeoutMs);
    const meta = typeof params._meta === 'object' && params._meta !== null ? (params._meta as Json) : {};
    return this.wire.begin(method, { ...params, _meta: { ...this.envelope(), ...meta } }, timeoutMs);
  }

  /**
   * A request with a fresh progressToken in its `_meta`, remembered with its reply so the progress
   * rules can be judged on whatever the server sends for it.
   */
  withProgress(method: string, params: Params): { id: number; token: string; reply: Promise<Reply> } {
    const token = `switchboard-check-progress-${this.progressTokens.size + 1}`;
    const meta = typeof params._meta === 'object' && params._meta !== null ? (params._meta as Json) : {};
    const sent = { ...params, _meta: { ...meta, progressToken: token } };
    const entry: TokenedRequest = { method, params, sentAt: Date.now() };
    this.progressTokens.set(token, entry);
    const { id, reply } = this.begin(method, sent);
    void reply.then((r) => {
      entry.reply = r;
      entry.tookMs = Date.now() - entry.sentAt;
    });
    return { id, token, reply };
  }

  /** A request every server in this revision answers, to see it still serves. */
  liveness(): Promise<Reply> {
    return this.request(this.modern ? 'server/discover' : 'ping');
  }

  /** Whether the report keeps a verdict of any of these areas (a probe showing none of them is skipped). */
  wants(...areas: readonly Area[]): boolean {
    const kept = this.options.areas;
    return kept === undefined || areas.some((area) => kept.has(area));
  }

  declares(capability: string): boolean {
    const value = this.capabilities[capability];
    return typeof value === 'object' && value !== null;
  }
}

/** Whether a reply is a JSON-RPC error with `code`. */
export const isError = (reply: Reply, code?: number): boolean =>
  reply.kind === 'error' && (code === undefined || reply.code === code);

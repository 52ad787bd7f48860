/**
 * The protocol's own rules: JSON-RPC errors for unknown methods and malformed frames, batches,
 * notifications left unanswered, ping, completion, capabilities declared and undeclared, and the
 * 2026-07-28 version and envelope refusals.
 */
import { META } from '../../protocol/meta.js';
import { isPlainObject } from '../../util/guards.js';
import { brief, describeReply, type Json } from '../wire.js';
import type { ProbeContext } from './context.js';

/**
 * A malformed frame is followed by a ping; stdio is read in order, so once the ping is answered the
 * malformed frame's answer, if any, is due: it gets this much longer.
 */
const GRACE_MS = 500;

/** Sends a malformed frame and returns its answer, waiting as long as GRACE_MS after a ping's. */
async function malformed(ctx: ProbeContext, frame: string, id: string | undefined) {
  const handle: { giveUp?: () => void } = {};
  const answer = ctx.wire.requestRaw(frame, id, 'ping', undefined, handle);
  const ping = await ctx.request('ping');
  if (ping.kind === 'closed') return ping;
  // No answer within the grace: none is waited for any longer (a null-id error for a later frame
  // must not settle this one's wait).
  const grace = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, GRACE_MS);
    void answer.finally(() => clearTimeout(timer));
  }).then(() => handle.giveUp?.());
  await Promise.race([answer, grace]);
  return answer;
}

export async function probeJsonRpc(ctx: ProbeContext): Promise<void> {
  const v = ctx.verdicts;
  const method = 'switchboard-check/no-such-method';
  const reply = await ctx.request(method);
  v.expect(
    'jsonrpc.unknown-method',
    reply.kind === 'error' && reply.code === -32601,
    'an unknown method is refused with -32601',
    () =>
      `${method} was answered with ${describeReply(reply)}; JSON-RPC requires error -32601 (Method not found)`,
  );

  // A notification nobody defines: any answer to it is a reply to a notification.
  const before = ctx.wire.unmatched.length;
  ctx.wire.notify('notifications/switchboard-check', ctx.modern ? { _meta: ctx.envelope() } : {});
  const after = await ctx.request(ctx.modern ? 'server/discover' : 'ping');
  if (after.kind === 'result' || after.kind === 'error') {
    const replies = ctx.wire.unmatched.slice(before);
    v.expect(
      'jsonrpc.notification-no-reply',
      replies.length === 0,
      'notifications get no reply',
      () => `the server replied to a notification: ${brief(replies[0])}`,
    );
  }

  if (ctx.transport !== 'stdio') return;
  await probeBatch(ctx);
  const parse = await malformed(ctx, '{"jsonrpc": "2.0", "id": "check-parse", "method": ', undefined);
  v.expect(
    'jsonrpc.parse-error',
    parse.kind === 'error' && parse.code === -32700 && parse.message.id === null,
    'a frame that is not JSON is answered with -32700 and id null',
    () =>
      `the line '{"jsonrpc": "2.0", "id": "check-parse", "method": ' was answered with ${parse.kind === 'timeout' ? 'nothing' : describeReply(parse)}; JSON-RPC 2.0 answers invalid JSON with error -32700 and id null`,
  );
  const invalid = await malformed(
    ctx,
    JSON.stringify({ jsonrpc: '2.0', id: 'check-invalid', method: 42 }),
    'check-invalid',
  );
  v.expect(
    'jsonrpc.invalid-request',
    invalid.kind === 'error' && invalid.code === -32600,
    'an invalid request is answered with -32600',
    () =>
      `{"jsonrpc":"2.0","id":"check-invalid","method":42} was answered with ${invalid.kind === 'timeout' ? 'nothing' : describeReply(invalid)}; JSON-RPC 2.0 answers an invalid request with error -32600`,
  );
}

/**
 * A batch of two pings: 2025-03-26 must serve it (an answer for each), 2025-06-18 and 2025-11-25
 * removed batching and should refuse it (an error, or no answer: not served).
 */
async function probeBatch(ctx: ProbeContext): Promise<void> {
  const rule = batchRule(ctx.revision);
  if (rule === undefined) return;
  const ids = ['check-batch-1', 'check-batch-2'];
  const late = ctx.wire.lateAnswers.length;
  ctx.wire.expectAnswers(ids);
  const frame = JSON.stringify(ids.map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })));
  const refusal = await malformed(ctx, frame, undefined);
  const answers = ctx.wire.lateAnswers.slice(late).filter((m) => ids.includes(m.id as string));
  const served = answers.filter((m) => 'result' in m);
  const seen =
    answers.length > 0
      ? `answered with ${answers.map((m) => brief(m, 120)).join(', ')}`
      : refusal.kind === 'timeout'
        ? 'not answered'
        : `answered with ${describeReply(refusal)}`;
  judgeBatch(
    ctx.verdicts,
    rule,
    served.length === ids.length,
    served.length > 0,
    `a batch of two pings was ${seen}`,
  );
}

/** The batch rule of a revision: batches served (2025-03-26), refused (2025-06-18, 2025-11-25), or none. */
export function batchRule(revision: string): 'jsonrpc.batch' | 'jsonrpc.batch-refused' | undefined {
  if (revision === '2025-03-26') return 'jsonrpc.batch';
  return revision === '2025-06-18' || revision === '2025-11-25' ? 'jsonrpc.batch-refused' : undefined;
}

/** The verdict on a batch: `all` of its requests served, or `any` of them. */
export function judgeBatch(
  v: ProbeContext['verdicts'],
  rule: 'jsonrpc.batch' | 'jsonrpc.batch-refused',
  all: boolean,
  any: boolean,
  seen: string,
): void {
  if (rule === 'jsonrpc.batch') {
    v.expect(
      rule,
      all,
      'a JSON-RPC batch is served, each request answered',
      () => `${seen}; 2025-03-26 requires implementations to support receiving JSON-RPC batches`,
    );
  } else {
    v.expect(
      rule,
      !any,
      'a JSON-RPC batch is not served',
      () => `${seen}; batching was removed in 2025-06-18, so a batch is no message of this revision`,
    );
  }
}

/** What each capability is shown by: a request that needs it. */
const CAPABILITY_PROBES: Record<string, { method: string; params: Json; legacyOnly?: boolean }> = {
  tools: { method: 'tools/list', params: {} },
  resources: { method: 'resources/list', params: {} },
  prompts: { method: 'prompts/list', params: {} },
  completions: {
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name: 'switchboard_check' }, argument: { name: 'a', value: '' } },
  },
  logging: { method: 'logging/setLevel', params: { level: 'info' }, legacyOnly: true },
};

/** Capabilities the server did not declare must not be served (declared ones are shown by their probes). */
export async function probeUndeclared(ctx: ProbeContext): Promise<void> {
  let probed = false;
  for (const [capability, probe] of Object.entries(CAPABILITY_PROBES)) {
    if (ctx.declares(capability) || (probe.legacyOnly && ctx.modern)) continue;
    // completion/complete exists only from 2025-03-26.
    if (capability === 'completions' && ctx.revision === '2024-11-05') continue;
    probed = true;
    const reply = await ctx.request(probe.method, probe.params);
    ctx.verdicts.expect(
      'capabilities.undeclared-refused',
      reply.kind === 'error' && reply.code === -32601,
      'methods of undeclared capabilities are refused with -32601',
      () =>
        `the server does not declare "${capability}", yet ${probe.method} was answered with ${describeReply(reply)}`,
    );
  }
  if (!probed)
    ctx.verdicts.notApplicable('capabilities.undeclared-refused', 'the server declares every capability');
}

export function declaredImplemented(
  ctx: ProbeContext,
  capability: string,
  method: string,
  ok: boolean,
  reply?: string,
): void {
  ctx.verdicts.expect(
    'capabilities.declared-implemented',
    ok,
    'every declared capability answers its list method',
    () => `the server declares "${capability}" but ${method} was answered with ${reply}`,
  );
}

export async function probePing(ctx: ProbeContext): Promise<void> {
  if (ctx.modern) return;
  const reply = await ctx.request('ping');
  ctx.verdicts.expect(
    'ping.empty-result',
    // The raw result, not the one the probes read: a `null` answer is read as `{}` but is not empty.
    reply.kind === 'result' &&
      isPlainObject(reply.message.result) &&
      Object.keys(reply.result).filter((k) => k !== '_meta').length === 0,
    'ping is answered with an empty result',
    () => `ping was answered with ${describeReply(reply)}; it must be an empty result`,
  );
}

/** Asks for completions of the first prompt argument or template variable the server offers. */
export async function probeCompletion(
  ctx: ProbeContext,
  prompts: readonly Json[],
  templates: readonly Json[],
): Promise<void> {
  const v = ctx.verdicts;
  if (!ctx.declares('completions')) {
    v.notApplicable('completion.values', 'the server does not declare completions');
    return;
  }
  let ref: Json | undefined;
  let argument: string | undefined;
  for (const prompt of prompts) {
    const first = Array.isArray(prompt.arguments) ? (prompt.arguments[0] as Json | undefined) : undefined;
    if (first) {
      ref = { type: 'ref/prompt', name: prompt.name };
      argument = String(first.name);
      break;
    }
  }
  if (!ref) {
    for (const template of templates) {
      const variable = /\{[+#./;?&]?([A-Za-z0-9_]+)/.exec(String(template.uriTemplate))?.[1];
      if (variable) {
        ref = { type: 'ref/resource', uri: template.uriTemplate };
        argument = variable;
        break;
      }
    }
  }
  if (!ref || argument === undefined) {
    v.notTested(
      'completion.values',
      'the server declares completions but lists no prompt argument or template variable to complete',
    );
    return;
  }
  const reply = await ctx.request('completion/complete', { ref, argument: { name: argument, value: '' } });
  const values = reply.kind === 'result' ? (reply.result.completion as Json | undefined)?.values : undefined;
  v.expect(
    'completion.values',
    Array.isArray(values) && values.length <= 100,
    'completion/complete answers with at most 100 values',
    () =>
      `completion/complete for ${brief(ref)} argument ${JSON.stringify(argument)} was answered with ${describeReply(reply)}`,
  );
  declaredImplemented(
    ctx,
    'completions',
    'completion/complete',
    reply.kind === 'result',
    describeReply(reply),
  );
}

/**
 * A request the server serves, to refuse on envelope grounds: a list of a declared capability
 * (server/discover may answer whatever the version, by some readings of the spec: the last resort).
 */
export function servedMethod(capabilities: Json): string {
  for (const [capability, method] of [
    ['tools', 'tools/list'],
    ['resources', 'resources/list'],
    ['prompts', 'prompts/list'],
  ] as const) {
    if (typeof capabilities[capability] === 'object' && capabilities[capability] !== null) return method;
  }
  return 'server/discover';
}

/** 2026-07-28: a version the server does not have, and a request without the client capabilities. */
export async function probeModernRefusals(ctx: ProbeContext): Promise<void> {
  if (!ctx.modern) return;
  const v = ctx.verdicts;
  const requested = '2099-12-31';
  const method = servedMethod(ctx.capabilities);
  const reply = await ctx.wire.request(method, {
    _meta: ctx.envelope({ [META.protocolVersion]: requested }),
  });
  const data = reply.kind === 'error' ? (reply.data as Json | undefined) : undefined;
  v.expect(
    'lifecycle.unsupported-version',
    reply.kind === 'error' && reply.code === -32022 && Array.isArray(data?.supported),
    'an unsupported version is refused with -32022 and the supported list',
    () =>
      `${method} naming protocol version ${requested} was answered with ${describeReply(reply)}; the spec requires error -32022 with data.supported`,
  );
  const { [META.clientCapabilities]: _left, ...partial } = ctx.envelope();
  const missing = await ctx.wire.request(method, { _meta: partial });
  v.expect(
    'lifecycle.missing-envelope',
    missing.kind === 'error' && missing.code === -32602,
    'a request without client capabilities is refused with -32602',
    () =>
      `${method} whose _meta lacks ${META.clientCapabilities} was answered with ${describeReply(missing)}; the spec requires error -32602`,
  );
}

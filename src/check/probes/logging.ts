/**
 * Logging. Before 2026-07-28: logging/setLevel with a real and an unknown level, then whether the
 * level set is kept: a tool call seen logging is made again with the level raised above what it
 * logged, and nothing below the new level may come. On 2026-07-28 a server logs only for a request
 * that names a level (`_meta` io.modelcontextprotocol/logLevel): none of the checker's requests but
 * one does, and that one names the highest level.
 */
import { META } from '../../protocol/meta.js';
import { LOGGING_LEVELS } from '../../protocol/types.js';
import { brief, describeReply, type Json } from '../wire.js';
import type { ProbeContext, TokenedRequest } from './context.js';

const MESSAGE = 'notifications/message';

export async function probeLogging(ctx: ProbeContext): Promise<void> {
  if (ctx.modern) return;
  const v = ctx.verdicts;
  if (!ctx.declares('logging')) {
    for (const id of ['logging.set-level', 'logging.invalid-level', 'logging.level-respected'])
      v.notApplicable(id, 'the server does not declare logging');
    return;
  }
  // debug: every message the tools log comes, so a tool that logs can be found (see probeLogLevels).
  const reply = await ctx.request('logging/setLevel', { level: 'debug' });
  v.expect(
    'logging.set-level',
    reply.kind === 'result',
    'logging/setLevel is answered with an empty result',
    () => `logging/setLevel {"level":"debug"} was answered with ${describeReply(reply)}`,
  );
  const bad = await ctx.request('logging/setLevel', { level: 'loudest' });
  v.expect(
    'logging.invalid-level',
    bad.kind === 'error' && bad.code === -32602,
    'an unknown log level is refused with -32602',
    () =>
      `logging/setLevel {"level":"loudest"} was answered with ${describeReply(bad)}; the spec asks for error -32602`,
  );
}

const rank = (level: unknown) => LOGGING_LEVELS.indexOf(level as never);
const levelOf = (message: Json) => (message.params as Json | undefined)?.level;

/** The log messages that came while `request` ran. */
function loggedDuring(ctx: ProbeContext, request: TokenedRequest): Json[] {
  const end = request.sentAt + (request.tookMs ?? 0);
  return ctx.wire.notifications.filter((n) => {
    const at = ctx.wire.arrivals.get(n) ?? 0;
    return n.method === MESSAGE && at >= request.sentAt && at <= end;
  });
}

/** After the tool calls: is the level kept (legacy), is nothing logged without one (2026-07-28)? */
export async function probeLogLevels(ctx: ProbeContext): Promise<void> {
  const calls = [...ctx.progressTokens.values()].filter(
    (r) => r.method === 'tools/call' && r.reply?.kind === 'result',
  );
  if (ctx.modern) return requestLevels(ctx, calls);
  const v = ctx.verdicts;
  if (!ctx.declares('logging')) return;
  const logging = calls.find((call) => loggedDuring(ctx, call).length > 0);
  if (!logging) {
    v.notTested(
      'logging.level-respected',
      `none of the ${calls.length} tool call(s) logged anything (--call-tools calls the tools that are not read-only)`,
    );
    return;
  }
  const highest = Math.max(...loggedDuring(ctx, logging).map((m) => rank(levelOf(m))));
  const level = LOGGING_LEVELS[highest + 1];
  if (level === undefined) {
    v.notTested('logging.level-respected', 'the tool logged at emergency, the highest level');
    return;
  }
  const set = await ctx.request('logging/setLevel', { level });
  if (set.kind !== 'result') return;
  const from = ctx.wire.notifications.length;
  const again = await ctx.request('tools/call', logging.params);
  const below = ctx.wire.notifications
    .slice(from)
    .filter((n) => n.method === MESSAGE && rank(levelOf(n)) < highest + 1);
  v.expect(
    'logging.level-respected',
    again.kind === 'result' && below.length === 0,
    'after logging/setLevel no message below the level comes',
    () =>
      again.kind !== 'result'
        ? `tools/call ${brief(logging.params)}, called again after logging/setLevel ${level}, was answered with ${describeReply(again)}`
        : `after logging/setLevel ${JSON.stringify(level)}, tools/call ${brief(logging.params)} logged ${brief(below[0])}, below the level set`,
  );
}

async function requestLevels(ctx: ProbeContext, calls: readonly TokenedRequest[]): Promise<void> {
  const v = ctx.verdicts;
  const unasked = ctx.wire.notifications.filter((n) => n.method === MESSAGE);
  for (const message of unasked.slice(0, 3)) {
    v.fail(
      'logging.request-level',
      `the server sent ${brief(message)}, though no request of the checker named a log level in _meta ${META.logLevel}`,
    );
  }
  const call = calls[0];
  if (!call) {
    if (unasked.length === 0)
      v.notTested(
        'logging.request-level',
        'the checker called no tool (--call-tools calls those not read-only)',
      );
    return;
  }
  const from = ctx.wire.notifications.length;
  const meta = { ...((call.params._meta as Json | undefined) ?? {}), [META.logLevel]: 'emergency' };
  await ctx.request('tools/call', { ...call.params, _meta: meta });
  const below = ctx.wire.notifications
    .slice(from)
    .filter((n) => n.method === MESSAGE && levelOf(n) !== 'emergency');
  for (const message of below.slice(0, 3)) {
    v.fail(
      'logging.request-level',
      `tools/call ${brief(call.params)} naming log level emergency was accompanied by ${brief(message)}, below that level`,
    );
  }
  if (unasked.length === 0 && below.length === 0) {
    v.pass(
      'logging.request-level',
      `no log message for the ${calls.length} tool call(s) without a log level, none below the level named`,
    );
  }
}

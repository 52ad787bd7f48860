/**
 * Progress and cancellation. The tool calls of the tools probe carry a progressToken; whatever
 * progress the server sends is judged at the end (tokens it was given, values that increase,
 * nothing after the response). A tool seen sending progress is a call known to be still running
 * while it does: it is called again and cancelled at its first progress notification, and must
 * not answer with a result afterwards. Cancellations leave the server serving.
 */
import { brief, describeReply, type Json, type Reply } from '../wire.js';
import type { ProbeContext, TokenedRequest } from './context.js';

const PROGRESS = 'notifications/progress';
/** Shortest wait for a cancelled call's answer; longer when the call took longer uncancelled. */
const MIN_CANCEL_WAIT_MS = 1_000;

/**
 * A call counts as long when, uncancelled, it worked this much longer after its first progress
 * notification: cancelled at that notification the next time, it is surely still running.
 */
const LONG_CALL_MS = 150;
/** A call without progress that took this long is cancelled part way through the next time. */
const CANCELLABLE_MS = 1_000;
/** Latest point of a slow call at which it is cancelled. */
const MAX_CANCEL_DELAY_MS = 1_000;
/** A result this soon after the cancellation may have been sent before it arrived: no verdict. */
const RACE_MS = 100;

const tokenOf = (message: Json): unknown => (message.params as Json | undefined)?.progressToken;

/** Whether a call sent progress that said it was not done, and went on working LONG_CALL_MS after it. */
function longCall(ctx: ProbeContext, token: string, request: TokenedRequest): boolean {
  const first = ctx.wire.notifications.find((n) => n.method === PROGRESS && tokenOf(n) === token);
  if (!first || request.tookMs === undefined || request.reply?.kind !== 'result') return false;
  const params = first.params as Json;
  if (
    typeof params.total === 'number' &&
    typeof params.progress === 'number' &&
    params.progress >= params.total
  )
    return false;
  const answeredAt = request.sentAt + request.tookMs;
  return answeredAt - (ctx.wire.arrivals.get(first) ?? answeredAt) >= LONG_CALL_MS;
}

/** The progress rules, on every progress notification the server sent during the revision. */
export function judgeProgress(ctx: ProbeContext): void {
  const v = ctx.verdicts;
  const { inbound } = ctx.wire;
  let seen = 0;
  const last = new Map<string, number>();
  for (const [index, message] of inbound.entries()) {
    if (message.method !== PROGRESS || 'id' in message) continue;
    seen++;
    const token = tokenOf(message);
    const request = typeof token === 'string' ? ctx.progressTokens.get(token) : undefined;
    if (!request) {
      v.fail(
        'progress.active-token',
        `the server sent ${brief(message)}: the checker gave no request progressToken ${brief(token)}`,
      );
      continue;
    }
    v.pass('progress.active-token', 'progress notifications name tokens of the checker’s requests');
    const answered = request.reply?.kind === 'result' || request.reply?.kind === 'error';
    const answerAt = answered ? inbound.indexOf((request.reply as { message: Json }).message) : -1;
    v.expect(
      'progress.stops',
      answerAt < 0 || index < answerAt,
      'no progress after the response',
      () => `${brief(message)} came after the response to its ${request.method} request`,
    );
    const value = (message.params as Json).progress;
    const previous = last.get(token as string);
    v.expect(
      'progress.increasing',
      typeof value === 'number' && (previous === undefined || value > previous),
      'progress increases with each notification',
      () =>
        `progress for token ${brief(token)} went from ${previous} to ${brief(value)}: it must increase with each notification`,
    );
    if (typeof value === 'number') last.set(token as string, value);
  }
  if (seen === 0) {
    const why =
      ctx.progressTokens.size === 0
        ? 'the checker called no tool (none is read-only; --call-tools calls the others)'
        : `the server sent no progress for the ${ctx.progressTokens.size} call(s) made with a progressToken (progress is optional)`;
    for (const id of ['progress.active-token', 'progress.increasing', 'progress.stops']) v.notTested(id, why);
  }
}

/**
 * Cancels an unknown request, then a call that is known to be running; the wait for the cancelled
 * call's (absent) answer goes on in `ctx.pending` while the other probes run.
 */
export async function probeCancellation(ctx: ProbeContext): Promise<void> {
  const v = ctx.verdicts;
  await cancel(ctx, 'switchboard-check-never-sent', 'notifications/cancelled for a request it never got');

  const tokened = [...ctx.progressTokens.entries()];
  const withProgress = tokened.find(([token, request]) => longCall(ctx, token, request))?.[1];
  if (withProgress) return cancelAtProgress(ctx, withProgress);
  const slow = tokened.map(([, request]) => request).find(slowCall);
  if (slow) return cancelAfter(ctx, slow);
  v.notTested(
    'cancellation.no-response',
    `no call was seen sending progress and then working ${LONG_CALL_MS} ms more, nor taking ${CANCELLABLE_MS} ms, so none was known to be still running when cancelled`,
  );
}

/** A call that took CANCELLABLE_MS or more (or ran past the timeout): cancelled early, it is still running. */
function slowCall(request: TokenedRequest): boolean {
  if (request.method !== 'tools/call') return false;
  if (request.reply?.kind === 'timeout') return true;
  return request.reply?.kind === 'result' && (request.tookMs ?? 0) >= CANCELLABLE_MS;
}

/** How long a cancelled call's answer is waited for: long enough for it to have come uncancelled. */
const waitFor = (ctx: ProbeContext, took: number) =>
  Math.min(ctx.options.timeoutMs, Math.max(MIN_CANCEL_WAIT_MS, 3 * took));

/** The call again, cancelled at its first progress notification. */
async function cancelAtProgress(ctx: ProbeContext, running: TokenedRequest): Promise<void> {
  const v = ctx.verdicts;
  const { id, token, reply } = ctx.withProgress(running.method, running.params);
  const first = await ctx.wire.notification(
    (n) => n.method === PROGRESS && tokenOf(n) === token,
    ctx.options.timeoutMs,
  );
  if (!first) {
    v.notTested('cancellation.no-response', `the second ${running.method} call sent no progress this time`);
    return;
  }
  const cancelled = ctx.progressTokens.get(token)!;
  if (cancelled.reply) {
    v.notTested('cancellation.no-response', 'the call was answered before it could be cancelled');
    return;
  }
  await cancel(ctx, id, `the cancellation of ${running.method} ${brief(running.params)}`);
  awaitNoResult(ctx, running, cancelled, reply, Date.now(), `after its progress ${brief(first.params)}`);
}

/** The call again, cancelled a quarter of the way through the time it took uncancelled (at most 1 s in). */
async function cancelAfter(ctx: ProbeContext, running: TokenedRequest): Promise<void> {
  const v = ctx.verdicts;
  const took = running.reply?.kind === 'timeout' ? ctx.options.timeoutMs : (running.tookMs ?? CANCELLABLE_MS);
  const { id, token, reply } = ctx.withProgress(running.method, running.params);
  const cancelled = ctx.progressTokens.get(token)!;
  const delay = Math.min(MAX_CANCEL_DELAY_MS, took / 4);
  await Promise.race([reply, new Promise((resolve) => setTimeout(resolve, delay))]);
  if (cancelled.reply) {
    v.notTested(
      'cancellation.no-response',
      `the call was answered within ${Math.round(delay)} ms this time, before it could be cancelled`,
    );
    return;
  }
  const at = Date.now();
  await cancel(ctx, id, `the cancellation of ${running.method} ${brief(running.params)}`);
  awaitNoResult(
    ctx,
    running,
    cancelled,
    reply,
    at,
    `${Math.round(delay)} ms into it (uncancelled it took ${took} ms)`,
  );
}

/** The wait for a cancelled call's (absent) result goes on in `ctx.pending` while the other probes run. */
function awaitNoResult(
  ctx: ProbeContext,
  running: TokenedRequest,
  cancelled: TokenedRequest,
  reply: Promise<Reply>,
  cancelledAt: number,
  when: string,
): void {
  const v = ctx.verdicts;
  ctx.pending.push(
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitFor(ctx, running.tookMs ?? 0));
      void reply.then(() => {
        clearTimeout(timer);
        resolve();
      });
    }).then(() => {
      const answeredAt = cancelled.tookMs === undefined ? undefined : cancelled.sentAt + cancelled.tookMs;
      if (
        cancelled.reply?.kind === 'result' &&
        answeredAt !== undefined &&
        answeredAt - cancelledAt < RACE_MS
      ) {
        v.notTested(
          'cancellation.no-response',
          `the result came ${answeredAt - cancelledAt} ms after the cancellation: it may have been on its way already`,
        );
        return;
      }
      v.expect(
        'cancellation.no-response',
        cancelled.reply?.kind !== 'result',
        'a cancelled call gets no result',
        () =>
          `${running.method} ${brief(running.params)} was cancelled ${when}, yet it was answered with ${describeReply(cancelled.reply!)}; the receiver of a cancellation should not answer the request`,
      );
    }),
  );
}

/** Cancels a request, then sees the server still serve (cancellation.graceful). */
async function cancel(ctx: ProbeContext, requestId: string | number, what: string): Promise<void> {
  const params: Json = { requestId, reason: 'switchboard check: cancellation probe' };
  ctx.wire.notify('notifications/cancelled', ctx.modern ? { ...params, _meta: ctx.envelope() } : params);
  const after = await ctx.liveness();
  ctx.verdicts.expect(
    'cancellation.graceful',
    after.kind === 'result' || after.kind === 'error',
    'the server serves on after a cancellation',
    () => `after ${what}, the server answered the next request with ${describeReply(after)}`,
  );
}

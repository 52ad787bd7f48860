/** Prompts: got with their required arguments, without them, and by a name that does not exist. */
import { brief, describeReply, type Json } from '../wire.js';
import type { ProbeContext } from './context.js';

/** Prompts fetched at most per revision. */
const MAX_GET = 5;

const requiredArguments = (prompt: Json): string[] =>
  Array.isArray(prompt.arguments)
    ? prompt.arguments
        .filter((a): a is Json => typeof a === 'object' && a !== null && a.required === true)
        .map((a) => String(a.name))
    : [];

/**
 * A value for a prompt argument: the first completion the server offers, else a placeholder
 * (`offered: false`, a value the server may rightly refuse).
 */
async function suggestedValue(
  ctx: ProbeContext,
  prompt: string,
  argument: string,
  known: Record<string, string>,
): Promise<{ value: string; offered: boolean }> {
  if (ctx.declares('completions')) {
    const reply = await ctx.request('completion/complete', {
      ref: { type: 'ref/prompt', name: prompt },
      argument: { name: argument, value: '' },
      // Earlier arguments as context (2025-06-18 on).
      ...(Object.keys(known).length > 0 && !['2025-03-26', '2024-11-05'].includes(ctx.revision)
        ? { context: { arguments: known } }
        : {}),
    });
    const values =
      reply.kind === 'result' ? (reply.result.completion as Json | undefined)?.values : undefined;
    if (Array.isArray(values) && typeof values[0] === 'string') return { value: values[0], offered: true };
  }
  // An argument named for a URI gets one: servers may put it where the schema wants a URI.
  return { value: /ur[il]/i.test(argument) ? 'https://example.com/check' : 'check', offered: false };
}

export async function probePrompts(ctx: ProbeContext, prompts: readonly Json[]): Promise<void> {
  const v = ctx.verdicts;
  if (prompts.length === 0) {
    v.notApplicable('prompts.get', 'the server lists no prompts');
    v.notApplicable('prompts.missing-arguments', 'the server lists no prompts');
    v.notApplicable('prompts.unknown-prompt', 'the server lists no prompts');
    return;
  }
  let anyRequired = false;
  for (const prompt of prompts.slice(0, MAX_GET)) {
    const name = String(prompt.name);
    const required = requiredArguments(prompt);
    const args: Record<string, string> = {};
    let madeUp = false;
    for (const arg of required) {
      const suggested = await suggestedValue(ctx, name, arg, args);
      args[arg] = suggested.value;
      madeUp ||= !suggested.offered;
    }
    const reply = await ctx.request('prompts/get', { name, arguments: args });
    if (reply.kind === 'result' && reply.result.resultType === 'input_required') continue;
    if (reply.kind === 'error' && madeUp) {
      // The server may rightly refuse values the checker made up (no completion offered one, and
      // a prompt argument has no schema to say more): that shows nothing.
      v.notTested(
        'prompts.get',
        `${JSON.stringify(name)} refused the made-up arguments ${brief(args)}: ${describeReply(reply)}`,
      );
    } else
      v.expect(
        'prompts.get',
        reply.kind === 'result' && Array.isArray(reply.result.messages),
        'listed prompts are served with their messages',
        () =>
          `prompts/get ${JSON.stringify(name)} with ${brief(args)} was answered with ${describeReply(reply)}`,
      );
    if (required.length > 0) {
      anyRequired = true;
      const without = await ctx.request('prompts/get', { name, arguments: {} });
      v.expect(
        'prompts.missing-arguments',
        without.kind === 'error' && without.code === -32602,
        'a prompt without its required arguments is refused with -32602',
        () =>
          `prompts/get ${JSON.stringify(name)} without its required argument(s) ${required.join(', ')} was answered with ${describeReply(without)}; the spec asks for error -32602`,
      );
    }
  }
  if (!anyRequired) v.notApplicable('prompts.missing-arguments', 'no prompt has a required argument');
  const unknown = 'switchboard_check_no_such_prompt';
  const reply = await ctx.request('prompts/get', { name: unknown, arguments: {} });
  v.expect(
    'prompts.unknown-prompt',
    reply.kind === 'error' && reply.code === -32602,
    'an unknown prompt is refused with -32602',
    () =>
      `prompts/get ${JSON.stringify(unknown)}, which the server does not list, was answered with ${describeReply(reply)}; the spec asks for error -32602`,
  );
}

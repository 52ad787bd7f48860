/** `completion/complete`: suggestions for prompt arguments and resource-template variables. */
import type { CompleteParams, CompleteResult } from '../protocol/types.js';
import type { RequestContext } from './context.js';

export interface CompletionContext {
  /** Values the user already chose for other arguments or variables. */
  readonly arguments: Readonly<Record<string, string>>;
  readonly ctx: RequestContext;
}

/** Returns candidate values for the partial `value`. At most 100 are sent; the rest are counted. */
export type Completer = (value: string, context: CompletionContext) => string[] | Promise<string[]>;

/** Answers a `completion/complete` whose ref names a pass-through prompt or template (see pass-through.ts). */
export type CompleteForward = (
  params: CompleteParams,
  ctx: RequestContext,
) => CompleteResult | Promise<CompleteResult>;

const MAX_VALUES = 100;

/**
 * The completer registered for `name`, looked up among the map's own entries only: an argument
 * named `constructor` or `__proto__` must not reach what every object inherits.
 */
export function completerFor(
  completers: Readonly<Record<string, Completer>> | undefined,
  name: string,
): Completer | undefined {
  if (!completers || !Object.hasOwn(completers, name)) return undefined;
  const completer = completers[name];
  return typeof completer === 'function' ? completer : undefined;
}

export async function runCompleter(
  completer: Completer | undefined,
  value: string,
  context: CompletionContext,
): Promise<CompleteResult> {
  if (!completer) return { completion: { values: [], hasMore: false } };
  const values = await completer(value, context);
  if (values.length <= MAX_VALUES) return { completion: { values, total: values.length, hasMore: false } };
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: true } };
}

/**
 * What a tool handler returns to hand the rest of its work to a task (`ctx.continueAsTask(work)`):
 * the handler runs inline first — it may ask for input, on 2026-07-28 in multi-round trips before
 * any task exists — and the call becomes a task only at this point (SEP-2663's MRTR-then-task
 * composition). Where the call cannot become a task, the work runs inline instead.
 */
import type { RequestContext } from './context.js';

export class TaskHandoff<R = unknown> {
  /** @internal Built by `ctx.continueAsTask()`. */
  constructor(
    /** The rest of the tool's work: runs as the task, with the task's context (or inline, with the call's). */
    readonly work: (ctx: RequestContext) => R | Promise<R>,
  ) {}
}

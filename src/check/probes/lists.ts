/**
 * Walking a paginated list to its end (pagination.walk, caching.same-scope) and offering it a
 * forged cursor (pagination.invalid-cursor).
 */
import { brief, describeReply, type Json, type Reply } from '../wire.js';
import type { ProbeContext } from './context.js';

/** Pages walked at most; a list longer than that is checked that far. */
const MAX_PAGES = 50;
const FORGED_CURSOR = 'switchboard-check:forged-cursor';

export type Walk =
  | {
      readonly ok: true;
      readonly items: Json[] /** The first cursor the server issued, if any. */;
      readonly cursor?: string;
    }
  | { readonly ok: false; readonly reply: Reply };

/** Every item of the list `method` returns under `key`, or the reply that stopped the walk. */
export async function walkList(ctx: ProbeContext, method: string, key: string): Promise<Walk> {
  const items: Json[] = [];
  const cursors = new Set<string>();
  const scopes = new Set<unknown>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const reply = await ctx.request(method, cursor === undefined ? {} : { cursor });
    if (reply.kind !== 'result') {
      if (page === 1) return { ok: false, reply };
      ctx.verdicts.fail(
        'pagination.walk',
        `${method} page ${page} (cursor ${brief(cursor)}) was answered with ${describeReply(reply)}`,
      );
      return { ok: true, items };
    }
    const list = reply.result[key];
    if (Array.isArray(list))
      items.push(...list.filter((item): item is Json => typeof item === 'object' && item !== null));
    if (ctx.modern) scopes.add(reply.result.cacheScope);
    const next = reply.result.nextCursor;
    if (next === undefined || next === null) break;
    if (typeof next !== 'string') {
      ctx.verdicts.fail(
        'pagination.walk',
        `${method} page ${page} has nextCursor ${brief(next)}: a cursor is a string`,
      );
      return { ok: true, items };
    }
    if (cursors.has(next)) {
      ctx.verdicts.fail(
        'pagination.walk',
        `${method} page ${page} gave back cursor ${brief(next)}, already seen: walking the list never ends`,
      );
      return { ok: true, items };
    }
    if (page >= MAX_PAGES) {
      ctx.verdicts.pass('pagination.walk', `${method}: ${MAX_PAGES} pages walked (the checker stops there)`);
      return { ok: true, items };
    }
    cursors.add(next);
    cursor = next;
  }
  ctx.verdicts.pass(
    'pagination.walk',
    `${method} walked to its end (${cursors.size + 1} page(s), ${items.length} item(s))`,
  );
  const first = cursors.values().next().value;
  if (ctx.modern) {
    ctx.verdicts.expect(
      'caching.same-scope',
      scopes.size === 1,
      `every page of ${method} has the same cacheScope`,
      () => `the pages of ${method} carry cacheScope values ${brief([...scopes])}: one list has one scope`,
    );
  }
  return { ok: true, items, ...(first === undefined ? {} : { cursor: first }) };
}

/**
 * A cursor of a finished walk, used again: the server may serve it again or refuse it as invalid
 * (-32602), but nothing else (an internal error, no answer).
 */
export async function staleCursor(
  ctx: ProbeContext,
  method: string,
  cursor: string | undefined,
): Promise<void> {
  if (cursor === undefined) {
    ctx.verdicts.notTested('pagination.stale-cursor', `${method} fits on one page: it issued no cursor`);
    return;
  }
  const reply = await ctx.request(method, { cursor });
  ctx.verdicts.expect(
    'pagination.stale-cursor',
    reply.kind === 'result' || (reply.kind === 'error' && reply.code === -32602),
    `${method} serves or refuses (-32602) a cursor used before`,
    () =>
      `${method} with cursor ${JSON.stringify(cursor)}, issued earlier and used once, was answered with ${describeReply(reply)}; it must be served again or refused with -32602`,
  );
}

/** A cursor the server never issued must be refused with -32602. */
export async function forgedCursor(ctx: ProbeContext, method: string): Promise<void> {
  const reply = await ctx.request(method, { cursor: FORGED_CURSOR });
  ctx.verdicts.expect(
    'pagination.invalid-cursor',
    reply.kind === 'error' && reply.code === -32602,
    `${method} refuses a forged cursor with -32602`,
    () =>
      `${method} with cursor ${JSON.stringify(FORGED_CURSOR)} was answered with ${describeReply(reply)}; the spec asks for error -32602`,
  );
}

/**
 * Compile-time checks of `ctx.elicit` typing: `tsc` builds this file, nothing runs it. The accepted
 * `content` is typed from the requested schema — a raw form schema written inline, or a zod object.
 */
import * as z from 'zod';
import type { ElicitOutcome, RequestContext } from '../../src/server/context.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type Content<P> = P extends Promise<ElicitOutcome<infer C>> ? C : never;

declare const ctx: RequestContext;

const raw = ctx.elicit({
  message: 'All kinds',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      age: { type: 'integer' },
      ok: { type: 'boolean' },
      color: { type: 'string', enum: ['red', 'blue'] },
      size: {
        type: 'string',
        oneOf: [
          { const: 's', title: 'Small' },
          { const: 'l', title: 'Large' },
        ],
      },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      picks: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
    },
    required: ['name', 'color'],
  },
});

const zodForm = ctx.elicit({
  message: 'Zod',
  requestedSchema: z.object({
    email: z.email(),
    count: z.number().default(1),
    plan: z.enum(['free', 'pro']),
  }),
});

const url = ctx.elicit({ mode: 'url', message: 'Go', url: 'https://example.com' });

export type ElicitTypeChecks = [
  Expect<
    Equal<
      Content<typeof raw>,
      {
        name: string;
        color: 'red' | 'blue';
        age?: number;
        ok?: boolean;
        size?: 's' | 'l';
        tags?: ('a' | 'b')[];
        picks?: 'x'[];
      }
    >
  >,
  Expect<Equal<Content<typeof zodForm>, { email: string; count: number; plan: 'free' | 'pro' }>>,
  Expect<Equal<Content<typeof url>, undefined>>,
];

export async function narrowing() {
  const answer = await raw;
  if (answer.action === 'accept') {
    const name: string = answer.content.name;
    return name;
  }
  // @ts-expect-error: no content unless accepted
  return answer.content.name;
}

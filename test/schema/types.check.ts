/**
 * Compile-time checks: `tsc` builds this file with the rest of `test/`, nothing runs it. If schema
 * inference regresses — wrong argument types, or TS2589 "Type instantiation is excessively deep"
 * when registration is wrapped generically (the official SDK's issue #494) — the build fails.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import * as z from 'zod';
import { type InferInput, type InferOutput, jsonSchema, type SchemaLike } from '../../src/schema/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

/** Shaped like the server's registration: the schema fixes the handler's argument type. */
declare function registerTool<S extends SchemaLike, O extends SchemaLike = SchemaLike>(
  name: string,
  config: { inputSchema: S; outputSchema?: O },
  handler: (args: InferInput<NoInfer<S>>) => InferOutput<NoInfer<O>> | undefined,
): void;

// --- Inference from each kind of schema -------------------------------------------------------

const zodSchema = z.object({ a: z.number(), tags: z.array(z.string()).default([]) });
const valibotSchema = toStandardJsonSchema(v.object({ a: v.number(), note: v.optional(v.string()) }));
const arkSchema = type({ a: 'number', 'note?': 'string' });
const rawSchema = { type: 'object', properties: { a: { type: 'number' } } };
const typedSchema = jsonSchema<{ a: number }>({ type: 'object', properties: { a: { type: 'number' } } });

export type InferenceChecks = [
  Expect<Equal<InferInput<typeof zodSchema>, { a: number; tags: string[] }>>,
  Expect<Equal<InferOutput<typeof zodSchema>, { a: number; tags?: string[] | undefined }>>,
  Expect<Equal<InferInput<typeof valibotSchema>, { a: number; note?: string | undefined }>>,
  Expect<Equal<InferInput<typeof arkSchema>, { a: number; note?: string }>>,
  Expect<Equal<InferInput<typeof rawSchema>, Record<string, unknown>>>,
  Expect<Equal<InferInput<typeof typedSchema>, { a: number }>>,
  Expect<Equal<InferOutput<typeof typedSchema>, { a: number }>>,
];

registerTool('zod', { inputSchema: zodSchema }, (args) => {
  args.tags.push(String(args.a));
  return undefined;
});
registerTool('valibot', { inputSchema: valibotSchema }, (args) => void args.note?.toUpperCase());
registerTool('ark', { inputSchema: arkSchema }, (args) => (args.a > 0 ? undefined : undefined));
registerTool('raw', { inputSchema: { type: 'object' } }, (args) => void args.anything);
registerTool('typed', { inputSchema: typedSchema, outputSchema: z.object({ sum: z.number() }) }, (args) => ({
  sum: args.a,
}));

// @ts-expect-error: a field the schema does not declare
registerTool('zod', { inputSchema: zodSchema }, (args) => args.missing);
const sumSchema = z.object({ sum: z.number() });
registerTool('out', { inputSchema: typedSchema, outputSchema: sumSchema }, () => ({
  // @ts-expect-error: structured output must match the output schema
  sum: 'x',
}));

// --- Registration wrapped generically (the pattern that hits TS2589 in the official SDK) -----------

export function registerLogged<S extends SchemaLike>(
  name: string,
  schema: S,
  handler: (args: InferInput<S>) => undefined,
): void {
  registerTool(name, { inputSchema: schema }, (args) => {
    console.log(`calling ${name}`);
    return handler(args);
  });
}

/** A reusable callback type, generic over the schema, passed through two layers. */
export type ToolHandler<S extends SchemaLike> = (args: InferInput<S>) => undefined;

export function withTiming<S extends SchemaLike>(handler: ToolHandler<S>): ToolHandler<S> {
  return (args) => {
    const started = Date.now();
    try {
      return handler(args);
    } finally {
      console.log(Date.now() - started);
    }
  };
}

export function registerAll<S extends SchemaLike>(
  tools: ReadonlyArray<{ name: string; schema: S; run: ToolHandler<S> }>,
) {
  for (const tool of tools) registerLogged(tool.name, tool.schema, withTiming(tool.run));
}

/** Generic over a zod object specifically, as users of zod write it. */
export function registerZod<Shape extends z.ZodRawShape>(
  name: string,
  schema: z.ZodObject<Shape>,
  handler: (args: z.output<z.ZodObject<Shape>>) => undefined,
): void {
  registerTool(name, { inputSchema: schema }, (args) => handler(args));
}

// A large, nested zod schema through the generic wrappers.
const big = z.object({
  f01: z.string(),
  f02: z.number(),
  f03: z.boolean(),
  f04: z.array(z.string()),
  f05: z.enum(['a', 'b', 'c']),
  f06: z.string().optional(),
  f07: z.number().int().min(0),
  f08: z.object({
    x: z.number(),
    y: z.number(),
    z: z.object({ deep: z.array(z.object({ v: z.string() })) }),
  }),
  f09: z.union([z.string(), z.number()]),
  f10: z.record(z.string(), z.number()),
  f11: z.string().nullable(),
  f12: z.literal('fixed'),
  f13: z.tuple([z.string(), z.number()]),
  f14: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('a'), a: z.string() }),
    z.object({ kind: z.literal('b') }),
  ]),
  f15: z.array(z.array(z.number())),
  f16: z.string().default('x'),
  f17: z.number().catch(0),
  f18: z.object({ nested: z.object({ more: z.object({ evenMore: z.string() }) }) }),
  f19: z.boolean().optional(),
  f20: z.string().email(),
});
registerLogged('big', big, (args) => {
  const check: [string, number, string] = [args.f08.z.deep[0]?.v ?? '', args.f07, args.f14.kind];
  return check && undefined;
});
registerZod('big', big, (args) => void args.f20);
registerAll([{ name: 'ark', schema: arkSchema, run: (args) => void args.a }]);

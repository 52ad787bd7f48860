/**
 * Prompts: argument declarations (a plain list, or derived from a schema of string fields), required
 * arguments checked before the handler runs, and flexible return values.
 */
import { ErrorCode, invalidParams, ProtocolError } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import type {
  GetPromptResult,
  Icon,
  Meta,
  Prompt,
  PromptArgument,
  PromptMessage,
} from '../protocol/types.js';
import {
  type CompiledSchema,
  compileSchema,
  formatIssues,
  type InferInput,
  type SchemaLike,
} from '../schema/index.js';
import { clip } from '../util/clip.js';
import { frozenCopy } from '../util/freeze.js';
import type { CompleteForward, Completer } from './completion.js';
import type { RequestContext } from './context.js';
import { declareScopes, type ScopedConfig } from './scopes.js';

export interface PromptArgumentConfig extends PromptArgument {
  /** Suggests values for this argument in `completion/complete`. */
  complete?: Completer;
}

export interface PromptConfig<Args extends SchemaLike | undefined> extends ScopedConfig {
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Meta;
  /** The arguments, declared one by one. */
  arguments?: PromptArgumentConfig[];
  /** Or: a schema of an object whose fields are strings; arguments are derived from it and validated by it. */
  argsSchema?: Args;
  /** Completion for arguments, by name (also possible per argument in `arguments`). */
  complete?: Record<string, Completer>;
}

export type PromptArgs<Args> = Args extends SchemaLike
  ? InferInput<Args>
  : Record<string, string | undefined>;
export type PromptReturn = GetPromptResult | PromptMessage[] | string;
export type PromptHandler<Args> = (
  args: PromptArgs<Args>,
  ctx: RequestContext,
) => PromptReturn | Promise<PromptReturn>;

/** Answers a `prompts/get` of a pass-through prompt (see pass-through.ts): `name`, `arguments`. */
export type PromptForward = (
  params: Params,
  ctx: RequestContext,
) => GetPromptResult | Promise<GetPromptResult>;

export interface PromptEntry {
  readonly descriptor: Prompt;
  readonly schema: CompiledSchema | undefined;
  readonly required: readonly string[];
  readonly complete: Record<string, Completer>;
  readonly handler: (args: any, ctx: RequestContext) => PromptReturn | Promise<PromptReturn>;
  /** A pass-through prompt's forward and its completions' (see pass-through.ts). */
  readonly forward?: PromptForward;
  readonly forwardComplete?: CompleteForward | undefined;
}

function argumentsFromSchema(schema: CompiledSchema): PromptArgument[] {
  const json = schema.jsonSchema as {
    properties?: Record<string, { description?: string; title?: string }>;
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const arg: PromptArgument = { name };
    if (property.title !== undefined) arg.title = property.title;
    if (property.description !== undefined) arg.description = property.description;
    if (required.has(name)) arg.required = true;
    return arg;
  });
}

export function buildPromptEntry(
  name: string,
  config: PromptConfig<SchemaLike | undefined>,
  handler: PromptEntry['handler'],
): PromptEntry {
  const schema =
    config.argsSchema === undefined
      ? undefined
      : compileSchema(config.argsSchema, { role: 'input', name, kind: 'prompt' });
  // No prototype: an argument named `__proto__` is an entry like any other.
  const complete: Record<string, Completer> = Object.assign(Object.create(null), config.complete);
  let args: PromptArgument[] | undefined;
  if (schema) {
    args = argumentsFromSchema(schema);
  } else if (config.arguments) {
    args = config.arguments.map(({ complete: completer, ...arg }) => {
      if (completer) complete[arg.name] = completer;
      return arg;
    });
  }
  const descriptor: Prompt = { name };
  if (config.title !== undefined) descriptor.title = config.title;
  if (config.description !== undefined) descriptor.description = config.description;
  if (config.icons !== undefined) descriptor.icons = frozenCopy(config.icons);
  if (args !== undefined && args.length > 0) descriptor.arguments = frozenCopy(args);
  if (config._meta !== undefined) descriptor._meta = frozenCopy(config._meta);
  const required = (args ?? []).filter((a) => a.required).map((a) => a.name);
  Object.freeze(descriptor);
  declareScopes(descriptor, config, `prompt ${JSON.stringify(name)}`);
  return { descriptor, schema, required, complete, handler };
}

export const unknownPrompt = (name: string) =>
  invalidParams(
    `Unknown prompt: ${JSON.stringify(clip(name))}. Call prompts/list for the available prompts.`,
    { name: clip(name) },
  );

export async function getPrompt(
  entry: PromptEntry,
  args: Record<string, string> | undefined,
  ctx: RequestContext,
): Promise<GetPromptResult> {
  const name = entry.descriptor.name;
  const given = args ?? {};
  const missing = entry.required.filter((a) => given[a] === undefined);
  if (missing.length > 0) {
    throw invalidParams(
      `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => JSON.stringify(m)).join(', ')} for prompt "${name}".`,
      { missing },
    );
  }
  let value: unknown = given;
  if (entry.schema) {
    const verdict = await entry.schema.validate(given);
    if (!verdict.ok)
      throw invalidParams(formatIssues(verdict.issues, `Invalid arguments for prompt "${name}"`));
    value = verdict.value;
  }
  const returned = await entry.handler(value, ctx);
  if (typeof returned === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: returned } }] };
  if (Array.isArray(returned)) return { messages: returned };
  if (typeof returned === 'object' && returned !== null && Array.isArray(returned.messages)) return returned;
  throw new ProtocolError(
    ErrorCode.InternalError,
    `Prompt "${name}" returned an unexpected value; return a string, messages, or { messages }.`,
  );
}

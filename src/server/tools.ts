/**
 * Tools: definitions, and the execution of one `tools/call` — validate arguments, run the handler,
 * normalize what it returned, validate structured output.
 *
 * Failures the model can act on (bad arguments, the tool threw) become `isError` results; an unknown
 * tool is a protocol error (-32602); a tool that breaks its own `outputSchema` is a server bug and
 * answers -32603.
 */
import { ErrorCode, invalidParams, ProtocolError, SwitchboardError } from '../protocol/errors.js';
import type { Params } from '../protocol/jsonrpc.js';
import { scanToolHeaders } from '../protocol/mcp-headers.js';
import type {
  CallToolResult,
  ContentBlock,
  Icon,
  JsonObject,
  JsonSchemaObject,
  Meta,
  Tool,
  ToolAnnotations,
} from '../protocol/types.js';
import {
  type CompiledSchema,
  compileSchema,
  formatIssues,
  type InferInput,
  type InferOutput,
  type SchemaLike,
  type ValidationResult,
} from '../schema/index.js';
import { clip } from '../util/clip.js';
import { frozenCopy } from '../util/freeze.js';
import { errorMessage, isPromiseLike } from '../util/guards.js';
import type { RequestContext } from './context.js';
import { TaskHandoff } from './context.js';
import { InputRequiredError } from './input.js';
import { declareScopes, type ScopedConfig } from './scopes.js';

export interface ToolConfig<In extends SchemaLike | undefined, Out extends SchemaLike | undefined>
  extends ScopedConfig {
  title?: string;
  description?: string;
  icons?: Icon[];
  annotations?: ToolAnnotations;
  execution?: Tool['execution'];
  _meta?: Meta;
  /** Arguments schema (Standard Schema with JSON Schema export, or raw JSON Schema). Omit for no arguments. */
  inputSchema?: In;
  /** Schema of `structuredContent`; when given, every successful result must carry conforming structured content. */
  outputSchema?: Out;
  /**
   * A call the server runs as a task (`execution.taskSupport`, see docs/tasks.md) starts inline
   * instead, and becomes a task only when the handler returns `ctx.continueAsTask(work)`: the
   * handler can gather input first (on 2026-07-28 in multi-round trips, before any task exists), or
   * answer at once. Default false: the whole handler runs as the task. 2025-11-25 clients ask for
   * tasks themselves, so there a task still starts with the call (the handoff then runs in it).
   */
  deferTask?: boolean;
}

/** What a tool with an output schema returns on success. */
export interface StructuredToolReturn<T> {
  structuredContent: T;
  /** Defaults to the JSON text of `structuredContent`, for clients that only read text. */
  content?: ContentBlock[];
  isError?: false;
  _meta?: Meta;
}

export type ToolArgs<In> = In extends SchemaLike ? InferInput<In> : Record<string, never>;

export type ToolReturn<Out> = Out extends SchemaLike
  ? StructuredToolReturn<InferOutput<Out>> | (CallToolResult & { isError: true })
  : CallToolResult | ContentBlock[] | string;

export type ToolHandler<In, Out> = (
  args: ToolArgs<In>,
  ctx: RequestContext,
) => ToolReturn<Out> | TaskHandoff<ToolReturn<Out>> | Promise<ToolReturn<Out> | TaskHandoff<ToolReturn<Out>>>;

/** Answers a `tools/call` of a pass-through tool (see pass-through.ts): the whole params (`name`, `arguments`, `task`...). */
export type ToolForward = (params: Params, ctx: RequestContext) => CallToolResult | Promise<CallToolResult>;

/** A registered tool, ready to list and call. */
export interface ToolEntry {
  readonly descriptor: Tool;
  readonly input: CompiledSchema | undefined;
  readonly output: CompiledSchema | undefined;
  readonly handler: (args: any, ctx: RequestContext) => unknown;
  /** See {@link ToolConfig.deferTask}. */
  readonly deferTask: boolean;
  /** A pass-through tool's forward (see pass-through.ts): it answers the call, params as they came. */
  readonly forward?: ToolForward;
}

const EMPTY_INPUT: JsonSchemaObject = Object.freeze({ type: 'object' }) as JsonSchemaObject;

export function buildToolEntry(
  name: string,
  config: ToolConfig<SchemaLike | undefined, SchemaLike | undefined>,
  handler: (args: any, ctx: RequestContext) => unknown,
): ToolEntry {
  const input =
    config.inputSchema === undefined ? undefined : compileSchema(config.inputSchema, { role: 'input', name });
  const output =
    config.outputSchema === undefined
      ? undefined
      : compileSchema(config.outputSchema, { role: 'output', name });
  const descriptor: Tool = {
    name,
    inputSchema: (input?.jsonSchema as JsonSchemaObject | undefined) ?? EMPTY_INPUT,
  };
  // A tool HTTP clients would have to drop (2026-07-28 x-mcp-header rules) is a mistake to catch now.
  const headers = scanToolHeaders(descriptor.inputSchema);
  if (!headers.ok) {
    throw new SwitchboardError(
      'CONFIG',
      `The inputSchema of tool ${JSON.stringify(name)} breaks the x-mcp-header rules: ${headers.reason}. HTTP clients would drop the tool; fix the annotation.`,
    );
  }
  if (config.title !== undefined) descriptor.title = config.title;
  if (config.description !== undefined) descriptor.description = config.description;
  if (config.icons !== undefined) descriptor.icons = frozenCopy(config.icons);
  if (output) descriptor.outputSchema = output.jsonSchema as JsonObject;
  if (config.annotations !== undefined) descriptor.annotations = frozenCopy(config.annotations);
  if (config.execution !== undefined) descriptor.execution = frozenCopy(config.execution);
  if (config._meta !== undefined) descriptor._meta = frozenCopy(config._meta);
  Object.freeze(descriptor);
  declareScopes(descriptor, config, `tool ${JSON.stringify(name)}`);
  return {
    descriptor,
    input,
    output,
    handler,
    deferTask: config.deferTask === true,
  };
}

export const unknownTool = (name: string) =>
  invalidParams(`Unknown tool: ${JSON.stringify(clip(name))}. Call tools/list for the available tools.`, {
    name: clip(name),
  });

/** What one `tools/call` comes to: a result, or work the handler handed off to a task. */
export type CallToolOutcome = CallToolResult | TaskHandoff;

/**
 * Runs one `tools/call` against a registered tool: its result, or the {@link TaskHandoff} the
 * handler returned (the caller makes it a task, or completes it with {@link completeInline}).
 *
 * Written without `async`: validation and the handler are awaited only when they actually return a
 * promise. A synchronous tool with a fast-path schema then costs no promise and no microtask hop at
 * all, and its answer is ready within the call (the hot path of every benchmark and most real tools).
 */
export function callTool(
  entry: ToolEntry,
  args: Record<string, unknown> | undefined,
  ctx: RequestContext,
): CallToolOutcome | Promise<CallToolOutcome> {
  const value: unknown = args ?? {};
  if (!entry.input) return runHandler(entry, () => entry.handler(value, ctx));
  const verdict = entry.input.validate(value);
  return isPromiseLike(verdict)
    ? verdict.then((v) => afterValidation(entry, v, ctx))
    : afterValidation(entry, verdict, ctx);
}

function afterValidation(
  entry: ToolEntry,
  verdict: ValidationResult<unknown>,
  ctx: RequestContext,
): CallToolOutcome | Promise<CallToolOutcome> {
  if (!verdict.ok) {
    return {
      content: [
        {
          type: 'text',
          text: formatIssues(verdict.issues, `Invalid arguments for tool "${entry.descriptor.name}"`),
        },
      ],
      isError: true,
    };
  }
  const input = verdict.value;
  return runHandler(entry, () => entry.handler(input, ctx));
}

/** Runs handed-off work in `ctx` until it yields a result: where the call does not become a task. */
export async function completeInline(
  entry: ToolEntry,
  outcome: CallToolOutcome,
  ctx: RequestContext,
): Promise<CallToolResult> {
  let next = outcome;
  while (next instanceof TaskHandoff) {
    const { work } = next;
    next = await runHandler(entry, () => work(ctx));
  }
  return next;
}

/**
 * Runs a tool's handler (or work it handed off) and makes a result of what it returned or threw;
 * a promise only when the handler answered with one.
 */
function runHandler(entry: ToolEntry, run: () => unknown): CallToolOutcome | Promise<CallToolOutcome> {
  let returned: unknown;
  try {
    returned = run();
  } catch (error) {
    return toolFailure(entry, error);
  }
  if (isPromiseLike(returned)) {
    return Promise.resolve(returned).then(
      (r) => finishCall(entry, r),
      (error: unknown) => toolFailure(entry, error),
    );
  }
  return finishCall(entry, returned);
}

/**
 * A handler that threw: an `isError` result the model can read. Protocol errors answer the request;
 * a 2026-07-28 input request answers it input_required.
 */
function toolFailure(entry: ToolEntry, error: unknown): CallToolResult {
  if (error instanceof ProtocolError || error instanceof InputRequiredError) throw error;
  const message = errorMessage(error);
  return {
    content: [{ type: 'text', text: message || `Tool "${entry.descriptor.name}" failed.` }],
    isError: true,
  };
}

function finishCall(entry: ToolEntry, returned: unknown): CallToolOutcome | Promise<CallToolOutcome> {
  if (returned instanceof TaskHandoff) return returned;
  const name = entry.descriptor.name;
  const result = normalizeToolResult(returned, name);
  if (!entry.output || result.isError) return result;
  const checked = checkStructuredOutput(entry.output, result, name);
  return checked === undefined ? result : checked.then(() => result);
}

function normalizeToolResult(returned: unknown, name: string): CallToolResult {
  if (typeof returned === 'string') return { content: [{ type: 'text', text: returned }] };
  if (Array.isArray(returned)) return { content: returned as ContentBlock[] };
  if (typeof returned !== 'object' || returned === null) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Tool "${name}" returned ${returned === null ? 'null' : typeof returned}; return a string, content blocks, or a CallToolResult.`,
    );
  }
  const result = returned as CallToolResult;
  if (
    result.structuredContent !== undefined &&
    (result.content === undefined || result.content.length === 0)
  ) {
    // Clients that predate structured output (and models that read only text) still see the data.
    return { ...result, content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }] };
  }
  if (!Array.isArray(result.content)) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Tool "${name}" returned a result without a "content" array.`,
    );
  }
  return result;
}

/** Throws for structured output that breaks the tool's own schema; a promise only if the schema is async. */
function checkStructuredOutput(
  output: CompiledSchema,
  result: CallToolResult,
  name: string,
): Promise<void> | undefined {
  if (result.structuredContent === undefined) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Tool "${name}" declares an outputSchema but returned no structuredContent; return { structuredContent } or an isError result.`,
    );
  }
  const verdict = output.validate(result.structuredContent);
  if (!isPromiseLike(verdict)) {
    rejectInvalidOutput(verdict, name);
    return undefined;
  }
  return Promise.resolve(verdict).then((v) => rejectInvalidOutput(v, name));
}

function rejectInvalidOutput(verdict: ValidationResult<unknown>, name: string): void {
  if (!verdict.ok) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      formatIssues(
        verdict.issues,
        `Tool "${name}" returned structuredContent that does not match its outputSchema`,
      ),
    );
  }
}

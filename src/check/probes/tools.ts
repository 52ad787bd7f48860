/**
 * Tools: the list's shape rules, then calls with arguments made up from each inputSchema (valid
 * ones, which must be served, and invalid ones, which must be refused), results held to the
 * outputSchema, and a call to a tool that does not exist. Only read-only tools are called unless
 * the user allows every tool (`--call-tools`).
 */
import { compilePeerSchema } from '../peer-schema.js';
import { idsOf } from '../requirements.js';
import { invalidInstances, type Origin, validInstance } from '../synthesize.js';
import { brief, describeReply, type Json, type Reply } from '../wire.js';
import { type ProbeContext, SLOW_CALL_MS } from './context.js';

/** JSON-RPC's Internal error: a server that broke, not one that refused a value. */
const INTERNAL_ERROR = -32603;
/** Tools called at most per revision. */
const MAX_CALLED = 25;
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export async function probeTools(ctx: ProbeContext, tools: readonly Json[]): Promise<void> {
  const v = ctx.verdicts;
  if (tools.length === 0) {
    for (const id of idsOf('tools')) v.notApplicable(id, 'the server lists no tools');
  }
  const names = new Set<string>();
  for (const tool of tools) {
    const name = String(tool.name);
    const schema = tool.inputSchema;
    v.expect(
      'tools.input-schema-object',
      typeof schema === 'object' && schema !== null && (schema as Json).type === 'object',
      'every tool has an object inputSchema',
      () =>
        `tool ${JSON.stringify(name)} has inputSchema ${brief(schema)}: its root must be "type": "object"`,
    );
    v.expect(
      'tools.name-format',
      NAME.test(name),
      'every tool name keeps the name rule',
      () => `tool name ${JSON.stringify(name)} is not 1-128 characters of A-Z a-z 0-9 _ - .`,
    );
    v.expect(
      'tools.name-unique',
      !names.has(name),
      'tool names are unique',
      () => `tools/list lists ${JSON.stringify(name)} more than once`,
    );
    names.add(name);
  }

  const callable = tools.filter((tool) => ctx.options.callTools || readOnly(tool));
  if (tools.length > 0 && callable.length === 0) {
    const why = 'no tool is annotated readOnlyHint: true; run with --call-tools to call the others';
    for (const id of ['tools.valid-arguments', 'tools.invalid-arguments', 'tools.output-schema'])
      v.notTested(id, why);
  }
  let outputChecked = false;
  for (const tool of callable.slice(0, MAX_CALLED)) {
    outputChecked = (await callWithMadeUpArguments(ctx, tool)) || outputChecked;
  }
  if (callable.length > 0 && !outputChecked) {
    v.notTested(
      'tools.output-schema',
      'no tool with an outputSchema returned a successful result to the checker',
    );
  }

  const unknown = `switchboard_check_no_such_tool`;
  if (!names.has(unknown) && tools.length > 0) {
    const reply = await ctx.request('tools/call', { name: unknown, arguments: {} });
    v.expect(
      'tools.unknown-tool',
      reply.kind === 'error' && reply.code === -32602,
      'a call to an unknown tool is refused with -32602',
      () =>
        `tools/call of ${JSON.stringify(unknown)}, which the server does not list, was answered with ${describeReply(reply)}; the spec makes it a JSON-RPC error -32602`,
    );
  } else if (tools.length === 0) {
    v.notApplicable('tools.unknown-tool', 'the server lists no tools');
  }
}

/**
 * The call with valid arguments; a call that was slow in an earlier revision (same tool definition,
 * same arguments) is not made again: its answer then is judged again.
 */
async function slowOnce(ctx: ProbeContext, tool: Json, args: Json): Promise<Reply> {
  const key = JSON.stringify([tool, args]);
  const earlier = ctx.options.slowCalls?.get(key);
  if (earlier) return earlier.reply;
  const started = Date.now();
  const reply = await ctx.withProgress('tools/call', { name: String(tool.name), arguments: args }).reply;
  const ms = Date.now() - started;
  if (ms >= SLOW_CALL_MS) ctx.options.slowCalls?.set(key, { revision: ctx.revision, ms, reply });
  return reply;
}

const readOnly = (tool: Json): boolean =>
  typeof tool.annotations === 'object' &&
  tool.annotations !== null &&
  (tool.annotations as Json).readOnlyHint === true;

/** Calls one tool with valid and invalid arguments; true when an outputSchema was checked. */
async function callWithMadeUpArguments(ctx: ProbeContext, tool: Json): Promise<boolean> {
  const v = ctx.verdicts;
  const name = String(tool.name);
  const check = await compilePeerSchema(tool.inputSchema, `The inputSchema of tool "${name}"`);
  if (typeof check === 'string') {
    v.notTested(
      'tools.valid-arguments',
      `the inputSchema of ${JSON.stringify(name)} cannot be compiled: ${check}`,
    );
    return false;
  }
  let outputChecked = false;
  const origin: Origin = { madeUp: false };
  const args = validInstance(tool.inputSchema, tool.inputSchema, 0, origin);
  const problem = args === undefined ? 'no value could be made' : await check(args);
  if (problem !== undefined || typeof args !== 'object' || args === null) {
    v.notTested(
      'tools.valid-arguments',
      `no arguments that satisfy the inputSchema of ${JSON.stringify(name)} could be made up (${problem ?? 'not an object'})`,
    );
  } else {
    const reply = await slowOnce(ctx, tool, args as Json);
    if (reply.kind === 'timeout') {
      v.notTested('tools.valid-arguments', `${JSON.stringify(name)} did not answer within ${reply.ms} ms`);
    } else if (reply.kind === 'result' && reply.result.resultType === 'input_required') {
      v.notTested('tools.valid-arguments', `${JSON.stringify(name)} asks for input (input_required)`);
    } else if (origin.madeUp && reply.kind === 'error' && reply.code !== INTERNAL_ERROR) {
      // A value the checker made up may rightly be refused (an id that names nothing): that shows
      // nothing about the server. An internal error is no refusal: the server broke.
      v.notTested(
        'tools.valid-arguments',
        `${JSON.stringify(name)} refused the made-up arguments ${brief(args)}: ${describeReply(reply)}`,
      );
    } else {
      v.expect(
        'tools.valid-arguments',
        reply.kind === 'result',
        'calls with valid arguments are answered with a CallToolResult',
        () =>
          `tools/call ${JSON.stringify(name)} with ${brief(args)} (valid against its inputSchema) was answered with ${describeReply(reply)}`,
      );
      // Only read-only tools give samples: a snapshot records what a tool answers, not what it did.
      if (reply.kind === 'result' && readOnly(tool)) ctx.surface.sample(name, args as Json, reply.result);
      if (reply.kind === 'result' && reply.result.isError !== true && tool.outputSchema !== undefined) {
        outputChecked = true;
        await checkOutput(ctx, name, tool.outputSchema, reply.result);
      }
    }
  }
  const valid = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  for (const invalid of invalidInstances(tool.inputSchema, valid)) {
    if ((await check(invalid.value)) === undefined) continue; // not invalid after all
    const reply = await ctx.request('tools/call', { name, arguments: invalid.value as Json });
    if (reply.kind === 'timeout' || reply.kind === 'closed') {
      v.notTested('tools.invalid-arguments', `${JSON.stringify(name)}: ${describeReply(reply)}`);
      continue;
    }
    v.expect(
      'tools.invalid-arguments',
      reply.kind === 'error' || reply.result.isError === true,
      'calls with arguments that break the inputSchema are refused',
      () =>
        `tools/call ${JSON.stringify(name)} with ${brief(invalid.value)} (${invalid.why}) succeeded: ${describeReply(reply)}; the server must validate tool inputs`,
    );
  }
  return outputChecked;
}

async function checkOutput(ctx: ProbeContext, name: string, schema: unknown, result: Json): Promise<void> {
  const v = ctx.verdicts;
  if (result.structuredContent === undefined) {
    v.fail(
      'tools.output-schema',
      `tool ${JSON.stringify(name)} declares an outputSchema but its result has no structuredContent: ${brief(result)}`,
    );
    return;
  }
  const check = await compilePeerSchema(schema, `The outputSchema of tool "${name}"`);
  if (typeof check === 'string') {
    v.fail('tools.output-schema', `the outputSchema of ${JSON.stringify(name)} cannot be compiled: ${check}`);
    return;
  }
  const problem = await check(result.structuredContent);
  v.expect(
    'tools.output-schema',
    problem === undefined,
    'structuredContent conforms to the outputSchema',
    () =>
      `tool ${JSON.stringify(name)} returned structuredContent ${brief(result.structuredContent)}, which breaks its outputSchema: ${problem}`,
  );
}

/**
 * Input first, then a task (`deferTask` + `ctx.continueAsTask`): the handler runs inline, may ask
 * for input (2026-07-28: in multi-round trips, before any task exists), and hands the rest of its
 * work to a task — SEP-2663's MRTR-then-task composition. Where the call cannot become a task, the
 * work runs inline. In memory, every frame schema-checked (strict, tasks extension merged in).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import type { RequestContext } from '../../src/server/context.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { envelope, openWire } from '../helpers/wire.js';

trapUnhandledRejections();

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const TEAM = { type: 'object', properties: { team: { type: 'string' } }, required: ['team'] } as const;

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

const aborted = (ctx: RequestContext): Promise<void> =>
  new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });

function handoffServer() {
  const server = new Server({ name: 'handoff', version: '1.0.0' }, { tasks: { pollIntervalMs: 5 } });
  const seen = { handlerRuns: 0, workRuns: 0, aborted: 0, sameContext: [] as boolean[] };
  const onboard = async (ctx: RequestContext) => {
    seen.handlerRuns++;
    const name = await ctx.elicit({ message: 'Your name?', requestedSchema: NAME }, { key: 'user_name' });
    const who = name.action === 'accept' ? name.content.name : 'nobody';
    return ctx.continueAsTask(async (taskCtx) => {
      seen.workRuns++;
      const team = await taskCtx.elicit({ message: `Which team, ${who}?`, requestedSchema: TEAM });
      return `${who} joins ${team.action === 'accept' ? team.content.team : 'no team'}`;
    });
  };
  server.registerTool('onboard', { execution: { taskSupport: 'optional' }, deferTask: true }, (_args, ctx) =>
    onboard(ctx),
  );
  server.registerTool(
    'onboard-required',
    { execution: { taskSupport: 'required' }, deferTask: true },
    (_args, ctx) => onboard(ctx),
  );
  server.registerTool(
    'wait-after',
    { execution: { taskSupport: 'optional' }, deferTask: true },
    (_args, ctx) =>
      ctx.continueAsTask(async (taskCtx) => {
        await aborted(taskCtx);
        seen.aborted++;
        return 'stopped';
      }),
  );
  // Not deferred: the whole handler is the task already, so its handoff runs in the same context.
  server.registerTool('eager', { execution: { taskSupport: 'required' } }, (_args, ctx) =>
    ctx.continueAsTask((taskCtx) => {
      seen.sameContext.push(taskCtx === ctx);
      return 'eager done';
    }),
  );
  return { server, seen };
}

/** The client answers both questions; `askedBy` records which task (if any) asked each. */
function answering(client: Client, askedBy: (string | undefined)[]): void {
  client.onElicitation((params, ctx) => {
    askedBy.push(ctx.taskId);
    const content: Record<string, string> =
      params.message === 'Your name?' ? { name: 'Ada' } : { team: 'core' };
    return { action: 'accept', content };
  });
}

describe('deferTask + ctx.continueAsTask', () => {
  test('2026-07-28: an input_required round without a task, then a creation result without requestState', async () => {
    const { server, seen } = handoffServer();
    const wire = await openWire(server, { check: true });
    const meta = envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, ...TASKS } });
    const first = await wire.request('tools/call', { name: 'onboard-required', arguments: {}, _meta: meta });
    assert.equal(first.result.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.result.inputRequests), ['user_name']);
    assert.ok(!('taskId' in first.result));
    assert.equal((await server.taskStore!.list({ owner: null, limit: 10 })).tasks.length, 0, 'no task yet');

    const second = await wire.request('tools/call', {
      name: 'onboard-required',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result.requestState,
      _meta: meta,
    });
    assert.equal(second.result.resultType, 'task');
    assert.equal(second.result.status, 'working');
    assert.ok(!('requestState' in second.result) && !('inputRequests' in second.result));
    const { taskId } = second.result;

    // The work asks in the task: input_required on tasks/get, answered with tasks/update.
    let task: Record<string, any> = {};
    for (let i = 0; i < 500 && task.status !== 'input_required'; i++) {
      task = (await wire.request('tasks/get', { taskId, _meta: meta })).result;
    }
    assert.equal(task.status, 'input_required');
    const [key] = Object.keys(task.inputRequests);
    assert.equal(task.inputRequests[key!].params.message, 'Which team, Ada?');
    await wire.request('tasks/update', {
      taskId,
      inputResponses: { [key!]: { action: 'accept', content: { team: 'core' } } },
      _meta: meta,
    });
    for (let i = 0; i < 500 && task.status !== 'completed'; i++) {
      task = (await wire.request('tasks/get', { taskId, _meta: meta })).result;
    }
    assert.deepEqual(task.result.content, [{ type: 'text', text: 'Ada joins core' }]);
    assert.deepEqual(seen, { handlerRuns: 2, workRuns: 1, aborted: 0, sameContext: [] });
    wire.assertClean();
    await wire.close();
  });

  test('2026-07-28 with a Switchboard client: callTool answers the round, then follows the task', async () => {
    const { server } = handoffServer();
    const askedBy: (string | undefined)[] = [];
    const pair = await connectPair(server, { tasks: true }, (client) => answering(client, askedBy));
    assert.equal(textOf(await pair.client.callTool('onboard')), 'Ada joins core');
    // The name was asked before any task existed; the team by the task.
    assert.equal(askedBy.length, 2);
    assert.equal(askedBy[0], undefined);
    assert.equal(typeof askedBy[1], 'string');

    const handle = await pair.client.callToolAsTask('onboard-required');
    assert.ok(handle.taskId, 'the handoff made a task');
    assert.equal(textOf(await handle.result()), 'Ada joins core');
    pair.assertClean();
    await pair.close();
  });

  test('the handed-off work stops when the task is cancelled', async () => {
    const { server, seen } = handoffServer();
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('wait-after');
    assert.ok(task.taskId);
    await task.cancel();
    await assert.rejects(
      task.result(),
      (error: unknown) => error instanceof SwitchboardError && error.code === 'TASK_CANCELLED',
    );
    await until(() => seen.aborted > 0, 'the handler saw the cancellation');
    assert.equal(seen.aborted, 1);
    pair.assertClean();
    await pair.close();
  });

  test('without the extension: an optional tool does its work inline, a required one is -32021', async () => {
    const { server, seen } = handoffServer();
    const askedBy: (string | undefined)[] = [];
    const pair = await connectPair(server, {}, (client) => answering(client, askedBy));
    assert.equal(textOf(await pair.client.callTool('onboard')), 'Ada joins core');
    assert.deepEqual(askedBy, [undefined, undefined]);
    const runs = seen.handlerRuns;
    await assert.rejects(
      pair.client.callTool('onboard-required'),
      (error: unknown) =>
        error instanceof ProtocolError && error.code === ErrorCode.MissingRequiredClientCapability,
    );
    assert.equal(seen.handlerRuns, runs, 'the handler never ran');
    pair.assertClean();
    await pair.close();
  });

  test('2025-11-25: a task asked for starts with the call and the work runs in it; otherwise inline', async () => {
    const { server, seen } = handoffServer();
    const askedBy: (string | undefined)[] = [];
    const pair = await connectPair(server, { version: { pin: '2025-11-25' } }, (client) =>
      answering(client, askedBy),
    );
    const task = await pair.client.callToolAsTask('onboard');
    assert.ok(task.taskId);
    assert.equal(textOf(await task.result()), 'Ada joins core');
    assert.deepEqual(askedBy, [task.taskId, task.taskId]);

    askedBy.length = 0;
    assert.equal(textOf(await pair.client.callTool('onboard')), 'Ada joins core');
    assert.deepEqual(askedBy, [undefined, undefined]);
    assert.equal(seen.workRuns, 2);
    pair.assertClean();
    await pair.close();
  });

  test('a tool that is a task from the start runs its handoff in its own context', async () => {
    const { server, seen } = handoffServer();
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('eager');
    assert.ok(task.taskId);
    assert.equal(textOf(await task.result()), 'eager done');
    assert.deepEqual(seen.sameContext, [true]);
    pair.assertClean();
    await pair.close();
  });
});

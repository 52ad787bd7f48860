/**
 * The experimental tasks of 2025-11-25, Switchboard client ↔ Switchboard server in memory, every
 * frame checked against the 2025-11-25 schema (strict).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { Server, type ServerOptions } from '../../src/extensions/server.js';
import { MemoryTaskStore } from '../../src/extensions/tasks/memory-store.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import type { Params } from '../../src/protocol/jsonrpc.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { counter, gate, until } from '../helpers/wait.js';

trapUnhandledRejections();

const LEGACY = { version: { pin: '2025-11-25' as const } };
function tasksServer(options: ServerOptions = {}) {
  const server = new Server(
    { name: 'tasks', version: '1.0.0' },
    { tasks: { pollIntervalMs: 5 }, ...options },
  );
  const release = gate();
  const aborted: string[] = [];
  const progress: number[] = [];
  server.registerTool('slow', { execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    ctx.signal.addEventListener('abort', () => aborted.push('slow'));
    ctx.progress(1, 2, 'halfway');
    progress.push(1);
    await Promise.race([
      release.wait,
      new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
    ]);
    return 'done';
  });
  server.registerTool('batch', { execution: { taskSupport: 'required' } }, () => 'batched');
  server.registerTool('quick', {}, () => 'quick');
  server.registerTool('ask-name', { execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `no name (${answer.action})`;
  });
  server.registerTool('broken', { execution: { taskSupport: 'required' } }, () => {
    throw new ProtocolError(ErrorCode.InvalidParams, 'The upstream refused the query.');
  });
  server.registerTool('failing', { execution: { taskSupport: 'required' } }, () => {
    throw new Error('The disk is full.');
  });
  return { server, release, aborted, progress };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const invalidParams = (error: unknown) =>
  error instanceof ProtocolError && error.code === ErrorCode.InvalidParams;
const methodNotFound = (error: unknown) =>
  error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound;

describe('experimental tasks (2025-11-25)', () => {
  test('initialize advertises the tasks capability; tools list their taskSupport', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, LEGACY);
    assert.deepEqual(pair.client.serverCapabilities.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    assert.equal(pair.client.serverCapabilities.extensions, undefined);
    const { tools } = await pair.client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.deepEqual(support, {
      'ask-name': 'required',
      batch: 'required',
      broken: 'required',
      failing: 'required',
      quick: undefined,
      slow: 'optional',
    });
    pair.assertClean();
    await pair.close();
  });

  test('params.task creates a task; tasks/result waits for its end and returns the result', async () => {
    const { server, release, progress } = tasksServer();
    const pair = await connectPair(server, LEGACY);
    const statuses: Params[] = [];
    pair.client.on('notifications/tasks/status', (params) => statuses.push(params));
    const progressSeen: Params[] = [];
    pair.client.on('notifications/progress', (params) => progressSeen.push(params));
    const task = await pair.client.callToolAsTask('slow', {}, { ttlMs: 120_000 });
    assert.equal(task.task?.status, 'working');
    assert.equal(task.task?.ttlMs, 120_000);
    assert.equal(task.task?.pollIntervalMs, 5);
    await until(() => progress.length === 1, 'the handler start');
    const asked = counter();
    server.intercept('tasks/result', (params, _ctx, next) => {
      asked.fire();
      return next(params);
    });
    const waiting = pair.client.request('tasks/result', { taskId: task.taskId });
    // tasks/result is with the server before the task can end: it waits rather than finds a result.
    await asked.reached(1);
    release.open();
    const result = await waiting;
    assert.deepEqual(result, {
      content: [{ type: 'text', text: 'done' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
    });
    assert.equal(textOf(await task.result()), 'done');
    await until(() => statuses.length > 0, 'a status notification');
    assert.equal(statuses.at(-1)?.status, 'completed');
    assert.equal(statuses.at(-1)?.taskId, task.taskId);
    // No progress token was given: no progress notification.
    assert.deepEqual(progressSeen, []);
    pair.assertClean();
    await pair.close();
  });

  test('lifetimes: the server default, a requested ttl capped by maxTtlMs, null for unlimited', async () => {
    const capped = tasksServer({ tasks: { ttlMs: null, maxTtlMs: 5000 } });
    const pair = await connectPair(capped.server, LEGACY);
    await pair.client.listTools();
    const unlimited = await pair.client.callToolAsTask('batch');
    assert.equal(unlimited.task?.ttlMs, null);
    assert.equal((await pair.client.callToolAsTask('batch', {}, { ttlMs: 60_000 })).task?.ttlMs, 5000);
    assert.equal((await pair.client.callToolAsTask('batch', {}, { ttlMs: 10 })).task?.ttlMs, 10);
    await unlimited.result();
    pair.assertClean();
    await pair.close();
    const modern = await connectPair(capped.server, { tasks: true });
    assert.equal((await modern.client.callToolAsTask('batch')).task?.ttlMs, null);
    modern.assertClean();
    await modern.close();
  });

  test('a required tool: plain callTool asks for a task after tools/list; a bare call is -32601', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, LEGACY);
    await assert.rejects(pair.client.callTool('batch'), methodNotFound);
    await pair.client.listTools();
    assert.equal(textOf(await pair.client.callTool('batch')), 'batched');
    // A tool without task support refuses params.task.
    await assert.rejects(pair.client.request('tools/call', { name: 'quick', task: {} }), methodNotFound);
    await assert.rejects(
      pair.client.request('tools/call', { name: 'slow', task: { ttl: -1 } }),
      invalidParams,
    );
    pair.assertClean();
    await pair.close();
  });

  test('input during a task: a request tagged with the task, answered by the client handler', async () => {
    const store = new MemoryTaskStore();
    const statuses: string[] = [];
    store.subscribe((_id, record) => {
      if (record && statuses.at(-1) !== record.status) statuses.push(record.status);
    });
    const { server } = tasksServer({ tasks: { store, pollIntervalMs: 5 } });
    const asked: (string | undefined)[] = [];
    const pair = await connectPair(server, LEGACY, (client) =>
      client.onElicitation((_params, ctx) => {
        asked.push(ctx.taskId);
        return { action: 'accept', content: { name: 'Grace' } };
      }),
    );
    const task = await pair.client.callToolAsTask('ask-name');
    assert.equal(textOf(await task.result()), 'Hello, Grace!');
    assert.deepEqual(asked, [task.taskId]);
    assert.deepEqual(statuses, ['working', 'input_required', 'working', 'completed']);
    pair.assertClean();
    await pair.close();
  });

  test('progress of a task goes to the connection, tagged with the task', async () => {
    const { server, release } = tasksServer();
    const pair = await connectPair(server, LEGACY);
    const progressSeen: Params[] = [];
    pair.client.on('notifications/progress', (params) => progressSeen.push(params));
    const task = await pair.client.callToolAsTask('slow', {}, { meta: { progressToken: 'p1' } });
    await until(() => progressSeen.length === 1, 'the progress notification');
    assert.deepEqual(progressSeen[0], {
      progressToken: 'p1',
      progress: 1,
      total: 2,
      message: 'halfway',
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } },
    });
    release.open();
    await task.result();
    pair.assertClean();
    await pair.close();
  });

  test('a tool error fails the task, and tasks/result returns the isError result', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, LEGACY);
    const failing = await pair.client.callToolAsTask('failing');
    const result = await failing.result();
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'The disk is full.');
    assert.equal((await failing.refresh()).status, 'failed');
    const broken = await pair.client.callToolAsTask('broken');
    await assert.rejects(
      broken.result(),
      (error: unknown) =>
        invalidParams(error) && (error as Error).message === 'The upstream refused the query.',
    );
    const details = await broken.refresh();
    assert.equal(details.status, 'failed');
    assert.equal(details.statusMessage, 'The upstream refused the query.');
    pair.assertClean();
    await pair.close();
  });

  test('tasks/cancel: the cancelled task, the handler aborted; a finished task cannot be cancelled', async () => {
    const { server, aborted } = tasksServer();
    const pair = await connectPair(server, LEGACY);
    const task = await pair.client.callToolAsTask('slow');
    const answer = await pair.client.request('tasks/cancel', { taskId: task.taskId });
    assert.equal(answer.status, 'cancelled');
    assert.equal(answer.taskId, task.taskId);
    await until(() => aborted.length === 1, 'the handler abort');
    await assert.rejects(
      task.result(),
      (error: unknown) => error instanceof SwitchboardError && error.code === 'TASK_CANCELLED',
    );
    await assert.rejects(pair.client.request('tasks/result', { taskId: task.taskId }), invalidParams);
    await assert.rejects(task.cancel(), invalidParams);
    pair.assertClean();
    await pair.close();
  });

  test('a task dies with its session: closing the connection aborts the handler and drops the record', async () => {
    const store = new MemoryTaskStore();
    const { server, release, aborted } = tasksServer({ tasks: { store, pollIntervalMs: 5 } });
    try {
      const pair = await connectPair(server, LEGACY);
      const taskId = (await pair.client.callToolAsTask('slow')).taskId!;
      assert.equal((await store.get(taskId))?.status, 'working');
      // Another session's task is not touched.
      const other = await connectPair(server, LEGACY);
      const keptId = (await other.client.callToolAsTask('slow')).taskId!;
      await pair.close();
      await until(() => aborted.length === 1, 'the handler abort');
      assert.equal(await store.get(taskId), undefined);
      assert.equal((await store.get(keptId))?.status, 'working');
      await other.close();
      await until(() => aborted.length === 2, 'the second handler abort');
    } finally {
      release.open();
    }
  });

  test('tasks/list pages through the caller’s own tasks; another session sees none of them', async () => {
    const { server } = tasksServer({ pageSize: 2 });
    const pair = await connectPair(server, LEGACY);
    await pair.client.listTools();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const task = await pair.client.callToolAsTask('batch');
      ids.push(task.taskId!);
      await task.result();
    }
    const all = await pair.client.listTasks();
    assert.deepEqual(
      all.tasks.map((t) => t.taskId),
      ids,
    );
    assert.ok(all.tasks.every((t) => t.status === 'completed'));
    const first = await pair.client.listTasks({ singlePage: true });
    assert.equal(first.tasks.length, 2);
    assert.equal(typeof first.nextCursor, 'string');
    await assert.rejects(pair.client.request('tasks/list', { cursor: 'not-a-cursor' }), invalidParams);

    const other = await connectPair(server, LEGACY);
    assert.deepEqual((await other.client.listTasks()).tasks, []);
    await assert.rejects(other.client.getTask(ids[0]!), invalidParams);
    await assert.rejects(other.client.request('tasks/result', { taskId: ids[0] }), invalidParams);
    pair.assertClean();
    other.assertClean();
    await Promise.all([pair.close(), other.close()]);
  });

  test('older revisions know no tasks: a required tool runs inline, tasks/* is -32601', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, { version: { pin: '2025-06-18' } });
    assert.equal(pair.client.serverCapabilities.tasks, undefined);
    const { tools } = await pair.client.listTools();
    assert.ok(tools.every((tool) => tool.execution === undefined));
    assert.equal(textOf(await pair.client.callTool('batch')), 'batched');
    const handle = await pair.client.callToolAsTask('batch');
    assert.equal(handle.taskId, undefined);
    assert.equal(textOf(await handle.result()), 'batched');
    await assert.rejects(pair.client.request('tasks/get', { taskId: 'x' }), methodNotFound);
    // The one violation is that request, sent on purpose.
    assert.throws(
      () => pair.assertClean(),
      /1 schema violation[\s\S]*"tasks\/get" does not exist in revision 2025-06-18/,
    );
    await pair.close();
  });

  test('a 2025-11-25 task is invisible to a 2026-07-28 caller (and the reverse)', async () => {
    const { server, release } = tasksServer();
    const legacy = await connectPair(server, LEGACY);
    const bystander = await connectPair(server, LEGACY);
    const modern = await connectPair(server, { tasks: true });
    const heard = { legacy: 0, bystander: 0, modern: 0 };
    for (const [name, pair] of [
      ['legacy', legacy],
      ['bystander', bystander],
      ['modern', modern],
    ] as const) {
      pair.client.on('notifications/tasks/status', () => heard[name]++);
      pair.client.on('notifications/tasks', () => heard[name]++);
    }
    const legacyTask = await legacy.client.callToolAsTask('slow');
    const modernTask = await modern.client.callToolAsTask('slow');
    await assert.rejects(modern.client.getTask(legacyTask.taskId!), invalidParams);
    await assert.rejects(legacy.client.getTask(modernTask.taskId!), invalidParams);
    release.open();
    await Promise.all([legacyTask.result(), modernTask.result()]);
    // Status notifications go to the connection that created the task, and nowhere else.
    await until(() => heard.legacy > 0, 'the status notification');
    assert.deepEqual({ ...heard, legacy: 1 }, { legacy: 1, bystander: 0, modern: 0 });
    for (const pair of [legacy, bystander, modern]) pair.assertClean();
    await Promise.all([legacy.close(), bystander.close(), modern.close()]);
  });

  test('the v1-style flow: poll tasks/get, call tasks/result on input_required', async () => {
    // What the official v1 client does, by hand: the input request arrives while tasks/result waits.
    const catalog = await loadSchemaCatalog();
    const { server } = tasksServer();
    const [clientEnd, serverEnd] = createLinkedChannels();
    server.connect(new SchemaCheckedChannel(serverEnd, { catalog, side: 'server', peer: 'assert' }));
    const client = new Client({ name: 'by-hand', version: '1.0.0' }, LEGACY);
    const related: unknown[] = [];
    client.onElicitation((params) => {
      related.push((params._meta as Params | undefined)?.['io.modelcontextprotocol/related-task']);
      return { action: 'accept', content: { name: 'Lin' } };
    });
    await client.connect(clientEnd);
    const created = await client.request('tools/call', { name: 'ask-name', task: {} });
    const taskId = ((created as unknown as Params).task as Params).taskId as string;
    let status = '';
    for (let i = 0; i < 500 && status !== 'input_required' && status !== 'completed'; i++) {
      status = (await client.request('tasks/get', { taskId })).status as string;
    }
    const result = await client.request('tasks/result', { taskId });
    assert.equal(textOf(result as never), 'Hello, Lin!');
    assert.deepEqual(related, [{ taskId }]);
    await client.close();
  });
});

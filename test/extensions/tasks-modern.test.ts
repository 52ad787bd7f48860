/**
 * The 2026-07-28 tasks extension, Switchboard client ↔ Switchboard server in memory, every frame
 * checked against the 2026-07-28 schema with the extension's schema merged in (strict).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuthInfo, Channel, ChannelSink, FrameInfo } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { Server, type ServerOptions } from '../../src/extensions/server.js';
import { MemoryTaskStore } from '../../src/extensions/tasks/memory-store.js';
import type { NewTask, TaskRecord, TaskStore } from '../../src/extensions/tasks/store.js';
import { TASKS_EXTENSION, type TaskInfo } from '../../src/extensions/tasks/types.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { gate, until } from '../helpers/wait.js';

trapUnhandledRejections();

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

function tasksServer(options: ServerOptions = {}) {
  const server = new Server(
    { name: 'tasks', version: '1.0.0' },
    { tasks: { pollIntervalMs: 5 }, ...options },
  );
  const release = gate();
  const aborted: string[] = [];
  server.registerTool(
    'slow',
    { description: 'Waits for the test', execution: { taskSupport: 'optional' } },
    async (_args, ctx) => {
      ctx.signal.addEventListener('abort', () => aborted.push('slow'));
      await Promise.race([
        release.wait,
        new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
      ]);
      return 'done';
    },
  );
  server.registerTool('batch', { execution: { taskSupport: 'required' } }, () => 'batched');
  server.registerTool('quick', { execution: { taskSupport: 'forbidden' } }, () => 'quick');
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
  return { server, release, aborted };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

/** The server end of a channel whose every message arrives with verified credentials (as over HTTP). */
class Authenticated implements Channel {
  constructor(
    private readonly inner: Channel,
    private readonly auth: AuthInfo,
  ) {}
  start(sink: ChannelSink): void {
    this.inner.start({
      message: (value) => sink.message(value, { auth: this.auth }),
      malformed: (error) => sink.malformed(error),
      closed: (error) => sink.closed(error),
    });
  }
  send(frame: string, info?: FrameInfo): void {
    this.inner.send(frame, info);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function clientAs(
  server: Server,
  subject: string,
): Promise<{ client: Client; checked: SchemaCheckedChannel }> {
  const catalog = await loadSchemaCatalog();
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(new Authenticated(serverEnd, { subject, token: `token-of-${subject}` }));
  const checked = new SchemaCheckedChannel(clientEnd, { catalog, side: 'client', peer: 'assert' });
  const client = new Client({ name: subject, version: '1.0.0' }, { tasks: true });
  await client.connect(checked);
  return { client, checked };
}

describe('tasks extension (2026-07-28)', () => {
  test('the server advertises the extension and lists no execution field', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    assert.deepEqual(pair.client.serverCapabilities.extensions, { [TASKS_EXTENSION]: {} });
    assert.equal(pair.client.serverCapabilities.tasks, undefined);
    const { tools } = await pair.client.listTools();
    assert.ok(tools.every((tool) => tool.execution === undefined));
    pair.assertClean();
    await pair.close();
  });

  test('a task runs to completion; its statuses follow working → completed', async () => {
    const { server, release } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('slow');
    assert.equal(task.task?.status, 'working');
    assert.match(task.taskId!, /^[0-9a-f-]{36}$/);
    assert.equal(typeof task.task?.ttlMs, 'number');
    assert.equal(task.task?.pollIntervalMs, 5);
    assert.equal((await task.refresh()).status, 'working');
    const seen: string[] = [];
    const done = task.result({ onStatus: (t) => seen.push(t.status) });
    await until(() => seen.length > 0, 'the first status');
    release.open();
    assert.equal(textOf(await done), 'done');
    assert.deepEqual([...new Set(seen)], ['working', 'completed']);
    pair.assertClean();
    await pair.close();
  });

  test('a task is stored before its id goes out', async () => {
    const inner = new MemoryTaskStore();
    const creating = gate();
    let stored = false;
    const store: TaskStore = {
      create: async (task: NewTask) => {
        await creating.wait;
        const record = await inner.create(task);
        stored = true;
        return record;
      },
      get: (id) => inner.get(id),
      update: (id, patch) => inner.update(id, patch),
      list: (query) => inner.list(query),
      delete: (id) => inner.delete(id),
      subscribe: (listener) => inner.subscribe(listener),
    };
    const { server, release } = tasksServer({ tasks: { store, pollIntervalMs: 5 } });
    const pair = await connectPair(server, { tasks: true });
    const seenOnArrival: (TaskRecord | undefined)[] = [];
    pair.client.use((next) => async (method, params, ctx) => {
      const result = (await next(method, params, ctx)) as Record<string, unknown>;
      if (result.resultType === 'task') seenOnArrival.push(await inner.get(result.taskId as string));
      return result;
    });
    let answered = false;
    const call = pair.client.callToolAsTask('slow').then((task) => {
      answered = true;
      return task;
    });
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(answered, false, 'the server answered before the store created the task');
    creating.open();
    const task = await call;
    assert.equal(stored, true);
    assert.equal(seenOnArrival.length, 1);
    assert.equal(seenOnArrival[0]?.taskId, task.taskId);
    release.open();
    await task.result();
    pair.assertClean();
    await pair.close();
  });

  test('input inside a task: ctx.elicit waits for tasks/update (input_required, then working)', async () => {
    const store = new MemoryTaskStore();
    const statuses: string[] = [];
    store.subscribe((_id, record) => {
      if (record && statuses.at(-1) !== record.status) statuses.push(record.status);
    });
    const { server } = tasksServer({ tasks: { store, pollIntervalMs: 5 } });
    const asked: { taskId?: string; key?: string; message: string }[] = [];
    const pair = await connectPair(server, { tasks: true }, (client) =>
      client.onElicitation((params, ctx) => {
        asked.push({ taskId: ctx.taskId, key: ctx.key, message: params.message });
        return { action: 'accept', content: { name: 'Luca' } };
      }),
    );
    const task = await pair.client.callToolAsTask('ask-name');
    const result = await task.result();
    assert.equal(textOf(result), 'Hello, Luca!');
    assert.deepEqual(asked, [{ taskId: task.taskId, key: '0', message: 'Your name?' }]);
    assert.deepEqual(statuses, ['working', 'input_required', 'working', 'completed']);
    pair.assertClean();
    await pair.close();
  });

  test('questions asked together are answered together, each key once', async () => {
    const { server } = tasksServer();
    server.registerTool('two-questions', { execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      const ask = (message: string) =>
        ctx.elicit({ message, requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
      const [a, b] = await Promise.all([ask('first?'), ask('second?')]);
      const third = await ask('third?');
      return [a, b, third].map((x) => (x.action === 'accept' ? x.content.v : x.action)).join(' ');
    });
    const asked: string[] = [];
    const pair = await connectPair(server, { tasks: true }, (client) =>
      client.onElicitation((params, ctx) => {
        asked.push(`${ctx.key}:${params.message}`);
        return { action: 'accept', content: { v: params.message.replace('?', '!') } };
      }),
    );
    assert.equal(textOf(await pair.client.callTool('two-questions')), 'first! second! third!');
    assert.deepEqual(asked, ['0:first?', '1:second?', '2:third?']);
    pair.assertClean();
    await pair.close();
  });

  test('tasks/get shows the pending input requests; answers to unknown keys are ignored', async () => {
    const { server } = tasksServer();
    // The handler declares elicitation; this test answers by hand instead.
    const pair = await connectPair(server, { tasks: true }, (client) =>
      client.onElicitation(() => {
        throw new Error('answered by hand in this test');
      }),
    );
    const task = await pair.client.callToolAsTask('ask-name');
    let details = await task.refresh();
    for (let i = 0; i < 500 && details.status !== 'input_required'; i++) {
      await tick();
      details = await task.refresh();
    }
    assert.equal(details.status, 'input_required');
    assert.deepEqual(Object.keys(details.inputRequests ?? {}), ['0']);
    assert.equal(details.inputRequests?.['0']?.method, 'elicitation/create');
    // A wrong shape is refused; an unknown key is not an error.
    await assert.rejects(
      pair.client.request('tasks/update', {
        taskId: task.taskId,
        inputResponses: { '0': { action: 'maybe' } },
      }),
      (error: unknown) => error instanceof ProtocolError && error.code === ErrorCode.InvalidParams,
    );
    assert.deepEqual(
      await pair.client.request('tasks/update', {
        taskId: task.taskId,
        inputResponses: { '7': { action: 'accept' } },
      }),
      { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': server.info } },
    );
    assert.equal((await task.refresh()).status, 'input_required');
    await pair.client.request('tasks/update', {
      taskId: task.taskId,
      inputResponses: { '0': { action: 'decline' } },
    });
    assert.equal(textOf(await task.result()), 'no name (decline)');
    // The one violation is the malformed answer this test sent on purpose.
    assert.throws(
      () => pair.assertClean(),
      /1 schema violation[\s\S]*inputResponses\/0[\s\S]*\/action: expected one of/,
    );
    await pair.close();
  });

  test('cancel aborts the handler; the task stays cancelled and result() says so', async () => {
    const { server, aborted } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('slow');
    await task.cancel();
    await until(() => aborted.length === 1, 'the handler abort');
    const details = await task.refresh();
    assert.equal(details.status, 'cancelled');
    await assert.rejects(
      task.result(),
      (error: unknown) => error instanceof SwitchboardError && error.code === 'TASK_CANCELLED',
    );
    // Cancelling again is acknowledged (the extension's cancel is an acknowledgement).
    await task.cancel();
    assert.equal((await task.refresh()).status, 'cancelled');
    pair.assertClean();
    await pair.close();
  });

  test('a JSON-RPC failure fails the task; a thrown error completes it with isError', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    const broken = await pair.client.callToolAsTask('broken');
    await assert.rejects(
      broken.result(),
      (error: unknown) =>
        error instanceof ProtocolError &&
        error.code === ErrorCode.InvalidParams &&
        error.message === 'The upstream refused the query.',
    );
    const details = await broken.refresh();
    assert.equal(details.status, 'failed');
    assert.deepEqual(details.error, { code: -32602, message: 'The upstream refused the query.' });
    const failing = await pair.client.callToolAsTask('failing');
    const result = await failing.result();
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'The disk is full.');
    assert.equal((await failing.refresh()).status, 'completed');
    pair.assertClean();
    await pair.close();
  });

  test('without the extension: a required tool answers -32021, an optional one runs inline', async () => {
    const { server, release } = tasksServer();
    const pair = await connectPair(server);
    await assert.rejects(pair.client.callTool('batch'), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.MissingRequiredClientCapability);
      assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
      return true;
    });
    release.open();
    assert.equal(textOf(await pair.client.callTool('slow')), 'done');
    // tasks/* and task notifications need the declaration too.
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/cancel', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['subscriptions/listen', { notifications: { taskIds: ['x'] } }],
    ] as const) {
      await assert.rejects(
        pair.client.request(method, params),
        (error: unknown) =>
          error instanceof ProtocolError && error.code === ErrorCode.MissingRequiredClientCapability,
        method,
      );
    }
    await assert.rejects(
      pair.client.callToolAsTask('batch'),
      (error: unknown) => error instanceof SwitchboardError && error.code === 'CONFIG',
    );
    pair.assertClean();
    await pair.close();
  });

  test('with the extension, a plain callTool follows a task to its end (input answered on the way)', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, { tasks: true }, (client) =>
      client.onElicitation(() => ({ action: 'accept', content: { name: 'Ada' } })),
    );
    assert.equal(textOf(await pair.client.callTool('ask-name')), 'Hello, Ada!');
    assert.equal(textOf(await pair.client.callTool('batch')), 'batched');
    // A forbidden tool never becomes a task.
    const quick = await pair.client.callToolAsTask('quick');
    assert.equal(quick.taskId, undefined);
    assert.equal(textOf(await quick.result()), 'quick');
    pair.assertClean();
    await pair.close();
  });

  test('an unknown or expired task is -32602', async () => {
    let now = 1_000_000;
    const store = new MemoryTaskStore({ now: () => now });
    const server = new Server({ name: 'tasks', version: '1.0.0' }, { tasks: { store, ttlMs: 60_000 } });
    server.registerTool('instant', { execution: { taskSupport: 'required' } }, () => 'ok');
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('instant');
    assert.equal(task.task?.ttlMs, 60_000);
    assert.equal(textOf(await task.result()), 'ok');
    now += 59_999;
    assert.equal((await task.refresh()).status, 'completed');
    now += 1;
    const notFound = (error: unknown) =>
      error instanceof ProtocolError && error.code === ErrorCode.InvalidParams;
    await assert.rejects(task.refresh(), notFound);
    await assert.rejects(pair.client.getTask('no-such-task'), notFound);
    await assert.rejects(pair.client.cancelTask('no-such-task'), notFound);
    pair.assertClean();
    await pair.close();
  });

  test('a task still running when its ttlMs passes is stopped and forgotten', async () => {
    const server = new Server({ name: 'tasks', version: '1.0.0' }, { tasks: { ttlMs: 30 } });
    let reason: unknown;
    server.registerTool('forever', { execution: { taskSupport: 'required' } }, (_args, ctx) => {
      return new Promise<string>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          reason = ctx.signal.reason;
          resolve('stopped');
        }),
      );
    });
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('forever');
    await until(() => reason !== undefined, 'the expiry');
    assert.ok(reason instanceof SwitchboardError && reason.code === 'TIMEOUT');
    await assert.rejects(
      task.refresh(),
      (error: unknown) => error instanceof ProtocolError && error.code === -32602,
    );
    pair.assertClean();
    await pair.close();
  });

  test('notifications/tasks reach only the listen streams that named the task', async () => {
    const { server, release } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    const { client } = pair;
    const first = await client.callToolAsTask('slow');
    const other = await client.callToolAsTask('batch');
    await other.result();
    const heard: Record<string, TaskInfo[]> = { a: [], b: [], c: [] };
    const listener = (name: string) => ({
      onNotification: (method: string, params: Record<string, unknown>) => {
        if (method === 'notifications/tasks') heard[name]!.push(params as unknown as TaskInfo);
      },
    });
    const a = client.listen({ taskIds: [first.taskId!, 'unknown-task'] } as never, listener('a'));
    const b = client.listen({ toolsListChanged: true }, listener('b'));
    const c = client.listen({ taskIds: [other.taskId!] } as never, listener('c'));
    // Only tasks the caller can see are agreed to.
    assert.deepEqual(await a.acknowledged, { taskIds: [first.taskId] });
    assert.deepEqual(await b.acknowledged, { toolsListChanged: true });
    assert.deepEqual(await c.acknowledged, { taskIds: [other.taskId] });
    release.open();
    assert.equal(textOf(await first.result()), 'done');
    await until(() => heard.a!.some((t) => t.status === 'completed'), 'the completion notification');
    const completed = heard.a!.find((t) => t.status === 'completed') as unknown as Record<string, unknown>;
    assert.deepEqual(completed.result, { content: [{ type: 'text', text: 'done' }] });
    assert.ok(heard.a!.every((t) => t.taskId === first.taskId));
    assert.deepEqual(heard.b, []);
    assert.deepEqual(heard.c, []);
    await Promise.all([a.close(), b.close(), c.close()]);
    pair.assertClean();
    await pair.close();
  });

  test('result({ notifications: true }) follows the task on a listen stream', async () => {
    const { server, release } = tasksServer({ tasks: { pollIntervalMs: 60_000 } });
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('slow');
    assert.equal(task.task?.pollIntervalMs, 60_000);
    const seen: string[] = [];
    const done = task.result({ notifications: true, onStatus: (t) => seen.push(t.status) });
    await until(() => server.notifications.listens === 1, 'the listen stream');
    release.open();
    // With a one-minute poll interval, only the notification can end this wait in time.
    assert.equal(textOf(await done), 'done');
    assert.deepEqual(seen, ['working', 'completed']);
    await until(() => server.notifications.listens === 0, 'the end of the listen stream');
    pair.assertClean();
    await pair.close();
  });

  test('a task handle by id resumes where the task is; abort stops waiting, not the task', async () => {
    const { server, release, aborted } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    const created = await pair.client.callToolAsTask('slow');
    const controller = new AbortController();
    const waiting = created.result({ signal: controller.signal });
    controller.abort();
    await assert.rejects(
      waiting,
      (error: unknown) => error instanceof SwitchboardError && error.code === 'ABORTED',
    );
    assert.deepEqual(aborted, []);
    const resumed = pair.client.task(created.taskId!);
    release.open();
    assert.equal(textOf(await resumed.result()), 'done');
    pair.assertClean();
    await pair.close();
  });

  test('a task belongs to the credentials that created it', async () => {
    const { server, release } = tasksServer();
    const alice = await clientAs(server, 'alice');
    const bob = await clientAs(server, 'bob');
    const task = await alice.client.callToolAsTask('slow');
    const notFound = (error: unknown) =>
      error instanceof ProtocolError && error.code === ErrorCode.InvalidParams;
    await assert.rejects(bob.client.getTask(task.taskId!), notFound);
    await assert.rejects(bob.client.cancelTask(task.taskId!), notFound);
    await assert.rejects(
      bob.client.request('tasks/update', { taskId: task.taskId, inputResponses: {} }),
      notFound,
    );
    const spying = bob.client.listen({ taskIds: [task.taskId!] } as never);
    assert.deepEqual(await spying.acknowledged, {});
    await spying.close();
    assert.equal((await alice.client.getTask(task.taskId!)).status, 'working');
    release.open();
    assert.equal(textOf(await task.result()), 'done');
    await Promise.all([alice.client.close(), bob.client.close()]);
    alice.checked.assertClean();
    bob.checked.assertClean();
  });

  test('server.close() fails the tasks still running and stops their handlers', async () => {
    const { server, aborted } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    const task = await pair.client.callToolAsTask('slow');
    await server.close();
    assert.deepEqual(aborted, ['slow']);
    const record = await server.taskStore!.get(task.taskId!);
    assert.equal(record?.status, 'failed');
    assert.equal(record?.error?.code, ErrorCode.InternalError);
    pair.assertClean();
  });

  test('tasks/list and tasks/result do not exist on 2026-07-28', async () => {
    const { server } = tasksServer();
    const pair = await connectPair(server, { tasks: true });
    for (const method of ['tasks/list', 'tasks/result']) {
      await assert.rejects(
        pair.client.request(method, { taskId: 'x' }),
        (error: unknown) => error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound,
      );
    }
    await assert.rejects(
      pair.client.listTasks(),
      (error: unknown) => error instanceof SwitchboardError && error.code === 'CAPABILITY_MISSING',
    );
    await pair.close();
  });

  test('a server without task tools answers tasks/* with -32601 and advertises nothing', async () => {
    const server = new Server({ name: 'plain', version: '1.0.0' });
    server.registerTool('quick', {}, () => 'quick');
    const pair = await connectPair(server, { tasks: true });
    assert.equal(pair.client.serverCapabilities.extensions, undefined);
    await assert.rejects(
      pair.client.getTask('x'),
      (error: unknown) => error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound,
    );
    pair.assertClean();
    await pair.close();
  });
});

/**
 * Tasks against the official v1 SDK's experimental tasks (2025-11-25), in memory, both ways:
 * - the v1 client (`experimental.tasks.callToolStream`, `getTask`, `listTasks`, `cancelTask`) → a
 *   Switchboard server; input during the task arrives while the v1 client waits on `tasks/result`;
 * - a Switchboard client → a v1 server with `registerToolTask` and its in-memory task store and
 *   message queue (input requests queued for, and delivered on, `tasks/result`).
 * The Switchboard side's frames are schema-checked strictly; the official side's are reported.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  InMemoryTaskMessageQueue,
  InMemoryTaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { bridge } from '../helpers/official.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';

trapUnhandledRejections();

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

function switchboardServer() {
  const server = new Server(
    { name: 'switchboard-tasks', version: '1.0.0' },
    { tasks: { pollIntervalMs: 5 } },
  );
  let aborted = 0;
  server.registerTool('ask-name', { execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'Hello?';
  });
  server.registerTool('wait', { execution: { taskSupport: 'optional' } }, (_args, ctx) => {
    return new Promise<string>((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        aborted++;
        resolve('aborted');
      }),
    );
  });
  return { server, aborted: () => aborted };
}

describe('official v1 client → Switchboard server (2025-11-25 tasks)', () => {
  test('callToolStream: created, polled, input on tasks/result, result', async () => {
    const { server } = switchboardServer();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const channel = await bridge(serverTransport, 'server');
    server.connect(channel);
    const client = new V1Client(
      { name: 'official-v1', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const related: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      related.push(request.params._meta?.['io.modelcontextprotocol/related-task']);
      return { action: 'accept', content: { name: 'v1 client' } };
    });
    await client.connect(clientTransport);
    assert.ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call);
    await client.listTools();

    const seen: string[] = [];
    let taskId = '';
    let result: any;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: 'ask-name', arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'taskStatus') seen.push(message.task.status);
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    assert.equal(textOf(result), 'Hello, v1 client!');
    assert.deepEqual(result._meta, { 'io.modelcontextprotocol/related-task': { taskId } });
    assert.deepEqual(related, [{ taskId }]);
    assert.ok(seen.length > 0);

    const task = await client.experimental.tasks.getTask(taskId);
    assert.equal(task.status, 'completed');
    assert.equal(task.ttl, 60_000);
    const listed = await client.experimental.tasks.listTasks();
    assert.deepEqual(
      listed.tasks.map((t) => t.taskId),
      [taskId],
    );
    await client.close();
    channel.assertClean();
  });

  test('cancelTask: the v1 client cancels, the handler stops', async () => {
    const { server, aborted } = switchboardServer();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const channel = await bridge(serverTransport, 'server');
    server.connect(channel);
    const client = new V1Client({ name: 'official-v1', version: '1.0.0' });
    await client.connect(clientTransport);
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'wait', arguments: {} },
      CallToolResultSchema,
      {
        task: {},
      },
    );
    const first = await stream.next();
    assert.equal(first.value?.type, 'taskCreated');
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    await until(() => aborted() > 0, 'the handler saw the cancellation');
    assert.equal(aborted(), 1);
    await stream.return(undefined);
    await client.close();
    channel.assertClean();
  });
});

describe('Switchboard client → official v1 server (2025-11-25 tasks)', () => {
  async function officialServer() {
    const taskStore = new InMemoryTaskStore();
    const server = new McpServer(
      { name: 'official-v1-tasks', version: '1.0.0' },
      {
        capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } },
        taskStore,
        taskMessageQueue: new InMemoryTaskMessageQueue(),
        defaultTaskPollInterval: 10,
      },
    );
    server.experimental.tasks.registerToolTask(
      'greet',
      { description: 'Asks for a name in the background', execution: { taskSupport: 'required' } },
      {
        async createTask(extra) {
          const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 10 });
          void (async () => {
            // Input a task needs is queued for tasks/result, and the task says it waits.
            await extra.taskStore.updateTaskStatus(task.taskId, 'input_required');
            const answer = await server.server.request(
              {
                method: 'elicitation/create',
                params: {
                  mode: 'form',
                  message: 'Your name?',
                  requestedSchema: {
                    type: 'object',
                    properties: { name: { type: 'string' } },
                    required: ['name'],
                  },
                },
              },
              ElicitResultSchema,
              { relatedTask: { taskId: task.taskId } },
            );
            await extra.taskStore.updateTaskStatus(task.taskId, 'working');
            await extra.taskStore.storeTaskResult(task.taskId, 'completed', {
              content: [{ type: 'text', text: `Hello, ${answer.content?.name}!` }],
            });
          })();
          return { task };
        },
        getTask: (extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
      },
    );
    server.experimental.tasks.registerToolTask(
      'count',
      { execution: { taskSupport: 'optional' } },
      {
        async createTask(extra) {
          const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 10 });
          void extra.taskStore.storeTaskResult(task.taskId, 'completed', {
            content: [{ type: 'text', text: '3' }],
          });
          return { task };
        },
        getTask: (extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: (extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
      },
    );
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const channel = await bridge(clientTransport, 'client');
    const client = new Client({ name: 'switchboard', version: '1.0.0' }, { version: 'legacy' });
    const asked: (string | undefined)[] = [];
    client.onElicitation((_params, ctx) => {
      asked.push(ctx.taskId);
      return { action: 'accept', content: { name: 'Switchboard' } };
    });
    await client.connect(channel);
    const close = async () => {
      await Promise.all([client.close(), server.close()]);
      // The v1 store keeps a timer per task until its ttl: let the process end now.
      taskStore.cleanup();
    };
    return { client, channel, asked, close };
  }

  test('callToolAsTask: input delivered on tasks/result and answered by the handler', async () => {
    const { client, channel, asked, close } = await officialServer();
    assert.equal(client.revision, '2025-11-25');
    const task = await client.callToolAsTask('greet', {}, { ttlMs: 30_000 });
    assert.ok(task.taskId);
    assert.equal(textOf(await task.result()), 'Hello, Switchboard!');
    assert.deepEqual(asked, [task.taskId]);
    assert.equal((await client.getTask(task.taskId!)).status, 'completed');
    const { tasks } = await client.listTasks();
    assert.ok(tasks.some((t) => t.taskId === task.taskId));
    await close();
    channel.assertClean();
  });

  test('a required tool through plain callTool; cancelling a finished task is refused', async () => {
    const { client, channel, close } = await officialServer();
    await client.listTools();
    assert.equal(textOf(await client.callTool('greet')), 'Hello, Switchboard!');
    const counted = await client.callToolAsTask('count');
    assert.equal(textOf(await counted.result()), '3');
    await assert.rejects(
      counted.cancel(),
      (error: unknown) => error instanceof ProtocolError && error.code === ErrorCode.InvalidParams,
    );
    await close();
    channel.assertClean();
  });
});

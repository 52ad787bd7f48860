/**
 * Tasks over real loopback HTTP, both forms: a Switchboard client (`StreamableHttpClientChannel`
 * with `nodeFetch`) and a Switchboard server (`createHttpHandler` + `serve`). Every frame the client
 * sends and receives is checked against its revision's schema (strict; on 2026-07-28 with the tasks
 * extension's schema merged in), and every HTTP exchange is recorded, so the tests can say which
 * POST or stream carried what.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { TASK_NOTIFICATION } from '../../src/extensions/tasks/types.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { type RunningServer, serve } from '../../src/node/serve.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import type { RequestContext } from '../../src/server/context.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import type { FetchLike, ResponseLike } from '../../src/transports/http/client/fetch-like.js';
import {
  StreamableHttpClientChannel,
  type StreamableHttpClientChannelOptions,
} from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { gate, until } from '../helpers/wait.js';

trapUnhandledRejections();

const MODERN = '2026-07-28';
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** One HTTP exchange the client made: what it sent, and everything the response carried. */
interface Recorded {
  readonly verb: string;
  readonly headers: Record<string, string>;
  /** The JSON-RPC message POSTed, if any. */
  readonly body: Record<string, unknown> | undefined;
  status: number;
  /** The response body as read so far (JSON, or the SSE text). */
  text: string;
}

/** A fetch that records every exchange, reading each response body as the channel reads it. */
function recording(inner: FetchLike): { fetch: FetchLike; exchanges: Recorded[] } {
  const exchanges: Recorded[] = [];
  const fetch: FetchLike = async (url, init) => {
    const record: Recorded = {
      verb: init.method,
      headers: { ...init.headers },
      body: init.body === undefined ? undefined : JSON.parse(init.body),
      status: 0,
      text: '',
    };
    exchanges.push(record);
    const response = await inner(url, init);
    record.status = response.status;
    const decoder = new TextDecoder();
    const tapped: ResponseLike = {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
      body:
        response.body === null
          ? null
          : {
              getReader: () => {
                const reader = response.body!.getReader();
                return {
                  read: async () => {
                    const chunk = await reader.read();
                    if (chunk.value) record.text += decoder.decode(chunk.value, { stream: true });
                    return chunk;
                  },
                  cancel: (reason?: unknown) => reader.cancel(reason),
                };
              },
            },
      text: async () => {
        const text = await response.text();
        record.text += text;
        return text;
      },
    };
    return tapped;
  };
  return { fetch, exchanges };
}

/** The JSON-RPC messages a recorded response carried (one JSON body, or the data of SSE events). */
function messagesIn(record: Recorded): Record<string, unknown>[] {
  const text = record.text.trim();
  if (text === '') return [];
  if (text.startsWith('{')) return [JSON.parse(text)];
  return record.text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}

const postsOf = (exchanges: Recorded[], method: string) =>
  exchanges.filter((e) => e.verb === 'POST' && e.body?.method === method);

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

const aborted = (ctx: RequestContext): Promise<void> =>
  new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** The tools every test calls; `pollIntervalMs` is what the server suggests to clients. */
function makeServer(pollIntervalMs: number) {
  const server = new Server({ name: 'tasks-http', version: '1.0.0' }, { tasks: { pollIntervalMs } });
  const gates = new Map<string, ReturnType<typeof gate>>();
  const gateOf = (name: string) => {
    let found = gates.get(name);
    if (!found) {
      found = gate();
      gates.set(name, found);
    }
    return found;
  };
  const state = { aborted: 0, open: (name: string) => gateOf(name).open() };
  server.registerTool('ask-name', { execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `no name (${answer.action})`;
  });
  server.registerTool('ask-briefly', { execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    await ctx.elicit(
      { message: 'Quick!', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      { timeoutMs: 50 },
    );
    return 'answered';
  });
  server.registerTool('wait', { execution: { taskSupport: 'optional' } }, async (args, ctx) => {
    await Promise.race([gateOf(String(args.gate)).wait, aborted(ctx).then(() => state.aborted++)]);
    return 'released';
  });
  server.registerTool(
    'welcome',
    { execution: { taskSupport: 'required' }, deferTask: true },
    async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
        { key: 'user_name' },
      );
      const name = answer.action === 'accept' ? answer.content.name : 'nobody';
      return ctx.continueAsTask(() => `Welcome, ${name}!`);
    },
  );
  server.registerTool('broken', { execution: { taskSupport: 'required' } }, () => {
    throw new ProtocolError(ErrorCode.InvalidParams, 'The upstream refused the query.');
  });
  return { server, state };
}

async function connect(
  url: string,
  options: ClientOptions,
  channelOptions: StreamableHttpClientChannelOptions = {},
) {
  const catalog = await loadSchemaCatalog();
  const { fetch, exchanges } = recording(nodeFetch);
  const checked = new SchemaCheckedChannel(
    new StreamableHttpClientChannel(url, { fetch, rememberEra: false, ...channelOptions }),
    { catalog, side: 'client', peer: 'assert' },
  );
  const client = new Client({ name: 'tasks-http-client', version: '1.0.0' }, options);
  const askedBy: (string | undefined)[] = [];
  client.onElicitation((_params, ctx) => {
    askedBy.push(ctx.taskId);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await client.connect(checked);
  return { client, checked, exchanges, askedBy };
}

/** Polls the task (as the test, not through result()) until it shows `status`. */
function untilStatus(client: Client, taskId: string, status: string): Promise<void> {
  return until(
    async () => (await client.getTask(taskId)).status === status,
    `task ${taskId} showing ${status}`,
  );
}

const isCancelled = (error: unknown) => error instanceof SwitchboardError && error.code === 'TASK_CANCELLED';

/** A raw 2026-07-28 POST (for what a Switchboard client never sends). */
async function rawPost(
  url: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string>,
  extensions = true,
): Promise<{
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': extensions
            ? { extensions: { 'io.modelcontextprotocol/tasks': {} } }
            : {},
        },
      },
    }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

describe('tasks over HTTP (2026-07-28 extension)', () => {
  let running: RunningServer;
  let fixture: ReturnType<typeof makeServer>;
  before(async () => {
    fixture = makeServer(5);
    running = await serve(createHttpHandler(fixture.server));
  });
  after(() => running.close());

  const options: ClientOptions = { version: { pin: MODERN }, tasks: true };

  test('input inside a task goes through tasks/update; every tasks/* POST names the task in Mcp-Name', async () => {
    const { client, checked, exchanges, askedBy } = await connect(running.url, options);
    const task = await client.callToolAsTask('ask-name');
    assert.ok(task.taskId);
    assert.equal(task.task?.status, 'working');
    await untilStatus(client, task.taskId, 'input_required');
    const seen = await task.refresh();
    assert.deepEqual(
      Object.values(seen.inputRequests ?? {}).map((r) => r.method),
      ['elicitation/create'],
    );

    assert.equal(textOf(await task.result()), 'Hello, Ada!');
    assert.deepEqual(askedBy, [task.taskId]);
    assert.equal(postsOf(exchanges, 'tasks/update').length, 1);
    for (const method of ['tasks/get', 'tasks/update']) {
      const posts = postsOf(exchanges, method);
      assert.ok(posts.length > 0, `the client sent ${method}`);
      for (const post of posts) {
        assert.equal(post.headers['mcp-method'], method);
        assert.equal(post.headers['mcp-name'], task.taskId);
        assert.equal(post.status, 200);
      }
    }
    await client.close();
    checked.assertClean();
  });

  test('a cancelled task stops its handler; tasks/cancel names the task', async () => {
    const { client, checked, exchanges } = await connect(running.url, options);
    const before = fixture.state.aborted;
    const task = await client.callToolAsTask('wait', { gate: 'never' });
    assert.ok(task.taskId);
    await task.cancel();
    await assert.rejects(task.result(), isCancelled);
    await until(() => fixture.state.aborted === before + 1, 'the handler saw the cancellation');
    const [cancel] = postsOf(exchanges, 'tasks/cancel');
    assert.equal(cancel?.headers['mcp-name'], task.taskId);
    const ack = messagesIn(cancel!)[0]?.result as Record<string, unknown>;
    assert.equal(ack.resultType, 'complete');
    assert.ok(!('taskId' in ack) && !('status' in ack), 'the cancel ack carries no task');
    await client.close();
    checked.assertClean();
  });

  test('input first, then a task: an input_required round on one POST, the task on the next', async () => {
    const { client, checked, exchanges, askedBy } = await connect(running.url, options);
    const task = await client.callToolAsTask('welcome');
    assert.ok(task.taskId);
    assert.equal(textOf(await task.result()), 'Welcome, Ada!');
    assert.deepEqual(askedBy, [undefined], 'asked before the task existed');
    const rounds = postsOf(exchanges, 'tools/call').map(
      (post) => messagesIn(post)[0]?.result as Record<string, unknown>,
    );
    assert.deepEqual(
      rounds.map((r) => r.resultType),
      ['input_required', 'task'],
    );
    assert.ok(!('requestState' in rounds[1]!));
    await client.close();
    checked.assertClean();
  });

  test('a failed task rejects with its JSON-RPC error', async () => {
    const { client, checked } = await connect(running.url, options);
    const task = await client.callToolAsTask('broken');
    await assert.rejects(
      task.result(),
      (error: unknown) =>
        error instanceof ProtocolError &&
        error.code === ErrorCode.InvalidParams &&
        /upstream refused/.test(error.message),
    );
    await client.close();
    checked.assertClean();
  });

  test('the server checks Mcp-Name against the taskId of tasks/* (400, -32020)', async () => {
    const { client, checked } = await connect(running.url, options);
    const task = await client.callToolAsTask('wait', { gate: 'headers' });
    const taskId = task.taskId!;
    const matched = await rawPost(running.url, 'tasks/get', { taskId }, { 'mcp-name': taskId });
    assert.equal(matched.status, 200);
    assert.equal(matched.body.result?.taskId, taskId);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = method === 'tasks/update' ? { taskId, inputResponses: {} } : { taskId };
      const wrong = await rawPost(running.url, method, params, { 'mcp-name': 'another-task' });
      assert.equal(wrong.status, 400, method);
      assert.equal(wrong.body.error?.code, ErrorCode.HeaderMismatch, method);
      const missing = await rawPost(running.url, method, params, {});
      assert.equal(missing.status, 400, method);
      assert.equal(missing.body.error?.code, ErrorCode.HeaderMismatch, method);
    }
    // The 2025-11-25 methods do not exist here: -32601, whatever the headers.
    for (const method of ['tasks/result', 'tasks/list']) {
      const removed = await rawPost(running.url, method, method === 'tasks/list' ? {} : { taskId }, {});
      assert.equal(removed.body.error?.code, ErrorCode.MethodNotFound, method);
    }
    // Without the extension declared: -32021, before the task is even looked up.
    const undeclared = await rawPost(running.url, 'tasks/get', { taskId }, { 'mcp-name': taskId }, false);
    assert.equal(undeclared.body.error?.code, ErrorCode.MissingRequiredClientCapability);
    fixture.state.open('headers');
    assert.equal(textOf(await task.result()), 'released');
    await client.close();
    checked.assertClean();
  });
});

describe('tasks over HTTP (2026-07-28): notifications/tasks on a listen stream', () => {
  let running: RunningServer;
  let fixture: ReturnType<typeof makeServer>;
  before(async () => {
    // Polls a minute apart: a task followed by result() ends in time only through its notification.
    fixture = makeServer(60_000);
    running = await serve(createHttpHandler(fixture.server));
  });
  after(() => running.close());

  test('result({ notifications: true }) is woken by notifications/tasks, not by a poll', async () => {
    const { client, checked, exchanges } = await connect(running.url, {
      version: { pin: MODERN },
      tasks: true,
    });
    const task = await client.callToolAsTask('wait', { gate: 'notify' });
    const outcome = task.result({ notifications: true });
    await until(
      () =>
        postsOf(exchanges, 'subscriptions/listen').some((post) =>
          messagesIn(post).some((m) => m.method === 'notifications/subscriptions/acknowledged'),
        ) && postsOf(exchanges, 'tasks/get').length === 1,
      'the listen stream was acknowledged and the task read once',
    );
    fixture.state.open('notify');
    assert.equal(textOf(await outcome), 'released');
    assert.equal(postsOf(exchanges, 'tasks/get').length, 1, 'no second poll');

    const [listen] = postsOf(exchanges, 'subscriptions/listen');
    assert.deepEqual(
      listen!.body?.params && (listen!.body.params as { notifications: unknown }).notifications,
      {
        taskIds: [task.taskId],
      },
    );
    const pushed = messagesIn(listen!).filter((m) => m.method === TASK_NOTIFICATION);
    const last = pushed.at(-1)?.params as Record<string, unknown>;
    assert.equal(last.taskId, task.taskId);
    assert.equal(last.status, 'completed');
    assert.deepEqual(last.result, { content: [{ type: 'text', text: 'released' }] });
    await client.close();
    checked.assertClean();
  });
});

describe('tasks over HTTP (2025-11-25 session)', () => {
  let running: RunningServer;
  let fixture: ReturnType<typeof makeServer>;
  before(async () => {
    fixture = makeServer(5);
    running = await serve(createHttpHandler(fixture.server));
  });
  after(() => running.close());

  const options: ClientOptions = { version: { pin: '2025-11-25' } };
  const getStreamOpen = (exchanges: Recorded[]) => () =>
    exchanges.some((e) => e.verb === 'GET' && e.status === 200);

  test('without a GET stream, the task asks on the POST stream of tasks/result', async () => {
    const { client, checked, exchanges, askedBy } = await connect(running.url, options, {
      standaloneStream: false,
    });
    const task = await client.callToolAsTask('ask-name');
    assert.ok(task.taskId);
    assert.equal(textOf(await task.result()), 'Hello, Ada!');
    assert.deepEqual(askedBy, [task.taskId]);
    assert.equal(exchanges.filter((e) => e.verb === 'GET').length, 0);
    const [result] = postsOf(exchanges, 'tasks/result');
    const asked = messagesIn(result!).find((m) => m.method === 'elicitation/create');
    assert.ok(asked, 'the elicitation came on the tasks/result stream');
    assert.deepEqual((asked.params as { _meta: Record<string, unknown> })._meta[RELATED_TASK], {
      taskId: task.taskId,
    });
    await client.close();
    checked.assertClean();
  });

  test('without a GET stream or a tasks/result, the question waits no longer than its timeout', async () => {
    const { client, checked, askedBy } = await connect(running.url, options, { standaloneStream: false });
    const task = await client.callToolAsTask('ask-briefly');
    // Polled with tasks/get only: nothing ever carries the question to the client.
    await untilStatus(client, task.taskId!, 'failed');
    const result = await task.result();
    assert.equal(result.isError, true);
    assert.match(textOf(result), /waited 50 ms to send elicitation\/create.*tasks\/result/);
    assert.deepEqual(askedBy, []);
    await client.close();
    checked.assertClean();
  });

  test('status notifications and input requests of a task ride the session GET stream', async () => {
    const { client, checked, exchanges, askedBy } = await connect(running.url, options);
    await until(getStreamOpen(exchanges), 'the GET stream opened');
    const task = await client.callToolAsTask('ask-name');
    assert.equal(textOf(await task.result()), 'Hello, Ada!');
    assert.deepEqual(askedBy, [task.taskId]);
    const stream = exchanges.find((e) => e.verb === 'GET')!;
    await until(
      () =>
        messagesIn(stream).some(
          (m) =>
            m.method === 'notifications/tasks/status' &&
            (m.params as { status: string }).status === 'completed',
        ),
      'the completed status reached the GET stream',
    );
    const onStream = messagesIn(stream);
    const statuses = onStream
      .filter((m) => m.method === 'notifications/tasks/status')
      .map((m) => (m.params as { taskId: string; status: string }).status);
    assert.deepEqual(statuses, ['input_required', 'working', 'completed']);
    const asked = onStream.find((m) => m.method === 'elicitation/create');
    assert.ok(asked, 'the elicitation came on the GET stream');
    assert.deepEqual((asked.params as { _meta: Record<string, unknown> })._meta[RELATED_TASK], {
      taskId: task.taskId,
    });
    await client.close();
    checked.assertClean();
  });

  test('cancelling: the handler stops, the cancelled status reaches the GET stream', async () => {
    const { client, checked, exchanges } = await connect(running.url, options);
    await until(getStreamOpen(exchanges), 'the GET stream opened');
    const before = fixture.state.aborted;
    const task = await client.callToolAsTask('wait', { gate: 'never' });
    await task.cancel();
    assert.equal(task.task?.status, 'cancelled');
    await assert.rejects(task.result(), isCancelled);
    await until(() => fixture.state.aborted === before + 1, 'the handler saw the cancellation');
    const stream = exchanges.find((e) => e.verb === 'GET')!;
    await until(
      () =>
        messagesIn(stream).some(
          (m) =>
            m.method === 'notifications/tasks/status' &&
            (m.params as { taskId: string; status: string }).taskId === task.taskId &&
            (m.params as { status: string }).status === 'cancelled',
        ),
      'the cancelled status reached the GET stream',
    );
    await client.close();
    checked.assertClean();
  });

  test('a required tool through plain callTool, and tasks/list', async () => {
    const { client, checked } = await connect(running.url, options);
    await client.listTools();
    assert.equal(textOf(await client.callTool('ask-name')), 'Hello, Ada!');
    const { tasks } = await client.listTasks();
    assert.equal(tasks.length, 1);
    assert.equal(tasks[0]?.status, 'completed');
    await client.close();
    checked.assertClean();
  });
});

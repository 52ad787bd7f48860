/**
 * Three nodes sharing one real Redis (`switchboard/redis`), 2026-07-28 clients talking to different
 * nodes: a listen stream on A hears a change made through B; a task created on A is polled through B
 * and cancelled through C; a `requestState` sealed on A is accepted once on B and refused on C; a
 * rotated key seals on every node while states sealed before still open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { startCluster, type TestCluster, type TestNode } from './cluster.js';

trapUnhandledRejections();

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

async function connect(node: TestNode) {
  const catalog = await loadSchemaCatalog();
  const checked = new SchemaCheckedChannel(
    new StreamableHttpClientChannel(node.url, { fetch: nodeFetch, rememberEra: false }),
    { catalog, side: 'client', peer: 'assert' },
  );
  const client = new Client(
    { name: `client-of-${node.name}`, version: '1.0.0' },
    {
      version: { pin: MODERN },
      tasks: true,
    },
  );
  await client.connect(checked);
  return { client, checked };
}

/** A raw 2026-07-28 `pay` call to one node (the test carries the state between nodes itself). */
async function pay(node: TestNode, extra: Record<string, unknown> = {}) {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'pay',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'pay', arguments: { amount: 5 }, ...extra, _meta: ENVELOPE },
    }),
  });
  return (await response.json()) as {
    result?: Record<string, any>;
    error?: { code: number; message: string };
  };
}

const ANSWER = { '0': { action: 'accept', content: { name: 'Ada' } } };

describe('a cluster of three nodes on Redis', () => {
  let cluster: TestCluster;
  let A: TestNode;
  let B: TestNode;
  let C: TestNode;
  before(async () => {
    cluster = await startCluster();
    [A, B, C] = cluster.nodes;
  });
  after(() => cluster.close());

  test('subscriptions/listen on A hears a resource change and a list change made through B', async () => {
    const a = await connect(A);
    const b = await connect(B);
    const heard: string[] = [];
    const subscription = a.client.listen(
      { resourceSubscriptions: ['config://app'], toolsListChanged: true },
      (method, params) =>
        heard.push(method === 'notifications/resources/updated' ? `${method} ${params.uri}` : method),
    );
    await subscription.acknowledged;
    assert.equal(textOf(await b.client.callTool('touch')), 'touched on B');
    await until(
      () => heard.includes('notifications/resources/updated config://app'),
      'A heard the change on B',
    );
    B.server.registerTool('added-on-b', {}, () => 'new');
    await until(() => heard.includes('notifications/tools/list_changed'), 'A heard the list change on B');
    // Each change once: the node that made it does not hear its own message back.
    assert.deepEqual(
      heard.filter((m) => m.startsWith('notifications/resources/updated')),
      ['notifications/resources/updated config://app'],
    );
    await subscription.close();
    await Promise.all([a.client.close(), b.client.close()]);
    a.checked.assertClean();
    b.checked.assertClean();
  });

  test('a task created on A is polled through B, cancelled through C, and its handler on A stops', async () => {
    const [a, b, c] = await Promise.all([connect(A), connect(B), connect(C)]);
    const task = await a.client.callToolAsTask('wait', { gate: 'never' });
    assert.ok(task.taskId);
    assert.equal((await b.client.getTask(task.taskId)).status, 'working');
    const before = A.aborted.count;
    await c.client.cancelTask(task.taskId);
    await until(() => A.aborted.count === before + 1, 'the handler on A saw the cancellation from C');
    assert.equal((await b.client.getTask(task.taskId)).status, 'cancelled');

    // And a task that completes on A: its result is read through C.
    const done = await a.client.callToolAsTask('wait', { gate: 'go' });
    A.open('go');
    const viaC = await c.client.getTask(done.taskId!);
    assert.ok(['working', 'completed'].includes(viaC.status));
    await until(async () => (await c.client.getTask(done.taskId!)).status === 'completed', 'completed via C');
    await Promise.all([a.client.close(), b.client.close(), c.client.close()]);
    for (const x of [a, b, c]) x.checked.assertClean();
  });

  test('a requestState sealed on A is accepted once on B and refused on C', async () => {
    const first = await pay(A);
    assert.equal(first.result?.resultType, 'input_required');
    const state = first.result!.requestState as string;
    const second = await pay(B, { requestState: state, inputResponses: ANSWER });
    assert.equal(second.result?.content?.[0]?.text, 'B paid 5 to Ada');
    const replay = await pay(C, { requestState: state, inputResponses: ANSWER });
    assert.equal(replay.error?.code, -32602);
    assert.match(replay.error!.message, /already used/);
    assert.deepEqual([A.payments, B.payments, C.payments], [[], [5], []]);
  });

  test('a key rotated on C seals on every node; a state sealed before the rotation still opens', async () => {
    const before = await pay(A);
    const keyId = await C.stores.keyring.rotate();
    await until(() => A.stores.keyring.keys()[0]?.id === keyId, 'A has the new key');
    await until(() => B.stores.keyring.keys()[0]?.id === keyId, 'B has the new key');
    const after = await pay(A);
    // Sealed under the new key: a node that knew only the old one could not open it.
    const old = await pay(B, { requestState: before.result!.requestState, inputResponses: ANSWER });
    assert.equal(old.result?.content?.[0]?.text, 'B paid 5 to Ada');
    const fresh = await pay(C, { requestState: after.result!.requestState, inputResponses: ANSWER });
    assert.equal(fresh.result?.content?.[0]?.text, 'C paid 5 to Ada');
  });

  test('Redis down: calls needing no shared state go on, the rest fail clearly; all recovers when it is back', async () => {
    const a = await connect(A);
    const b = await connect(B);
    await cluster.redis.stop();
    assert.match(textOf(await a.client.callTool('echo', { x: 1 })), /^A: /);
    const failed = await a.client.callToolAsTask('wait', { gate: 'outage' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(failed instanceof Error, 'a task needs the shared store');
    assert.match(failed.message, /Shared state is unavailable \(Redis at 127\.0\.0\.1:\d+/);
    const sealed = await pay(A);
    assert.equal(sealed.result?.resultType, 'input_required', 'sealing needs only the keys A holds');
    const retry = await pay(B, { requestState: sealed.result!.requestState, inputResponses: ANSWER });
    assert.match(retry.error?.message ?? '', /Shared state is unavailable/);

    await cluster.redis.start();
    // The nodes reconnect by themselves (no restart), each in its own time; a call that needs Redis
    // tells when, on each node.
    const consumedOn = async (node: TestNode) =>
      (await pay(node, { requestState: (await pay(A)).result!.requestState, inputResponses: ANSWER }))
        .result !== undefined;
    await until(
      async () => (await consumedOn(A)) && (await consumedOn(B)) && (await consumedOn(C)),
      'requestState works again on every node',
    );
    const task = await a.client.callToolAsTask('wait', { gate: 'after' });
    assert.equal((await b.client.getTask(task.taskId!)).status, 'working');
    A.open('after');
    assert.match(textOf(await task.result()), /released on A/);
    // The change bus too: B's subscriber connection re-subscribed.
    const heard: string[] = [];
    const subscription = b.client.listen({ resourceSubscriptions: ['config://app'] }, (method) =>
      heard.push(method),
    );
    await subscription.acknowledged;
    await until(async () => {
      await a.client.callTool('touch');
      return heard.length > 0;
    }, 'B hears a change on A after the outage');
    await subscription.close();
    await Promise.all([a.client.close(), b.client.close()]);
    assert.ok(
      !(failed instanceof SwitchboardError) || failed.code !== 'TIMEOUT',
      'it failed at once, not by timeout',
    );
  });
});

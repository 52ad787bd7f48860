/**
 * Three nodes on Redis behind a real nginx in round-robin (no stickiness), 2026-07-28: Switchboard's
 * client sends every request through the balancer, so consecutive requests reach different nodes.
 * An input round answered on one node is retried on the next; a task created on one node is polled
 * and finished through the others; a listen stream on one node hears the changes made on all three.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { type BalancedCluster, startBalancedCluster } from './cluster.js';

trapUnhandledRejections();

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('three nodes behind nginx round-robin (2026-07-28)', () => {
  let cluster: BalancedCluster;
  before(async () => {
    cluster = await startBalancedCluster();
  });
  after(() => cluster.close());

  async function connect() {
    const catalog = await loadSchemaCatalog();
    const checked = new SchemaCheckedChannel(
      new StreamableHttpClientChannel(cluster.url, { fetch: nodeFetch, rememberEra: false }),
      { catalog, side: 'client', peer: 'assert' },
    );
    const client = new Client({ name: 'through-nginx', version: '1.0.0' }, { tasks: true });
    client.onElicitation(() => ({ action: 'accept', content: { name: 'Ada' } }));
    await client.connect(checked);
    assert.equal(client.era, 'modern');
    return { client, checked };
  }

  test('requests go round the nodes; an input round is retried on another node and pays once', async () => {
    const { client, checked } = await connect();
    const served = new Set<string>();
    for (let i = 0; i < 3; i++) served.add(textOf(await client.callTool('echo', { i })).slice(0, 1));
    assert.deepEqual([...served].sort(), ['A', 'B', 'C'], 'round-robin reached every node');
    const paid = textOf(await client.callTool('pay', { amount: 7 }));
    assert.match(paid, /^[ABC] paid 7 to Ada$/);
    const payments = cluster.nodes.flatMap((node) => node.payments);
    assert.deepEqual(payments, [7], 'paid once, on the node that served the retry');
    await client.close();
    checked.assertClean();
  });

  test('a task is created on one node, polled through the others, and its result read', async () => {
    const { client, checked } = await connect();
    const task = await client.callToolAsTask('wait', { gate: 'nginx' });
    assert.ok(task.taskId);
    for (let i = 0; i < 3; i++) assert.equal((await client.getTask(task.taskId)).status, 'working');
    for (const node of cluster.nodes) node.open('nginx');
    assert.match(textOf(await task.result()), /^released on [ABC]$/);
    await client.close();
    checked.assertClean();
  });

  test('a listen stream held by one node hears changes made on each of the three', async () => {
    const { client, checked } = await connect();
    const heard: string[] = [];
    const subscription = client.listen({ resourceSubscriptions: ['config://app'] }, (method) =>
      heard.push(method),
    );
    await subscription.acknowledged;
    const touchedOn = new Set<string>();
    for (let i = 0; i < 3; i++) touchedOn.add(textOf(await client.callTool('touch')));
    assert.equal(touchedOn.size, 3, 'each touch reached another node');
    await until(() => heard.length === 3, 'three changes heard');
    await subscription.close();
    await client.close();
    checked.assertClean();
  });
});

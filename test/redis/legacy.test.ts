/**
 * Legacy Streamable HTTP sessions (2025-11-25) on three nodes sharing one real Redis, behind a real
 * nginx in round-robin without stickiness, with the official SDK v1 client and with Switchboard's:
 * the session is initialized on one node, its calls served by the others, its GET stream held by a
 * third node that sends the changes made on the other two, and an elicitation asked by one node is
 * answered through another. Each node logs the HTTP requests it served and the session messages it
 * forwarded, so the test cannot pass with all the traffic on one node. And Redis stopped under a
 * session, then started again: the nodes refuse its requests clearly meanwhile and recover alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { type BalancedCluster, startBalancedCluster, type TestNode } from './cluster.js';
import { LEGACY_CLIENTS } from './legacy-clients.js';

trapUnhandledRejections();

describe('legacy sessions on three Redis nodes behind nginx round-robin', () => {
  let cluster: BalancedCluster;
  before(async () => {
    cluster = await startBalancedCluster();
  });
  after(() => cluster.close());

  /** Which nodes served requests of `kind` since `mark` (each node's log length then). */
  const servedSince = (mark: number[], kind: string): TestNode[] =>
    cluster.nodes.filter((node, i) => node.requests.slice(mark[i]).includes(kind));
  const marks = () => cluster.nodes.map((node) => node.requests.length);

  for (const [label, open] of LEGACY_CLIENTS) {
    test(`${label}: initialize on one node, calls on the others, GET stream on a third, elicitation answered elsewhere`, async () => {
      const mark = marks();
      const forwardedMark = cluster.nodes.map((node) => node.forwarded.length);
      const client = await open(cluster.url);
      assert.ok(client.sessionId(), 'a session');
      const [initializedOn, ...more] = servedSince(mark, 'POST new');
      assert.ok(initializedOn && more.length === 0, 'one node served initialize');
      await until(() => servedSince(mark, 'GET').length === 1, 'the client opened its GET stream');
      const holder = servedSince(mark, 'GET')[0]!;
      assert.notEqual(holder, initializedOn, 'the GET stream is held by another node than initialize');

      // Calls: each served by the next node; every node serves some.
      const echoed = new Set<string>();
      for (let i = 0; i < 3; i++) echoed.add((await client.callTool('echo', { i })).slice(0, 1));
      assert.deepEqual([...echoed].sort(), ['A', 'B', 'C'], 'the calls reached all three nodes');

      // Changes made on each node reach the GET stream on the holder (the other two publish them).
      await client.subscribe('config://app');
      const touched = new Set<string>();
      for (let i = 0; i < 3; i++) touched.add(await client.callTool('touch'));
      assert.equal(touched.size, 3, `touched on three nodes: ${[...touched].join(', ')}`);
      await until(() => client.updates.length === 3, 'three updates on the GET stream');
      assert.deepEqual(client.updates, ['config://app', 'config://app', 'config://app']);
      assert.equal(servedSince(mark, 'GET').length, 1, 'one GET stream all along');

      // Elicitation: asked by the node running `pay`, answered by a POST that reaches another node,
      // which forwards the answer to the asking node.
      const paid = await client.callTool('pay', { amount: 3 });
      const payer = cluster.nodes.find((node) => paid.startsWith(`${node.name} paid 3`));
      assert.ok(payer, `paid: ${paid}`);
      assert.equal(paid, `${payer.name} paid 3 to Ada`);
      const relays = cluster.nodes.filter(
        (node, i) => node !== payer && node.forwarded.slice(forwardedMark[i]).includes('response'),
      );
      assert.equal(relays.length, 1, 'another node forwarded the answer to the node that asked');
      assert.ok(
        !payer.forwarded.slice(forwardedMark[cluster.nodes.indexOf(payer)]).includes('response'),
        'the payer got the answer from another node',
      );
      await client.close();
    });
  }

  test('Redis down: legacy session requests fail with a clear 503 while 2026-07-28 calls go on; back without restarting a node', async () => {
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(cluster.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...body }),
      });
    const initialize = async () => {
      const response = await post({
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      });
      assert.equal(response.status, 200);
      const session = {
        'mcp-session-id': response.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-11-25',
      };
      await post({ method: 'notifications/initialized' }, session);
      return session;
    };
    const echo = { id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } };
    const modern = {
      id: 2,
      method: 'tools/call',
      params: {
        name: 'echo',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    };
    const modernHeaders = {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    };
    const session = await initialize();
    assert.equal((await post(echo, session)).status, 200);

    await cluster.redis.stop();
    for (let i = 0; i < 3; i++) {
      const failed = await post(echo, session);
      assert.equal(failed.status, 503, 'each node refuses: it cannot reach the shared session');
      assert.equal(failed.headers.get('retry-after'), '1');
      const { error } = (await failed.json()) as { error: { message: string } };
      assert.match(error.message, /the shared session store failed .*Try again shortly/);
      const served = (await (await post(modern, modernHeaders)).json()) as {
        result?: { content: { text: string }[] };
      };
      assert.match(served.result?.content[0]?.text ?? '', /^[ABC]: /, '2026-07-28 needs nothing shared');
    }

    await cluster.redis.start();
    // This Redis keeps nothing across a restart: the session is gone (404, initialize again), and
    // the nodes, reconnected on their own, serve a new one.
    await until(async () => {
      // Three requests in a row: one per node (round-robin).
      for (let i = 0; i < 3; i++) if ((await post(echo, session)).status !== 404) return false;
      return true;
    }, 'the three nodes reach Redis again');
    const again = await initialize();
    const served = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const response = await post(echo, again);
      assert.equal(response.status, 200);
      const text = await response.text();
      served.add(/"text":"([ABC]):/.exec(text)?.[1] ?? text);
    }
    assert.deepEqual([...served].sort(), ['A', 'B', 'C']);
  });
});

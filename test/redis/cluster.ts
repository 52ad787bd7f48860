/**
 * A cluster for tests: a real redis-server and three nodes (a Server and its HTTP handler each, with
 * their own `redisStores` connections), served on loopback. Each node has the same tools:
 * - `echo` needs no shared state;
 * - `touch` tells followers of `config://app` that it changed (`notifyResourceUpdated`);
 * - `pay` asks for the payee (2026-07-28: an input round, its `requestState` sealed with the shared keys);
 * - `wait` (task support optional) waits until the test opens its gate on the node running it, or
 *   the task is cancelled.
 */

import type { IncomingMessage } from 'node:http';
import { type LocalRedis, startBalancer, startRedis } from '../../examples/cluster/services.js';
import { Server } from '../../src/extensions/server.js';
import { type RunningServer, serve } from '../../src/node/serve.js';
import { type RedisStores, redisStores } from '../../src/redis/stores.js';
import type { RequestContext } from '../../src/server/context.js';
import { createHttpHandler, type HttpHandler } from '../../src/transports/http/server/handler.js';
import { gate } from '../helpers/wait.js';

export interface TestNode {
  readonly name: string;
  readonly server: Server;
  readonly handler: HttpHandler;
  readonly stores: RedisStores;
  readonly running: RunningServer;
  readonly url: string;
  /** Opens the gate `name` that `wait` calls on this node wait on. */
  open(name: string): void;
  /** `wait` calls whose task was cancelled, on this node. */
  readonly aborted: { count: number };
  /** What `pay` paid on this node. */
  readonly payments: number[];
  /**
   * The HTTP requests this node served, in order: `POST new` (no session: initialize or 2026-07-28),
   * `POST`, `GET`, `GET resume` (with Last-Event-ID), `DELETE`.
   */
  readonly requests: string[];
  /** The legacy-session messages this node sent the others (`response`, `push`, `held`, `cancel`). */
  readonly forwarded: string[];
}

export interface TestCluster {
  readonly redis: LocalRedis;
  readonly nodes: readonly [TestNode, TestNode, TestNode];
  close(): Promise<void>;
}

const aborted = (ctx: RequestContext): Promise<void> =>
  new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });

async function startNode(name: string, url: string, prefix: string): Promise<TestNode> {
  const stores = await redisStores({ url, prefix, tasks: { leaseMs: 3000 } });
  const server = new Server({ name: `node-${name}`, version: '1.0.0' }, { ...stores.server });
  const gates = new Map<string, ReturnType<typeof gate>>();
  const gateOf = (key: string) => {
    let found = gates.get(key);
    if (!found) {
      found = gate();
      gates.set(key, found);
    }
    return found;
  };
  const node = {
    aborted: { count: 0 },
    payments: [] as number[],
    requests: [] as string[],
    forwarded: [] as string[],
  };
  const sessions = stores.http.sessionStore;
  const publish = sessions.publish.bind(sessions);
  sessions.publish = (envelope) => {
    node.forwarded.push(envelope.message.type);
    publish(envelope);
  };
  server.registerResource('app-config', 'config://app', {}, () => `served by ${name}`);
  server.registerTool(
    'echo',
    { inputSchema: { type: 'object' } },
    (args) => `${name}: ${JSON.stringify(args)}`,
  );
  server.registerTool('touch', {}, () => {
    server.notifyResourceUpdated('config://app');
    return `touched on ${name}`;
  });
  server.registerTool(
    'pay',
    { inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } },
    async (args, ctx) => {
      const who = await ctx.elicit({
        message: 'Confirm the payee',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      node.payments.push(args.amount as number);
      return `${name} paid ${args.amount} to ${who.content?.name}`;
    },
  );
  server.registerTool('wait', { execution: { taskSupport: 'optional' } }, async (args, ctx) => {
    await Promise.race([gateOf(String(args.gate)).wait, aborted(ctx).then(() => node.aborted.count++)]);
    return `released on ${name}`;
  });
  const handler = createHttpHandler(server, { ...stores.http });
  const running = await serve(handler);
  running.server.prependListener('request', (request: IncomingMessage) => {
    const session = request.headers['mcp-session-id'] !== undefined;
    const resume = request.headers['last-event-id'] !== undefined ? ' resume' : '';
    node.requests.push(`${request.method}${session ? '' : ' new'}${resume}`);
  });
  return {
    name,
    server,
    handler,
    stores,
    running,
    url: running.url,
    open: (key) => gateOf(key).open(),
    ...node,
  };
}

/** Redis and three nodes A, B, C sharing it under a fresh prefix. */
export async function startCluster(): Promise<TestCluster> {
  const redis = await startRedis();
  const prefix = `test-${Math.random().toString(36).slice(2)}:`;
  const nodes: TestNode[] = [];
  for (const name of ['A', 'B', 'C']) nodes.push(await startNode(name, redis.url, prefix));
  return {
    redis,
    nodes: nodes as [TestNode, TestNode, TestNode],
    async close() {
      for (const node of nodes) {
        await node.running.close();
        await node.server.close();
        await node.stores.close();
      }
      await redis.stop();
    },
  };
}

export interface BalancedCluster extends TestCluster {
  /** The MCP endpoint through nginx in round-robin over the three nodes (no stickiness). */
  readonly url: string;
}

/** {@link startCluster} behind a real nginx balancer; `close()` stops the balancer too. */
export async function startBalancedCluster(): Promise<BalancedCluster> {
  const cluster = await startCluster();
  const balancer = await startBalancer(cluster.nodes.map((node) => new URL(node.url).host));
  return {
    ...cluster,
    url: `${balancer.origin}${new URL(cluster.nodes[0].url).pathname}`,
    async close() {
      await balancer.stop();
      await cluster.close();
    },
  };
}

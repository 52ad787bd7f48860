/**
 * A cluster for tests: a real redis-server and three nodes (a Server and its HTTP handler each, with
 * their own `redisStores` connections), served on loopback. Each node has the same tools:
 * - `echo` needs no shared state;
 * - `touch` tells followers of `config://app` that it changed (`notifyResourceUpdated`);
 * - `pay` asks for the payee (2026-07-28: an input round, its `requestState` sealed with the shared keys);
 * - `wait` (task support optional) waits until the test opens its gate on the node running it, or
 *   the task is cancelled;
 * - `ticks` tells followers of `tick://<from>` .. `tick://<from + count - 1>` that they changed, one
 *   every 10 ms; with `hold` it then runs until cancelled, so a test that stops its node mid-call
 *   finds it running however slow the machine is.
 */

import { fork } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
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

/** Where a node's `requests` and `forwarded` entries are also reported (a node in a child process). */
export type NodeLogListener = (log: 'requests' | 'forwarded', entry: string) => void;

export async function startNode(
  name: string,
  url: string,
  prefix: string,
  onLog?: NodeLogListener,
): Promise<TestNode> {
  const stores = await redisStores({
    url,
    prefix,
    tasks: { leaseMs: 3000 },
    sessions: { nodeLeaseMs: 1000 },
  });
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
  const log = (kind: 'requests' | 'forwarded', entry: string) => {
    node[kind].push(entry);
    onLog?.(kind, entry);
  };
  const sessions = stores.http.sessionStore;
  const publish = sessions.publish.bind(sessions);
  sessions.publish = (envelope) => {
    log('forwarded', envelope.message.type);
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
  server.registerTool(
    'ticks',
    {
      inputSchema: {
        type: 'object',
        properties: {
          from: { type: 'number' },
          count: { type: 'number' },
          log: { type: 'boolean' },
          hold: { type: 'boolean' },
        },
      },
    },
    async (args, ctx) => {
      const from = Number(args.from);
      for (let k = from; k < from + Number(args.count) && !ctx.signal.aborted; k++) {
        server.notifyResourceUpdated(`tick://${k}`);
        if (args.log) await ctx.log('info', `tick ${k}`);
        // A throttle, not an ordering: it spreads the ticks so that some are sent after the test
        // cuts the client's stream off (the test waits for those, see node-loss.test.ts).
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (args.hold) await aborted(ctx);
      return `${name} ticked`;
    },
  );
  const handler = createHttpHandler(server, { ...stores.http });
  const running = await serve(handler);
  running.server.prependListener('request', (request: IncomingMessage) => {
    const session = request.headers['mcp-session-id'] !== undefined;
    const resume = request.headers['last-event-id'] !== undefined ? ' resume' : '';
    log('requests', `${request.method}${session ? '' : ' new'}${resume}`);
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

/** A key prefix of its own for each cluster a test starts. */
const freshPrefix = () => `test-${Math.random().toString(36).slice(2)}:`;

/** Redis and three nodes A, B, C sharing it under a fresh prefix. */
export async function startCluster(): Promise<TestCluster> {
  const redis = await startRedis();
  const prefix = freshPrefix();
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

/** A node of {@link startProcessCluster}: in a process of its own, so that a test can kill it. */
export interface ProcessNode {
  readonly name: string;
  readonly url: string;
  /** As {@link TestNode.requests}, reported by the child. */
  readonly requests: string[];
  /** As {@link TestNode.forwarded}, reported by the child. */
  readonly forwarded: string[];
  /** SIGKILL: the node dies without closing anything; resolves once the process has exited. */
  kill(): Promise<void>;
}

export interface ProcessCluster {
  readonly redis: LocalRedis;
  /** The key prefix the nodes share. */
  readonly prefix: string;
  /** The MCP endpoint through nginx in round-robin over the nodes, in the order of `nodes`. */
  readonly url: string;
  readonly nodes: readonly [ProcessNode, ProcessNode, ProcessNode];
  close(): Promise<void>;
}

async function forkNode(name: string, redisUrl: string, prefix: string): Promise<ProcessNode> {
  const script = fileURLToPath(new URL('./node-process.js', import.meta.url));
  const child = fork(script, [name, redisUrl, prefix], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const requests: string[] = [];
  const forwarded: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`node ${name} exited (${code}) before it served`)));
    child.on('message', (message: { url?: string; log?: 'requests' | 'forwarded'; entry?: string }) => {
      if (message.url) resolve(message.url);
      if (message.log === 'requests') requests.push(message.entry!);
      if (message.log === 'forwarded') forwarded.push(message.entry!);
    });
  });
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    name,
    url,
    requests,
    forwarded,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Redis, three nodes A, B, C in child processes, and nginx in round-robin in front of them. */
export async function startProcessCluster(): Promise<ProcessCluster> {
  const redis = await startRedis();
  const prefix = freshPrefix();
  const nodes = await Promise.all(['A', 'B', 'C'].map((name) => forkNode(name, redis.url, prefix)));
  const balancer = await startBalancer(nodes.map((node) => new URL(node.url).host));
  return {
    redis,
    prefix,
    url: `${balancer.origin}${new URL(nodes[0]!.url).pathname}`,
    nodes: nodes as [ProcessNode, ProcessNode, ProcessNode],
    async close() {
      await balancer.stop();
      for (const node of nodes) await node.kill();
      await redis.stop();
    },
  };
}

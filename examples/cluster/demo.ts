/**
 * `npm run --silent cluster:demo`: Redis, three nodes of the example server sharing it, and nginx in
 * round-robin in front of them, all on loopback. Prints the balancer's URL and what to try; Ctrl-C
 * stops all of it. Needs the Debian packages redis-server and nginx (apt-get install redis-server
 * nginx-light).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type LocalBalancer, type LocalRedis, startBalancer, startRedis } from './services.js';

const NODES = 3;
const nodeScript = fileURLToPath(new URL('./node.js', import.meta.url));
const nodes: ChildProcess[] = [];
let redis: LocalRedis | undefined;
let balancer: LocalBalancer | undefined;

async function startNode(redisUrl: string): Promise<string> {
  const child = fork(nodeScript, [], { env: { ...process.env, REDIS_URL: redisUrl } });
  nodes.push(child);
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`a node exited (${code}) before it served`);
    }),
  ])) as [{ url: string }];
  return message.url;
}

async function stopAll(): Promise<void> {
  await balancer?.stop();
  await Promise.all(
    nodes.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }),
  );
  await redis?.stop();
}

try {
  redis = await startRedis();
  const urls: string[] = [];
  for (let i = 0; i < NODES; i++) urls.push(await startNode(redis.url));
  balancer = await startBalancer(urls.map((url) => new URL(url).host));
  const url = `${balancer.origin}${new URL(urls[0]!).pathname}`;
  process.stdout.write(`Switchboard cluster: ${NODES} nodes of the example server, Redis at ${redis.url},
nginx round-robin at ${url}
  nodes: ${urls.join(', ')}

Every request through ${url} goes to the next node. Try:
  node build/dist/cli/main.js tools ${url}
  node build/dist/cli/main.js call ${url} add a=2 b=40      (each call may reach another node)
  node build/dist/cli/main.js read ${url} notes://ideas
2026-07-28 clients need nothing else: input rounds, tasks and subscriptions/listen work whichever
node a request reaches (docs/scaling.md). Legacy session clients still need sticky routing.
Ctrl-C stops the balancer, the nodes and Redis.
`);
  const stop = () => {
    void stopAll().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`cluster:demo: ${error instanceof Error ? error.message : String(error)}\n`);
  await stopAll();
  process.exitCode = 1;
}

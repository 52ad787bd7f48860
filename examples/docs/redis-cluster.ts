import { Client, createHttpHandler, Server } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, serve } from 'switchboard/node';
import { redisStores } from 'switchboard/redis';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// One node of the cluster: the same server on every node, with the stores they all share.
async function startNode(name: string) {
  const stores = await redisStores({ url: redisUrl, prefix: 'shop:' });
  const server = new Server({ name: 'shop', version: '1.0.0' }, { ...stores.server });
  server.registerResource('prices', 'shop://prices', {}, () => 'apples 3, pears 4');
  server.registerTool('reprice', {}, () => {
    server.notifyResourceUpdated('shop://prices');
    return `repriced on node ${name}`;
  });
  server.registerTool('report', { execution: { taskSupport: 'optional' } }, () => `report from node ${name}`);
  const running = await serve(createHttpHandler(server, { ...stores.http }));
  return {
    url: running.url,
    async close() {
      await running.close();
      await server.close();
      await stores.close();
    },
  };
}

async function connect(url: string) {
  const client = new Client({ name: 'docs', version: '1.0.0' }, { tasks: true });
  await client.connect(new StreamableHttpClientChannel(url, { fetch: nodeFetch }));
  return client;
}

const nodes = [await startNode('a'), await startNode('b')];
const onA = await connect(nodes[0]!.url);
const onB = await connect(nodes[1]!.url);

// A subscriptions/listen stream on node a hears a change made through node b.
let heard!: (uri: string) => void;
const changed = new Promise<string>((resolve) => {
  heard = resolve;
});
const subscription = onA.listen({ resourceSubscriptions: ['shop://prices'] }, { onResourceUpdated: heard });
await subscription.acknowledged;
console.log((await onB.callTool('reprice')).content);
console.log('node a heard:', await changed);

// A task created on node a is read through node b.
const task = await onA.callToolAsTask('report');
await task.result();
console.log('through node b:', (await onB.getTask(task.taskId!)).status);

await subscription.close();
await Promise.all([onA.close(), onB.close()]);
for (const node of nodes) await node.close();

// Output:
// [ { type: 'text', text: 'repriced on node b' } ]
// node a heard: shop://prices
// through node b: completed

/**
 * One node of the cluster demo: the example server with the Redis stores, on a free loopback port.
 * Started by demo.ts (REDIS_URL in its environment); tells its parent its URL over IPC.
 */
import { createHttpHandler } from 'switchboard';
import { serve } from 'switchboard/node';
import { redisStores } from 'switchboard/redis';
import { createExampleServer } from '../server.js';

const stores = await redisStores({
  url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  prefix: 'cluster-demo:',
  logger: { error: (error) => console.error(error.message), warn: (message) => console.error(message) },
});
const server = createExampleServer({ ...stores.server });
const running = await serve(createHttpHandler(server, { ...stores.http }));
process.send?.({ url: running.url });

const stop = async () => {
  await running.close();
  await server.close();
  await stores.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', () => {
  // The demo stops its nodes itself (Ctrl-C reaches the whole process group).
});
process.on('disconnect', stop);

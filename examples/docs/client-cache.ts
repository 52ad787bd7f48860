import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

// The server counts the tools/list requests that reach it.
let served = 0;
const server = new Server(
  { name: 'cached', version: '1.0.0' },
  { listCache: { ttlMs: 30_000, cacheScope: 'public' } },
);
server.registerTool('a', {}, () => 'a');
server.intercept('tools/list', (params, _ctx, next) => {
  served++;
  return next(params);
});

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' }); // cache: true is the default
await client.connect(clientEnd);

// Sending middleware wraps every call this client makes, cached or not.
client.use((next) => (method, params, ctx) => {
  console.log(`-> ${method}${ctx.options.fresh ? ' (fresh)' : ''}`);
  return next(method, params, ctx);
});

await client.listTools();
await client.listTools(); // answered from the cache: the server said ttlMs 30000
await client.listTools({ fresh: true }); // skips the cache
console.log(`server saw ${served} tools/list requests`);
await client.close();

// Output:
// -> tools/list
// -> tools/list
// -> tools/list (fresh)
// server saw 2 tools/list requests

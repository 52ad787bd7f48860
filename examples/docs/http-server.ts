import { Client, createHttpHandler, Server } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, serve } from 'switchboard/node';
import { z } from 'zod';

const server = new Server({ name: 'calculator', version: '1.0.0' });
server.registerTool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) =>
  String(a + b),
);

// One web-standard handler serves both eras on /mcp, and the 2024-11-05 HTTP+SSE transport on /sse.
const handler = createHttpHandler(server);
// serve() runs it on a node:http server bound to 127.0.0.1; port 0 picks a free port.
const running = await serve(handler, { port: 0 });
console.log(running.url.replace(/:\d+\//, ':<port>/'));

// The same client code reaches it in either era.
for (const version of ['auto', 'legacy'] as const) {
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version });
  await client.connect(new StreamableHttpClientChannel(running.url, { fetch: nodeFetch }));
  const result = await client.callTool('add', { a: 2, b: 3 });
  console.log(client.revision, client.era, result.content);
  await client.close(); // a legacy session is ended with DELETE
}

await running.close(); // ends streams and sessions, then stops listening

// Output:
// http://127.0.0.1:<port>/mcp
// 2026-07-28 modern [ { type: 'text', text: '5' } ]
// 2025-11-25 legacy [ { type: 'text', text: '5' } ]

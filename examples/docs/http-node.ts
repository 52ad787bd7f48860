import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, createHttpHandler, Server } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, toNodeListener } from 'switchboard/node';

const server = new Server({ name: 'plain-node', version: '1.0.0' });
server.registerTool('hello', {}, () => 'hello from node:http');

// Every option, at its default.
const handler = createHttpHandler(server, {
  endpoint: '/mcp', // Streamable HTTP, both eras
  responseMode: 'auto', // JSON, or an SSE stream once something must go before the result
  maxBodyBytes: 4 * 1024 * 1024, // larger bodies: 413
  legacySessions: true, // serve initialize (2025-03-26 .. 2025-11-25) with Mcp-Session-Id
  sseEndpoint: '/sse', // the 2024-11-05 HTTP+SSE transport (false: off)
  messagesEndpoint: '/messages',
  maxSessions: 10_000, // a new session evicts the least recently used idle one
  sessionIdleTimeoutMs: 30 * 60_000, // a session with no stream and no request is closed
  retryMs: 1000, // the SSE retry field of 2025-11-25 streams
  keepAliveMs: 15_000, // ':' comments on silent SSE streams
  maxStreamBufferBytes: 8 * 1024 * 1024, // a stream nobody reads is cut past this
  // eventStore: a bounded MemoryEventStore; allowedHosts/allowedOrigins: loopback only
});

// toNodeListener(handler) is a (req, res) listener: route to it from your own node:http server.
const mcp = toNodeListener(handler);
const http = createServer((req, res) => {
  if (req.url === '/health') res.end('ok');
  else mcp(req, res);
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const { port } = http.address() as AddressInfo;

const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(new StreamableHttpClientChannel(`http://127.0.0.1:${port}/mcp`, { fetch: nodeFetch }));
console.log((await client.callTool('hello')).content);
await client.close();

await handler.close(); // ends SSE streams and sessions, so the server can close
await new Promise((resolve) => http.close(resolve));
console.log('closed');

// Output:
// [ { type: 'text', text: 'hello from node:http' } ]
// closed

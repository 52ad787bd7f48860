/**
 * Switchboard's MCP handler mounted in Express 5.
 *
 *   node build/examples/http/express.js      # then point a client at the printed URL
 *
 * `toNodeListener` serves the Node request directly (no WHATWG Request/Response conversion). It
 * reads and caps the body itself; if an `express.json()` ran first, the parsed body is used as is.
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { createHttpHandler } from 'switchboard';
import { toNodeListener } from 'switchboard/node';
import { createDemoServer, type ExampleOptions, type StartedExample } from './demo-server.js';

export async function startExpress(options: ExampleOptions = {}): Promise<StartedExample> {
  const handler = createHttpHandler(createDemoServer());
  const mcp = toNodeListener(handler);
  const app = express();
  // One endpoint for both eras (POST; GET/DELETE for legacy sessions)...
  app.all('/mcp', mcp);
  // ...and the deprecated HTTP+SSE transport for 2024-11-05 clients.
  app.get('/sse', mcp);
  app.post('/messages', mcp);

  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve, reject) => {
    const listening = app.listen(options.port ?? 0, host, (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/mcp`,
    async close() {
      await handler.close(); // ends SSE streams and sessions, so the server can close
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startExpress({ port: Number(process.env.PORT ?? 3000) });
  console.log(`MCP server (Express) at ${url}`);
}

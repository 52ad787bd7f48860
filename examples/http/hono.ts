/**
 * Switchboard's MCP handler mounted in Hono, served on Node by @hono/node-server. The handler is a
 * plain `fetch(Request) → Response`, so the same route works on Deno, Bun and Workers.
 *
 *   node build/examples/http/hono.js
 *
 * On the fetch path the handler cannot see which interface a request arrived on, so it accepts only
 * loopback Host names unless `allowedHosts` lists the public ones (DNS rebinding protection).
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createHttpHandler } from 'switchboard';
import { createDemoServer, type ExampleOptions, type StartedExample } from './demo-server.js';

export async function startHono(options: ExampleOptions = {}): Promise<StartedExample> {
  const handler = createHttpHandler(createDemoServer());
  const app = new Hono();
  const mcp = (c: { req: { raw: Request } }) => handler.fetch(c.req.raw);
  app.all('/mcp', mcp);
  app.get('/sse', mcp);
  app.post('/messages', mcp);

  const hostname = options.host ?? '127.0.0.1';
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve({ fetch: app.fetch, port: options.port ?? 0, hostname }, (info: AddressInfo) =>
        resolve({ server, port: info.port }),
      );
    },
  );
  return {
    url: `http://${hostname}:${port}/mcp`,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startHono({ port: Number(process.env.PORT ?? 3000) });
  console.log(`MCP server (Hono) at ${url}`);
}

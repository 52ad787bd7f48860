/**
 * The MCP server the HTTP examples mount: one tool, one resource. Any Switchboard `Server` works.
 */
import { Server } from 'switchboard';
import { z } from 'zod';

export function createDemoServer(): Server {
  const server = new Server({ name: 'switchboard-http-example', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );
  server.registerResource('about', 'example://about', { mimeType: 'text/plain' }, () => 'Served over HTTP.');
  return server;
}

/** What every example's start function returns. */
export interface StartedExample {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

export interface ExampleOptions {
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default 127.0.0.1: loopback only. */
  host?: string;
}

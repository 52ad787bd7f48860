import { Server } from 'switchboard';
import { serveStdio } from 'switchboard/stdio';
import { z } from 'zod';

const server = new Server({ name: 'calculator', version: '1.0.0' });

server.registerTool(
  'add',
  {
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
  },
  ({ a, b }) => String(a + b),
);

server.registerResource('readme', 'docs://readme', { mimeType: 'text/markdown' }, () => '# Calculator\n');

serveStdio(server);

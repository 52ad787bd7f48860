import { Client, META, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';
import { z } from 'zod';

const server = new Server({ name: 'worker', version: '1.0.0' });

server.registerTool(
  'process',
  { inputSchema: z.object({ items: z.number().int() }) },
  async ({ items }, ctx) => {
    ctx.log('info', `processing ${items} items for a ${ctx.era} client`);
    for (let done = 1; done <= items; done++) {
      // Stop when the client cancels (or disconnects).
      if (ctx.signal.aborted) return 'stopped';
      await new Promise((resolve) => setTimeout(resolve, 5));
      // Sent only if the client asked for progress; must increase every time.
      ctx.progress(done, items, `item ${done}`);
    }
    return `processed ${items}`;
  },
);

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);
client.on('notifications/message', (params) => console.log('log:', params.level, params.data));

const result = await client.callTool(
  'process',
  { items: 3 },
  {
    onprogress: ({ progress, total, message }) => console.log(`progress ${progress}/${total} (${message})`),
    // 2026-07-28 asks for log messages per request; a legacy client calls setLoggingLevel() once.
    meta: { [META.logLevel]: 'info' },
  },
);
console.log(result.content);

// Cancelling: abort the signal; the server's ctx.signal fires and the call rejects with ABORTED.
const controller = new AbortController();
setTimeout(() => controller.abort('user pressed stop'), 20);
await client
  .callTool('process', { items: 1000 }, { signal: controller.signal })
  .catch((error) => console.log(error.code, error.message));
await client.close();

// Output:
// log: info processing 3 items for a modern client
// progress 1/3 (item 1)
// progress 2/3 (item 2)
// progress 3/3 (item 3)
// [ { type: 'text', text: 'processed 3' } ]
// ABORTED Request 'tools/call' was aborted: user pressed stop.

import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'guarded', version: '1.0.0' });
server.registerTool('status', { description: 'Service status' }, () => 'all good');
server.registerTool('admin_reset', { description: 'Resets everything' }, () => 'reset');

// use(): wraps every request (after the protocol checks, before the method's handler).
server.use((next) => async (method, params, ctx) => {
  const result = await next(method, params, ctx);
  console.log(`served ${method} for ${ctx.client.info?.name} on ${ctx.revision}`);
  return result;
});

// intercept(): one method. Inspect or change the params, call next (or not), change the result.
server.intercept('tools/call', async (params, _ctx, next) => {
  if (params.name === 'status') return { content: [{ type: 'text', text: 'maintenance window' }] };
  return next(params);
});

// filterList(): who sees what. Hidden items are also refused when called.
server.filterList('tools', (tool, ctx) => !tool.name.startsWith('admin_') || ctx.client.info?.name === 'ops');

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

console.log((await client.listTools()).tools.map((t) => t.name));
const [status] = (await client.callTool('status')).content;
console.log(status?.type === 'text' ? status.text : status);
await client.callTool('admin_reset').catch((error) => console.log(error.code, error.message));
await client.close();

// Output:
// served server/discover for docs on 2026-07-28
// served tools/list for docs on 2026-07-28
// [ 'status' ]
// served tools/call for docs on 2026-07-28
// maintenance window
// -32602 Unknown tool: "admin_reset". Call tools/list for the available tools.

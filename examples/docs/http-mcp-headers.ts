import { Client, createHttpHandler, Server } from 'switchboard';
import { type FetchLike, StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch, serve } from 'switchboard/node';
import { z } from 'zod';

const server = new Server({ name: 'weather', version: '1.0.0' });
// x-mcp-header asks 2026-07-28 clients to mirror an argument into a Mcp-Param-{Name} header, so a
// gateway or load balancer can route on it without reading the body. The server checks they agree.
server.registerTool(
  'forecast',
  { inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), days: z.number() }) },
  ({ region, days }) => `${days} days of sun in ${region}`,
);
const running = await serve(createHttpHandler(server));

// Prints the MCP headers of each POST.
const printing: FetchLike = (url, init) => {
  const mcp = Object.entries(init.headers).filter(([name]) => name.startsWith('mcp-'));
  console.log(mcp.map(([name, value]) => `${name}: ${value}`).join(', '));
  return nodeFetch(url, init);
};

const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(new StreamableHttpClientChannel(running.url, { fetch: printing }));
// The channel learns each tool's x-mcp-header arguments from the tools/list results it carries. This
// client has not listed the tools yet: the server refuses the call (-32020), the channel lists the
// tools and sends the call again, with the header.
const result = await client.callTool('forecast', { region: 'Île-de-France', days: 3 });
console.log(result.content);
await client.close();
await running.close();

// Output:
// mcp-protocol-version: 2026-07-28, mcp-method: server/discover
// mcp-protocol-version: 2026-07-28, mcp-method: tools/call, mcp-name: forecast
// mcp-protocol-version: 2026-07-28, mcp-method: tools/list
// mcp-protocol-version: 2026-07-28, mcp-method: tools/call, mcp-name: forecast, mcp-param-region: =?base64?w45sZS1kZS1GcmFuY2U=?=
// [ { type: 'text', text: '3 days of sun in Île-de-France' } ]

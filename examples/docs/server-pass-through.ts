import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

// The server behind: it checks its own arguments (`n` must be an integer).
const behind = new Server({ name: 'behind', version: '1.0.0' });
behind.registerTool(
  'square',
  {
    description: 'Squares n',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  },
  ({ n }) => String((n as number) ** 2),
);
const [upEnd, behindEnd] = createLinkedChannels();
behind.connect(behindEnd);
const upstream = new Client({ name: 'proxy', version: '1.0.0' });
await upstream.connect(upEnd);

// The proxy shows each tool as the server behind describes it, and forwards its calls unchecked.
const proxy = new Server({ name: 'proxy', version: '1.0.0' });
for (const tool of (await upstream.listTools()).tools) {
  proxy.registerPassThroughTool(tool, (params) =>
    upstream.callTool(tool.name, params.arguments as Record<string, unknown> | undefined),
  );
}
// The proxy's own rules still apply to them: middleware, filterList, scopes.
proxy.use((next) => async (method, params, ctx) => {
  if (method === 'tools/call') console.log(`forwarding ${params.name as string}`);
  return next(method, params, ctx);
});

const [clientEnd, proxyEnd] = createLinkedChannels();
proxy.connect(proxyEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

const [tool] = (await client.listTools()).tools;
console.log(tool?.name, JSON.stringify(tool?.inputSchema));
const [answer] = (await client.callTool('square', { n: 7 })).content;
console.log(answer?.type === 'text' ? answer.text : answer);
// Not checked by the proxy: the server behind answers for its own schema.
const wrong = await client.callTool('square', { n: 'seven' });
console.log(wrong.isError);
await client.close();
await upstream.close();

// Output:
// square {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}
// forwarding square
// 49
// forwarding square
// true

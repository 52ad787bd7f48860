import { Client, createHttpHandler, Server } from 'switchboard';
import { formatProblem, Gateway, parseGatewayConfig } from 'switchboard/gateway';
import { serve } from 'switchboard/node';
import { createLinkedChannels } from 'switchboard/testing';

// An upstream at a URL (any MCP server will do). Its tool name has a "." that many clients refuse.
const notes = new Server({ name: 'notes', version: '1.0.0' });
notes.registerTool('notes.search', { description: 'Finds notes' }, () => 'found 2 notes');
const remote = await serve(createHttpHandler(notes));

// The config people already have (loadGatewayConfig(file) reads it from a file): JSON or JSONC.
const loaded = parseGatewayConfig(
  'mcp.json',
  `{
    "mcpServers": {
      "calc": { "command": "node", "args": ["server-basic.js"] }, // a stdio server
      "notes": { "url": "${remote.url}" }
    }
  }`,
);
if (!loaded.ok) throw new Error(loaded.problems.map(formatProblem).join('\n'));

const gateway = new Gateway(loaded.config);
await gateway.start();
console.log(gateway.health().map((upstream) => `${upstream.name}: ${upstream.state}`));

// gateway.server is a Switchboard Server: serve it over HTTP, stdio or, here, in memory.
const [clientEnd, serverEnd] = createLinkedChannels();
gateway.server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);
const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name));
console.log((await client.callTool('calc__add', { a: 2, b: 3 })).content);
console.log((await client.readResource('gateway://calc/docs://readme')).contents[0]?.uri);

await client.close();
await gateway.close();
await remote.close();

// Output:
// [ 'calc: up', 'notes: up' ]
// [ 'calc__add', 'notes__notes_search_0acj8w' ]
// [ { type: 'text', text: '5' } ]
// gateway://calc/docs://readme

import { Client } from 'switchboard';
import { StdioClientChannel } from 'switchboard/stdio';

const client = new Client({ name: 'example-client', version: '1.0.0' });
// Starts the server of the previous example (compiled to server-basic.js) as a child process.
await client.connect(() => new StdioClientChannel({ command: 'node', args: ['server-basic.js'] }));
console.log(`${client.serverInfo?.name} speaks ${client.revision} (${client.era} era)`);

const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name));

const result = await client.callTool('add', { a: 2, b: 3 });
console.log(result.content);

await client.close();

// Output:
// calculator speaks 2026-07-28 (modern era)
// [ 'add' ]
// [ { type: 'text', text: '5' } ]

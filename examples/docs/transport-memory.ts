import { Client, Server } from 'switchboard';
import { createLinkedChannels, loadSchemaCatalog, SchemaCheckedChannel } from 'switchboard/testing';

const server = new Server({ name: 'in-memory', version: '1.0.0' });
server.registerTool('hello', {}, () => 'hello');

// Two linked channels: what one side sends, the other receives (as a fresh JSON copy, in order).
const [clientEnd, serverEnd] = createLinkedChannels();
const connection = server.connect(serverEnd);

// In tests, wrap a channel to check every frame against the official schema of its revision.
const checked = new SchemaCheckedChannel(clientEnd, {
  catalog: await loadSchemaCatalog(),
  side: 'client',
  peer: 'assert',
});
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(checked);
console.log((await client.callTool('hello')).content);
checked.assertClean(); // throws if either side sent something its revision does not allow

await client.close(); // closes both ends
await connection.closed;
console.log('closed');

// Output:
// [ { type: 'text', text: 'hello' } ]
// closed

import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

// Teach the typed map a method of yours once: server.method(), client.request() and intercept()
// are then typed for it everywhere, as they are for the built-in methods.
declare module 'switchboard' {
  interface McpMethods {
    'acme/stats': { params: { since?: string }; result: { calls: number; since: string } };
  }
}

const server = new Server({ name: 'acme', version: '1.0.0' });
server.registerTool('ping', {}, () => 'pong');
server.method('acme/stats', {}, ({ since = 'boot' }) => ({ calls: 42, since }));

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(clientEnd);

// Built-in methods are typed (and their results checked) too: tools is a Tool[].
const { tools } = await client.request('tools/list');
console.log(tools.map((tool) => tool.name));
const stats = await client.request('acme/stats', { since: 'noon' });
console.log(stats.calls + 1, stats.since);
await client.close();

// Output:
// [ 'ping' ]
// 43 noon

import { Client, createHttpHandler, Server } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { createNodeFetch, serve } from 'switchboard/node';

const server = new Server({ name: 'busy', version: '1.0.0' });
server.registerTool('hello', {}, () => 'hello');
const running = await serve(createHttpHandler(server));
let connections = 0;
running.server.on('connection', () => connections++);

// A pool of its own: at most 8 connections to one origin, and no proxy whatever the environment says.
const fetch = createNodeFetch({ connections: 8, proxy: false });
const client = new Client({ name: 'docs', version: '1.0.0' });
await client.connect(new StreamableHttpClientChannel(running.url, { fetch }));
// 100 calls at once share those connections: the rest wait for one.
const results = await Promise.all(Array.from({ length: 100 }, () => client.callTool('hello')));
console.log(results.length, results[0]?.content);
console.log('connections:', connections <= 8 ? 'at most 8' : connections);
await client.close();
await running.close();

// Output:
// 100 [ { type: 'text', text: 'hello' } ]
// connections: at most 8

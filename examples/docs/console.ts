import { createHttpHandler, Server } from 'switchboard';
import { serveConsole } from 'switchboard/console';
import { serve } from 'switchboard/node';

const server = new Server({ name: 'notes', version: '1.0.0' });
server.registerTool('hello', { description: 'Says hello.' }, () => 'Hello!');
const mcp = await serve(createHttpHandler(server), { port: 0 });

// The console on a free port, already connected to the server. `url` carries the token.
const running = await serveConsole({ port: 0, connect: [{ kind: 'http', url: mcp.url }] });
const [connection] = running.connections;
console.log(connection?.state, connection?.serverInfo?.name, connection?.revision);
console.log('open', running.url.startsWith(`${running.origin}/?token=`));

// Without the token nothing is served, not even the page.
console.log('without the token:', (await fetch(running.origin)).status);

await running.close();
await mcp.close();

// Output:
// open notes 2026-07-28
// open true
// without the token: 401

import { Client, type Logger, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

// Any object with error(Error) and warn(string) will do: console, pino, winston, or your own.
const logger = (who: string): Logger => ({
  error: (error) => console.log(`${who} error: ${error.message}`),
  warn: (message) => console.log(`${who} warning: ${message}`),
});

const server = new Server({ name: 'logged', version: '1.0.0' }, { logger: logger('server') });
server.registerTool('work', {}, (_args, ctx) => {
  ctx.log('info', 'working');
  return 'done';
});

const client = new Client({ name: 'docs', version: '1.0.0' }, { logLevel: 'info', logger: logger('client') });
// A listener that throws breaks no call: the client's logger hears about it.
client.onLog(() => {
  throw new Error('the log listener has a bug');
});

const [clientEnd, serverEnd] = createLinkedChannels();
server.connect(serverEnd);
await client.connect(clientEnd);
console.log((await client.callTool('work')).content);
await client.close();

// Output:
// client error: the log listener has a bug
// [ { type: 'text', text: 'done' } ]

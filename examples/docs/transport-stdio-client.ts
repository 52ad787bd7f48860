import { Client } from 'switchboard';
import { StdioClientChannel } from 'switchboard/stdio';

let channel: StdioClientChannel | undefined;
const client = new Client({ name: 'docs', version: '1.0.0' });
// A factory rather than a channel: if a legacy server hangs up on the server/discover probe,
// automatic negotiation starts a fresh process for the initialize handshake.
await client.connect(() => {
  channel = new StdioClientChannel({
    command: 'node',
    args: ['server-basic.js'],
    cwd: import.meta.dirname, // default: our working directory
    env: { LOG_LEVEL: 'debug', NODE_OPTIONS: undefined }, // set or remove variables
    inheritEnv: false, // default: only PATH, HOME, LANG and a few more of ours
    stderr: 'pipe', // default 'inherit'; 'pipe' keeps it for stderrTail() and error messages
    shutdownTimeoutMs: 3000, // close(): end stdin, wait this long, SIGTERM, wait, SIGKILL
  });
  return channel;
});
console.log((await client.callTool('add', { a: 1, b: 2 })).content);
await client.close(); // resolves once the process has exited
console.log(channel?.exitStatus, JSON.stringify(channel?.stderrTail()));

// Output:
// [ { type: 'text', text: '3' } ]
// { code: 0, signal: null } ""

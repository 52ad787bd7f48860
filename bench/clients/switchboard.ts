/**
 * The Switchboard client. Its 2026-07-28 result cache is off: the benchmark measures the wire, and a
 * cached `tools/list` would never leave the process. Over HTTP it uses `nodeFetch` from
 * `switchboard/node`, the fetch Switchboard offers Node applications, unless the job names another
 * (see fetches.ts).
 */
import { type Channel, Client } from 'switchboard';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { StdioClientChannel } from 'switchboard/stdio';
import { loadFetch } from './fetches.js';
import { type BenchClient, CLIENT_INFO, type ConnectClient, MODERN } from './types.js';

export const connect: ConnectClient = async (era, target, fetch = 'node') => {
  const client = new Client(CLIENT_INFO, {
    version: era === 'modern' ? { pin: MODERN } : 'legacy',
    cache: false,
  });
  let channel: Channel;
  let pid: () => number | undefined = () => undefined;
  if (target.kind === 'stdio') {
    const stdio = new StdioClientChannel({ command: target.command, args: target.args, stderr: 'inherit' });
    pid = () => stdio.pid;
    channel = stdio;
  } else {
    channel = new StreamableHttpClientChannel(target.url, { fetch: await loadFetch(fetch) });
  }
  await client.connect(channel);
  return {
    get serverPid() {
      return pid();
    },
    call: (name, args) => client.callTool(name, args),
    listTools: async () => (await client.listTools()).tools.length,
    close: () => client.close(),
  } satisfies BenchClient;
};

/**
 * The Switchboard client. Its 2026-07-28 result cache is off: the benchmark measures the wire, and a
 * cached `tools/list` would never leave the process.
 *
 * HTTP SLOT: `StreamableHttpClientChannel` comes from `switchboard/http`, which is being written on
 * another branch. It is imported by a computed specifier so this file compiles before it lands; until
 * then connecting over HTTP throws and the harness shows the Switchboard-client HTTP cells as absent.
 */
import { type Channel, Client } from 'switchboard';
import { StdioClientChannel } from 'switchboard/stdio';
import { type BenchClient, CLIENT_INFO, type ConnectClient, MODERN } from './types.js';

/** The part of `switchboard/http` the benchmark uses. */
interface SwitchboardHttpModule {
  StreamableHttpClientChannel: new (url: string, options?: Record<string, unknown>) => Channel;
}

const HTTP_MODULE = 'switchboard/http';

export const connect: ConnectClient = async (era, target) => {
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
    const http = (await import(HTTP_MODULE)) as SwitchboardHttpModule;
    channel = new http.StreamableHttpClientChannel(target.url);
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

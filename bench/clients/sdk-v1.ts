/** The official v1 SDK client (`@modelcontextprotocol/sdk`): legacy era only. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type BenchClient, CLIENT_INFO, type ConnectClient } from './types.js';

export const connect: ConnectClient = async (era, target) => {
  if (era !== 'legacy') throw new Error('The v1 SDK client speaks only the legacy era.');
  const client = new Client(CLIENT_INFO);
  if (target.kind === 'stdio') {
    const transport = new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      stderr: 'inherit',
    });
    await client.connect(transport);
    return wrap(client, () => transport.pid ?? undefined);
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(target.url)));
  return wrap(client, () => undefined);
};

function wrap(client: Client, pid: () => number | undefined): BenchClient {
  return {
    get serverPid() {
      return pid();
    },
    call: (name, args) => client.callTool({ name, arguments: args }) as Promise<any>,
    listTools: async () => (await client.listTools()).tools.length,
    close: () => client.close(),
  };
}

/**
 * The official v2 SDK client (`@modelcontextprotocol/client`): `legacy` negotiation, or pinned to
 * 2026-07-28 for the modern era.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type BenchClient, CLIENT_INFO, type ConnectClient, MODERN } from './types.js';

export const connect: ConnectClient = async (era, target) => {
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: { mode: era === 'modern' ? { pin: MODERN } : 'legacy' },
  });
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

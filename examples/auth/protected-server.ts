/**
 * A Server protected by `bearer()` on 127.0.0.1 (a free port), trusting `issuer`: what
 * examples/docs/auth-server.ts shows step by step, for examples about the client side.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler, type Server } from 'switchboard';
import { bearer } from 'switchboard/auth';
import { toNodeListener } from 'switchboard/node';

export async function serveProtected(
  server: Server,
  issuer: string,
  scopesSupported: string[],
): Promise<{ resource: string; close(): Promise<void> }> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  // The resource URI must be known to bearer(): listen first, then build the handler.
  const resource = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const handler = createHttpHandler(server, {
    auth: bearer({ resource, authorizationServers: [issuer], scopesSupported }),
  });
  http.on('request', toNodeListener(handler));
  return {
    resource,
    async close() {
      await handler.close();
      http.close();
    },
  };
}

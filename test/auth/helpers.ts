/**
 * Helpers for the authorization tests: a protected Switchboard server on 127.0.0.1:0 (its resource
 * URL is known only once it listens, so the handler is built then), and raw requests with a token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientMetadata } from 'oidc-provider';
import { type BearerOptions, bearer } from '../../src/auth/server/bearer.js';
import type { Server } from '../../src/extensions/server.js';
import { toNodeListener } from '../../src/node/listener.js';
import { createHttpHandler, type HttpHandler } from '../../src/transports/http/server/handler.js';
import type { HttpHandlerOptions } from '../../src/transports/http/server/options.js';
import { ACCEPT_BOTH, type Exchange, post } from '../http/server/helpers.js';

export interface ProtectedServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`: also the resource URI. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly handler: HttpHandler;
  close(): Promise<void>;
}

/** Serves `server` at /mcp, protected by `bearer(options(resource))`. */
export async function startProtected(
  server: Server,
  options: (resource: string) => Omit<BearerOptions, 'resource'> & { resource?: string },
  handlerOptions: HttpHandlerOptions = {},
): Promise<ProtectedServer> {
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer((req, res) => listener!(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/mcp`;
  const handler = createHttpHandler(server, {
    ...handlerOptions,
    auth: bearer({ resource: url, ...options(url) }),
  });
  listener = toNodeListener(handler);
  return {
    url,
    origin,
    port,
    handler,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** Opens a legacy session (`initialize` at `revision`) with `token`; the reply carries its id. */
export function openSession(url: string, token: string, revision: string): Promise<Exchange> {
  return post(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    },
    { 'content-type': 'application/json', accept: ACCEPT_BOTH, authorization: `Bearer ${token}` },
  );
}

/** A machine client, registered with the development authorization server up front. */
export const ROBOT = { client_id: 'robot', client_secret: 'robot-secret-robot-secret-robot-secret' };

/** ROBOT as oidc-provider's `clients` entry: client credentials only, authenticated with its secret. */
export const ROBOT_REGISTRATION: ClientMetadata = {
  ...ROBOT,
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'client_secret_basic',
  redirect_uris: [],
  response_types: [],
};

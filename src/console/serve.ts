/**
 * `serveConsole()`: the console on its own `node:http` server, bound to loopback. Requests for the
 * console (the page, its files, `/api/`) pass the guard first; any other path goes to `next`, which
 * lets one port carry both an MCP endpoint and the console exploring it (`npm start`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeListener } from '../node/listener.js';
import { SwitchboardError } from '../protocol/errors.js';
import { errorMessage } from '../util/guards.js';
import { serveApi } from './api.js';
import type { ConnectionSummary, ConnectRequest } from './api-types.js';
import { serveAsset, servePage } from './assets.js';
import { ConsoleFleet } from './fleet.js';
import type { FleetSource } from './fleet-types.js';
import { GatewayFleet } from './gateway-fleet.js';
import { ConsoleGuard, newToken } from './guard.js';
import { sendText } from './responses.js';
import { ConsoleService } from './service.js';

export interface ConsoleOptions {
  /** TCP port; 0 picks a free one. Default 7420. */
  port?: number;
  /** Loopback address to bind. Default `127.0.0.1`. */
  host?: string;
  /** The secret every request must carry. Default: 24 random bytes, base64url. */
  token?: string;
  /** Servers to connect to once the console is up (e.g. the one named on the command line). */
  connect?: readonly ConnectRequest[];
  /** Serves every request that is not the console's (`/mcp`, `/sse`...). Default: 404. */
  next?: NodeListener;
  /**
   * The command center: the servers of this mcpServers/VS Code config, checked from the page.
   * Without `config`, the fleet is that of the `switchboard gateway` the console is connected to;
   * `history` is the check history (JSONL) either way.
   */
  fleet?: { readonly config?: string; readonly history?: string };
  /**
   * The admin token of the gateway the console is connected to (its `gateway.admin.token`), sent
   * to its admin endpoint to show and approve held tools and check each server. The CLI reads it
   * from `SWITCHBOARD_ADMIN_TOKEN`.
   */
  gatewayAdminToken?: string;
}

export interface RunningConsole {
  /** The page's URL, token included: what to open (and to keep private). */
  readonly url: string;
  /** `http://host:port`, without the token. */
  readonly origin: string;
  readonly token: string;
  /** What connecting to `options.connect` gave, in order. */
  readonly connections: readonly ConnectionSummary[];
  /** Connects to one more server, as the page's "New connection" does; resolves once negotiated (or failed). */
  connect(request: ConnectRequest): Promise<ConnectionSummary>;
  /** Ends the event streams, closes every connection (stopping stdio servers), stops listening. */
  close(): Promise<void>;
}

export async function serveConsole(options: ConsoleOptions = {}): Promise<RunningConsole> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  const service = new ConsoleService();
  const configFleet = options.fleet?.config
    ? new ConsoleFleet(options.fleet.config, options.fleet.history)
    : undefined;
  // Without a config, the fleet is that of the gateway the console is connected to (if any).
  let gatewayFleet: GatewayFleet | undefined;
  const fleet = (): FleetSource | undefined => {
    if (configFleet) return configFleet;
    const connection = service.gatewayConnection();
    if (!connection) return undefined;
    if (gatewayFleet?.connection !== connection)
      gatewayFleet = new GatewayFleet(connection, options.fleet?.history, options.gatewayAdminToken);
    return gatewayFleet;
  };
  const streams = new Set<ServerResponse>();
  let guard: ConsoleGuard | undefined;

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    const ours =
      path === '/' || path === '/index.html' || path.startsWith('/assets/') || path.startsWith('/api/');
    if (!ours) {
      if (options.next) return options.next(req, res);
      return sendText(res, 404, `Nothing at ${path}; the console is at /.`);
    }
    const refusal = guard!.check(req, url);
    if (refusal) return sendText(res, refusal.status, refusal.message);
    route(req, res, url).catch((error) => {
      if (!res.headersSent) sendText(res, 500, errorMessage(error));
      else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    if (path.startsWith('/api/')) return serveApi(service, req, res, url, streams, fleet());
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Only GET is served here.');
    if (path.startsWith('/assets/')) return serveAsset(res, path.slice('/assets/'.length));
    return servePage(res, token);
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) =>
      reject(
        new SwitchboardError(
          'TRANSPORT',
          `Cannot listen on ${host}:${options.port ?? 7420}: ${error.message}`,
          {
            cause: error,
          },
        ),
      );
    server.once('error', onError);
    server.listen(options.port ?? 7420, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  guard = new ConsoleGuard(token, port, [shown]);
  const origin = `http://${shown}:${port}`;

  const connections: ConnectionSummary[] = [];
  for (const request of options.connect ?? []) connections.push(await service.connect(request));

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${encodeURIComponent(token)}`,
    origin,
    token,
    connections,
    connect: (request) => service.connect(request),
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const stream of streams) stream.end();
        await service.close();
        server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

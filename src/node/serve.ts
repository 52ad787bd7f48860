/**
 * `serve(handler)`: an MCP HTTP handler on its own `node:http` server, bound to 127.0.0.1 unless told
 * otherwise (the spec: local servers SHOULD bind only to localhost), with a graceful close.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SwitchboardError } from '../protocol/errors.js';
import { type HttpHandler, isMcpHttpHandler } from '../transports/http/server/handler.js';
import { toNodeListener } from './listener.js';

export interface ServeOptions {
  /** TCP port; 0 (the default) picks a free one — read it from `url`. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** How long `close()` lets requests in flight finish before cutting their connections. Default 5000 ms. */
  closeTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request, headers and body; a slower one gets 408 and
   * its connection closed, so slow or endless bodies cannot hold connections (Node's own default is
   * 5 minutes). Responses, SSE streams included, are not limited by it. Default 30000 ms.
   */
  requestTimeoutMs?: number;
  /** How long a client may take to send the request's headers. Default 10000 ms. */
  headersTimeoutMs?: number;
}

export interface RunningServer {
  /** The MCP endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** The underlying `node:http` server. */
  readonly server: HttpServer;
  /**
   * Stops accepting connections, ends every SSE stream and session (the handler's `close()`), lets
   * requests in flight finish for up to `closeTimeoutMs`, then closes what is left. Idempotent.
   */
  close(): Promise<void>;
}

export async function serve(handler: HttpHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const closeTimeoutMs = options.closeTimeoutMs ?? 5000;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const server = createServer(
    {
      requestTimeout,
      headersTimeout,
      // Node checks these timeouts on this interval (30 s by default, longer than the timeouts).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 2))),
    },
    toNodeListener(handler),
  );
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) =>
      reject(
        new SwitchboardError('TRANSPORT', `Cannot listen on ${host}:${options.port ?? 0}: ${error.message}`, {
          cause: error,
        }),
      );
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const shown = unspecified
    ? 'localhost'
    : address.address.includes(':')
      ? `[${address.address}]`
      : address.address;
  const url = `http://${shown}:${address.port}${isMcpHttpHandler(handler) ? handler.endpoint : ''}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    server,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await handler.close();
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), closeTimeoutMs);
        timer.unref();
        await stopped;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

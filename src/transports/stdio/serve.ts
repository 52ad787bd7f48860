/**
 * `serveStdio(server)`: the whole lifecycle of a stdio server process in one call. The process ends
 * when its client goes away (stdin EOF) or on SIGINT/SIGTERM, after queued output has been flushed —
 * never leaving an orphaned server behind.
 */
import type { ServerConnection } from '../../server/connection.js';
import type { ServerCore } from '../../server/server.js';
import { StdioServerChannel, type StdioServerChannelOptions } from './server-channel.js';

export interface ServeStdioOptions extends StdioServerChannelOptions {
  /** Exit the process once the connection has closed. Default true. */
  exit?: boolean;
  /** Called once the connection has closed, before the process exits. */
  onclose?: () => void | Promise<void>;
}

export function serveStdio(server: ServerCore, options: ServeStdioOptions = {}): ServerConnection {
  const channel = new StdioServerChannel(options);
  const connection = server.connect(channel);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await connection.close();
    await options.onclose?.();
    if (options.exit ?? true) process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  connection.closed.then(stop, stop);
  return connection;
}

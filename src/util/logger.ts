/**
 * The one logging option of every component (Server, Client, the HTTP handler, the HTTP and stdio
 * channels, the CLI): where problems go that concern no single call, and so reach no caller — a
 * malformed frame, a listener that threw, an event store that failed, a tool dropped for an invalid
 * header, a client that stopped reading. `console` is a Logger, and so is any logger whose `error`
 * takes an Error and whose `warn` takes a string (pino, winston...).
 *
 * A library stays silent unless told otherwise: the default is {@link silentLogger} everywhere but
 * in a stdio server process, whose stderr is the MCP place for logs, and in the CLI.
 */

export interface Logger {
  /** Something failed that no caller will hear about (the Error carries the details and the stack). */
  error(error: Error): void;
  /** Worth knowing, though nothing failed (a tool dropped, a stream given up, a slow client). */
  warn(message: string): void;
}

/** Drops everything: the default of a library component. */
export const silentLogger: Logger = Object.freeze({
  error(): void {},
  warn(): void {},
});

/** A logger that writes each problem as one `switchboard: ...` line through `write` (stderr, say). */
export function lineLogger(write: (line: string) => void): Logger {
  const safely = (line: string) => {
    try {
      write(line);
    } catch {
      // A logger that throws must not take the connection (or the process) down.
    }
  };
  return {
    error: (error) => safely(`switchboard: ${error.message}\n`),
    warn: (message) => safely(`switchboard: warning: ${message}\n`),
  };
}

/**
 * The logger of a component given `logger` and the older `onerror` callback (kept: errors go to
 * both when both are given), falling back to `fallback` when neither is.
 */
export function withOnerror(
  logger: Logger | undefined,
  onerror: ((error: Error) => void) | undefined,
  fallback: Logger = silentLogger,
): Logger {
  if (!onerror) return logger ?? fallback;
  if (!logger) return { error: onerror, warn: (message) => fallback.warn(message) };
  return {
    error: (error) => {
      onerror(error);
      logger.error(error);
    },
    warn: (message) => logger.warn(message),
  };
}

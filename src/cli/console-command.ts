/**
 * `switchboard console [target]`: serves the web console on 127.0.0.1 and prints its URL (token
 * included), connected to the target when one is given; runs until Ctrl-C. Unlike the other
 * commands it holds no single connection of its own, so it has its own small argv reading.
 */
import type { ConnectRequest } from '../console/api-types.js';
import { serveConsole } from '../console/serve.js';
import { isRevision, REVISIONS } from '../protocol/revisions.js';
import { errorMessage } from '../util/guards.js';
import type { CliIo } from './io.js';
import { targetFromWords } from './target.js';
import { parseCommandLine, UsageError } from './usage-error.js';

export const CONSOLE_DEFAULT_PORT = 7420;

export const CONSOLE_HELP = `Usage:
  switchboard console [--port <n>] [--protocol <rev> | --legacy] [<target>]
  switchboard console [options] -- <server command ...>
  switchboard console --config FILE [--history FILE]
  switchboard console [--history FILE] <gateway URL>

Serves the Switchboard console, a web page to explore, call and debug MCP
servers, at http://127.0.0.1:${CONSOLE_DEFAULT_PORT}/ and prints its URL. The URL holds a
random token that every request must carry: keep it to yourself, as the page can
start programs on this machine. With a target, the console opens connected to it;
more servers can be connected from the page. Ctrl-C stops it.

Options:
  --port <n>        Port to serve on (default ${CONSOLE_DEFAULT_PORT}; 0 picks a free one)
  --protocol <rev>  Speak exactly this revision to the target, e.g. 2025-06-18
  --legacy          Use the legacy initialize handshake with the target
  --config <file>   The command center: every server of this mcpServers/VS Code
                    config, its health, check scores and changed tools (#/fleet)
  --history <file>  The fleet's check history (JSONL, as check --history), with
                    --config or with a switchboard gateway's URL (its fleet)
  -h, --help        Show this help

Examples:
  switchboard console
  switchboard console "node server.js --stdio"
  switchboard console http://127.0.0.1:3000/mcp

A gateway's fleet uses the gateway's admin endpoint (gateway.admin) with the
token in SWITCHBOARD_ADMIN_TOKEN, when set: held tools are shown and approved on
the gateway, and each server behind it is checked from the page.

See docs/console.md for what it does and its security model.
`;

/** `untilStopped` is called once the console serves; it resolves when the console should stop. */
export type ConsoleIo = Required<CliIo>;

/** Returns the exit code: 0 after a clean stop, 1 when it cannot serve, 2 for a wrong command line. */
export async function runConsole(argv: readonly string[], io: ConsoleIo): Promise<number> {
  let parsed: ConsoleArguments | 'help';
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`switchboard: ${error.message}\nRun "switchboard console --help" for usage.\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.out(CONSOLE_HELP);
    return 0;
  }
  let running: Awaited<ReturnType<typeof serveConsole>>;
  try {
    running = await serveConsole({
      port: parsed.port,
      connect: parsed.connect,
      ...(parsed.fleet ? { fleet: parsed.fleet } : {}),
      ...(process.env.SWITCHBOARD_ADMIN_TOKEN
        ? { gatewayAdminToken: process.env.SWITCHBOARD_ADMIN_TOKEN }
        : {}),
    });
  } catch (error) {
    io.err(
      `switchboard: cannot serve the console: ${errorMessage(error)}\n` +
        (parsed.port === 0
          ? ''
          : `Is port ${parsed.port} in use? Pick another with --port <n> (0: any free port).\n`),
    );
    return 1;
  }
  io.out(`Switchboard console: ${running.url}${parsed.fleet?.config ? '#/fleet' : ''}\n`);
  for (const connection of running.connections) {
    io.out(
      connection.state === 'open'
        ? `connected to ${connection.serverInfo?.name ?? connection.label} (${connection.transport}, protocol ${connection.revision})\n`
        : `could not connect to ${connection.label}: ${connection.error ?? connection.state}\n`,
    );
  }
  io.out('Open the URL in a browser; Ctrl-C stops the console.\n');
  await io.untilStopped();
  await running.close();
  return 0;
}

interface ConsoleArguments {
  port: number;
  connect: ConnectRequest[];
  fleet?: { config?: string; history?: string };
}

function parse(argv: readonly string[]): ConsoleArguments | 'help' {
  const parsed = parseConnection(argv);
  if (parsed === 'help') return parsed;
  const { values } = parseCommandLine(argv, CONSOLE_OPTIONS, 'console');
  if (values.history !== undefined && values.config === undefined && parsed.connect.length === 0)
    throw new UsageError(
      '--history goes with --config FILE or a gateway to connect to (the fleet view).',
      'console',
    );
  if (values.config === undefined && values.history === undefined) return parsed;
  return {
    ...parsed,
    fleet: {
      ...(values.config ? { config: values.config } : {}),
      ...(values.history ? { history: values.history } : {}),
    },
  };
}

const CONSOLE_OPTIONS = {
  port: { type: 'string' },
  protocol: { type: 'string' },
  legacy: { type: 'boolean' },
  config: { type: 'string' },
  history: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseConnection(argv: readonly string[]): ConsoleArguments | 'help' {
  const { values, tokens } = parseCommandLine(argv, CONSOLE_OPTIONS, 'console');
  if (values.help) return 'help';
  const port = values.port === undefined ? CONSOLE_DEFAULT_PORT : Number(values.port);
  if (values.port !== undefined && (!/^\d+$/.test(values.port) || port > 65535))
    throw new UsageError(
      `--port takes a port number (0-65535), got ${JSON.stringify(values.port)}.`,
      'console',
    );
  if (values.legacy && values.protocol !== undefined)
    throw new UsageError('--legacy and --protocol both choose the protocol: give one.', 'console');
  if (values.protocol !== undefined && !isRevision(values.protocol))
    throw new UsageError(
      `Unknown protocol revision ${JSON.stringify(values.protocol)}; use one of ${REVISIONS.join(', ')}.`,
      'console',
    );
  const protocol = values.legacy ? 'legacy' : (values.protocol ?? 'auto');
  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const words = tokens.flatMap((t) => (t.kind === 'positional' ? [t] : []));
  const before = words
    .filter((t) => terminator === undefined || t.index < terminator.index)
    .map((t) => t.value);
  const after = words
    .filter((t) => terminator !== undefined && t.index > terminator.index)
    .map((t) => t.value);
  if (before.length > (terminator ? 0 : 1))
    throw new UsageError(
      `Unexpected arguments ${before.map((w) => JSON.stringify(w)).join(' ')}: quote the server's whole command line ("node server.js --stdio") or put it after --.`,
      'console',
    );
  const targetWords = terminator ? after : before;
  if (targetWords.length === 0) return { port, connect: [] };
  const target = targetFromWords(targetWords, terminator !== undefined, 'console');
  return {
    port,
    connect: [
      target.kind === 'http'
        ? { kind: 'http', url: String(target.url), protocol }
        : { kind: 'stdio', command: target.command, args: target.args ?? [], protocol },
    ],
  };
}

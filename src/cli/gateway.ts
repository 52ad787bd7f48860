/**
 * `switchboard gateway`: the command line of the gateway. `--check CONFIG` validates a config
 * without starting anything; `CONFIG` serves it (see `gateway/run.ts`).
 */
import { loadGatewayConfig } from '../gateway/config.js';
import { formatProblem } from '../gateway/config-source.js';
import type { CliIo } from './io.js';
import { cliVersion } from './session.js';
import { UsageError } from './usage-error.js';

export const GATEWAY_HELP = `Usage:
  switchboard gateway [options] CONFIG
  switchboard gateway --check CONFIG

Serves every MCP server of CONFIG behind one endpoint. CONFIG is an mcpServers
JSON file (desktop apps, Cursor) or VS Code's mcp.json ("servers" + "inputs"),
JSON or JSONC. Each server's tools and prompts appear as <server>__<name>.

Options:
  --check          Check CONFIG and print every problem (file:line:column), start nothing
  --port <n>       Listen on this port (default: the config's, else 7420; 0 picks one)
  --host <addr>    Listen on this address (default: the config's, else 127.0.0.1)
  --stdio          Serve one client over stdin/stdout instead of HTTP
  -h, --help       Show this help

Exit status: 0 when the config is good (--check) or the gateway stopped cleanly,
1 when the config is bad or the gateway failed, 2 when the command line is wrong.
`;

export interface GatewayArguments {
  readonly config: string;
  readonly check: boolean;
  readonly stdio: boolean;
  readonly port: number | undefined;
  readonly host: string | undefined;
  readonly help: boolean;
}

export function parseGatewayArguments(argv: readonly string[]): GatewayArguments {
  let config: string | undefined;
  let check = false;
  let stdio = false;
  let port: number | undefined;
  let host: string | undefined;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${word} needs a value.`, 'gateway');
      return next;
    };
    if (word === '--check') check = true;
    else if (word === '--stdio') stdio = true;
    else if (word === '-h' || word === '--help') help = true;
    else if (word === '--port') {
      const text = value();
      port = Number(text);
      if (!/^\d+$/.test(text) || port > 65535) {
        throw new UsageError(`--port ${JSON.stringify(text)} is not a port: give 0-65535.`, 'gateway');
      }
    } else if (word === '--host') host = value();
    else if (word.startsWith('-')) throw new UsageError(`Unknown option ${JSON.stringify(word)}.`, 'gateway');
    else if (config === undefined) config = word;
    else
      throw new UsageError(`Unexpected argument ${JSON.stringify(word)}: give one CONFIG file.`, 'gateway');
  }
  if (config === undefined && !help)
    throw new UsageError('Missing CONFIG, the JSON file of servers to serve.', 'gateway');
  return { config: config ?? '', check, stdio, port, host, help };
}

/** Runs `switchboard gateway ...`; resolves to the exit code. */
export async function runGatewayCli(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseGatewayArguments(argv);
  if (args.help) {
    io.out(GATEWAY_HELP);
    return 0;
  }
  const loaded = loadGatewayConfig(args.config);
  for (const warning of loaded.warnings) io.err(`warning: ${formatProblem(warning)}\n`);
  if (!loaded.ok) {
    for (const problem of loaded.problems) io.err(`${formatProblem(problem)}\n`);
    const count = loaded.problems.length;
    io.err(
      `switchboard gateway: ${count} problem${count === 1 ? '' : 's'} in ${args.config}; nothing started.\n`,
    );
    return 1;
  }
  const { config } = loaded;
  if (args.check) {
    io.out(
      `${args.config}: ${config.upstreams.length} server${config.upstreams.length === 1 ? '' : 's'}, OK\n`,
    );
    for (const upstream of config.upstreams) {
      const where =
        upstream.transport === 'stdio'
          ? [upstream.command, ...upstream.args].join(' ')
          : `${upstream.url.href} (${upstream.transport === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'})`;
      io.out(`  ${upstream.name}  ${upstream.transport === 'stdio' ? 'stdio ' : ''}${where}\n`);
    }
    return 0;
  }
  const { runGateway } = await import('../gateway/run.js');
  return runGateway(
    config,
    { stdio: args.stdio, host: args.host, port: args.port, version: cliVersion() },
    io.err,
  );
}

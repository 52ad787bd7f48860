/**
 * `switchboard gateway`: the command line of the gateway. `--check CONFIG` validates a config
 * without starting anything; `CONFIG` serves it (see `gateway/run.ts`).
 */
import { verifyAudit } from '../gateway/audit.js';
import {
  type HttpUpstreamConfig,
  loadGatewayConfig,
  parseGatewayConfig,
  type UpstreamConfig,
} from '../gateway/config.js';
import { formatProblem } from '../gateway/config-source.js';
import { nodeFetch } from '../node/fetch.js';
import { SwitchboardError } from '../protocol/errors.js';
import type { FetchLike } from '../transports/http/client/fetch-like.js';
import { headerOptions } from './header-option.js';
import type { CliIo } from './io.js';
import { cliVersion } from './session.js';
import { cliOAuthClient } from './sign-in.js';
import { UsageError } from './usage-error.js';

export const GATEWAY_HELP = `Usage:
  switchboard gateway [options] CONFIG
  switchboard gateway --check CONFIG
  switchboard gateway approve --lock FILE CONFIG [TOOL...]
  switchboard gateway --stdio [--header "Name: value" ...] URL
  switchboard gateway audit verify FILE...

Serves every MCP server of CONFIG behind one endpoint. CONFIG is an mcpServers
JSON file (desktop apps, Cursor) or VS Code's mcp.json ("servers" + "inputs"),
JSON or JSONC. Each server's tools and prompts appear as <server>__<name>.
A URL instead of CONFIG serves that one server with its own names (a bridge
for clients that take only commands); \${VAR} in a --header is read from the
environment.

Options:
  --check          Check CONFIG and print every problem (file:line:column), start nothing
  --port <n>       Listen on this port (default: the config's, else 7420; 0 picks one)
  --host <addr>    Listen on this address (default: the config's, else 127.0.0.1)
  --stdio          Serve one client over stdin/stdout instead of HTTP
  --watch          Apply changes to CONFIG while running: only the servers whose
                   entries changed restart; clients stay connected
  --header <h>     With a URL: a header "Name: value" to send it (repeatable)
  --lock <file>    Pin every tool's definition and skill's content in FILE (made
                   when missing); one that changes is hidden until approved
  --insecure-no-auth
                   Listen on a non-loopback address without gateway.auth (anyone
                   who reaches the port may use every server); warns at every start
  -h, --help       Show this help

approve connects to the servers and pins the current definitions of the hidden
tools and skills named (a skill by its SKILL.md URI; all of them when none is named).

audit verify checks the hash chain of gateway.audit files (rotated ones first,
oldest first): exit 0 when intact, 1 naming the first line that breaks it.

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
  readonly lock: string | undefined;
  readonly watch: boolean;
  /** `approve`: the tools to approve (empty: every hidden one). */
  readonly approve: readonly string[] | undefined;
  /** With a URL for CONFIG: the headers to send it. */
  readonly headers: readonly string[];
  /** `audit verify`: the files to check, in order. */
  readonly auditVerify: readonly string[] | undefined;
  readonly insecureNoAuth: boolean;
}

export function parseGatewayArguments(argv: readonly string[]): GatewayArguments {
  if (argv[0] === 'audit') {
    const files = argv.slice(2);
    if (argv[1] !== 'verify' || files.length === 0 || files.some((f) => f.startsWith('-'))) {
      throw new UsageError(
        'Write: switchboard gateway audit verify FILE... (rotated files first).',
        'gateway',
      );
    }
    return {
      config: '',
      check: false,
      stdio: false,
      port: undefined,
      host: undefined,
      help: false,
      lock: undefined,
      watch: false,
      approve: undefined,
      auditVerify: files,
      insecureNoAuth: false,
      headers: [],
    };
  }
  let insecureNoAuth = false;
  let config: string | undefined;
  let check = false;
  let stdio = false;
  let port: number | undefined;
  let host: string | undefined;
  let help = false;
  let lock: string | undefined;
  let watch = false;
  const approving = argv[0] === 'approve';
  const approve: string[] = [];
  const headers: string[] = [];
  for (let i = approving ? 1 : 0; i < argv.length; i++) {
    const word = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${word} needs a value.`, 'gateway');
      return next;
    };
    if (word === '--check') check = true;
    else if (word === '--stdio') stdio = true;
    else if (word === '--watch') watch = true;
    else if (word === '--insecure-no-auth') insecureNoAuth = true;
    else if (word === '-h' || word === '--help') help = true;
    else if (word === '--port') {
      const text = value();
      port = Number(text);
      if (!/^\d+$/.test(text) || port > 65535) {
        throw new UsageError(`--port ${JSON.stringify(text)} is not a port: give 0-65535.`, 'gateway');
      }
    } else if (word === '--host') host = value();
    else if (word === '--lock') lock = value();
    else if (word === '--header') headers.push(value());
    else if (word.startsWith('-')) throw new UsageError(`Unknown option ${JSON.stringify(word)}.`, 'gateway');
    else if (config === undefined) config = word;
    else if (approving) approve.push(word);
    else
      throw new UsageError(`Unexpected argument ${JSON.stringify(word)}: give one CONFIG file.`, 'gateway');
  }
  if (config === undefined && !help)
    throw new UsageError('Missing CONFIG, the JSON file of servers to serve.', 'gateway');
  if (approving && lock === undefined && !help) {
    throw new UsageError(
      'approve needs the lock file: switchboard gateway approve --lock FILE CONFIG.',
      'gateway',
    );
  }
  return {
    config: config ?? '',
    check,
    stdio,
    port,
    host,
    help,
    lock,
    watch,
    approve: approving ? approve : undefined,
    headers,
    auditVerify: undefined,
    insecureNoAuth,
  };
}

/** Runs `switchboard gateway ...`; resolves to the exit code. */
/**
 * The fetch of HTTP upstreams without an `Authorization` header of their own: plain requests until
 * the server answers 401, then the user's stored tokens (`switchboard login`), signing in through
 * `$BROWSER` when there are none, as the other commands do. A server that never asks for a token
 * costs no look-up in the token file.
 */
function signedInFetch(
  report: (text: string) => void,
): (upstream: HttpUpstreamConfig) => FetchLike | undefined {
  let oauth: FetchLike | undefined;
  const protectedServers = new Set<string>();
  return (upstream) => {
    if (Object.keys(upstream.headers).some((name) => name.toLowerCase() === 'authorization'))
      return undefined;
    return async (url, init) => {
      if (!protectedServers.has(upstream.name)) {
        const response = await nodeFetch(url, init);
        if (response.status !== 401) return response;
        protectedServers.add(upstream.name);
        await response.text().catch(() => undefined);
      }
      oauth ??= cliOAuthClient(report).fetch(nodeFetch);
      return oauth(url, init);
    };
  };
}

/** `SWITCHBOARD_TEST_TASK_KEY_REFRESH_MS`, a whole number of milliseconds, or undefined. */
function taskKeyRefreshMs(): number | undefined {
  const value = Number(process.env.SWITCHBOARD_TEST_TASK_KEY_REFRESH_MS);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

export async function runGatewayCli(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseGatewayArguments(argv);
  if (args.help) {
    io.out(GATEWAY_HELP);
    return 0;
  }
  if (args.auditVerify) {
    const verdict = verifyAudit(args.auditVerify);
    if (verdict.ok) {
      io.out(
        `${args.auditVerify.join(', ')}: ${verdict.lines} line${verdict.lines === 1 ? '' : 's'}, chain intact\n`,
      );
      return 0;
    }
    io.err(`${verdict.file}:${verdict.line}: the audit chain breaks here: ${verdict.reason}.\n`);
    return 1;
  }
  const loaded = /^https?:\/\//i.test(args.config)
    ? parseGatewayConfig(args.config, urlConfig(args.config, args.headers))
    : loadGatewayConfig(args.config);
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
  const { approveTools, runGateway } = await import('../gateway/run.js');
  const refreshMs = taskKeyRefreshMs();
  const options = {
    stdio: args.stdio,
    host: args.host,
    port: args.port,
    version: cliVersion(),
    lock: args.lock,
    watch: args.watch,
    insecureNoAuth: args.insecureNoAuth,
    // Internal, for tests (see RunOptions): not a setting operators need.
    ...(refreshMs !== undefined ? { taskKeyRefreshMs: refreshMs } : {}),
    fetchFor: signedInFetch(io.err),
    // The admin endpoint's check: the fleet checker on the server's config entry, loaded when first asked.
    checkServer: async (upstream: UpstreamConfig) => {
      const [{ checkFleet, upstreamTarget }, { forHistory }] = await Promise.all([
        import('../fleet/fleet-check.js'),
        import('../fleet/history.js'),
      ]);
      const [result] = await checkFleet([upstreamTarget(upstream)], { concurrency: 1 });
      return forHistory(result!);
    },
  };
  try {
    if (args.approve) return await approveTools(config, options, args.approve, io.out, io.err);
    return await runGateway(config, options, io.err);
  } catch (error) {
    // A lock file that cannot be used: say so, start nothing.
    if (error instanceof SwitchboardError && error.code === 'CONFIG') {
      io.err(`switchboard gateway: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/** The config of one URL served with its own names (`switchboard gateway --stdio URL`). */
function urlConfig(url: string, headers: readonly string[]): string {
  const map = headerOptions(headers, 'gateway');
  let host = 'remote';
  try {
    host = new URL(url).hostname.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 32) || host;
  } catch {
    // parseGatewayConfig names the bad URL.
  }
  return JSON.stringify({ mcpServers: { [host]: { url, headers: map, namespace: false } } });
}

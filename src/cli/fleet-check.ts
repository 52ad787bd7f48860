/**
 * `switchboard check --config FILE` (every server of an mcpServers or VS Code config, read by the
 * gateway's parser) and `switchboard check --server-json FILE` (every package and remote a
 * server.json declares, and where the running server disagrees with the file): one table, with
 * `--json`, `--junit`, `--html` and `--history` files.
 *
 * Exit status: 0 when every server was checked and none failed a MUST (and, with --server-json,
 * none disagrees with the file), 1 when one did, 2 when one could not be checked or the command line
 * is wrong.
 */
import { writeFileSync } from 'node:fs';
import type { CheckTarget } from '../check/run.js';
import { FleetError } from '../fleet/errors.js';
import {
  checkFleet,
  configTargets,
  type FleetResult,
  type FleetTarget,
  uncheckedResult,
} from '../fleet/fleet-check.js';
import { formatFleetHtml, formatFleetJunit, formatFleetTable } from '../fleet/fleet-report.js';
import { appendRun, fleetRun, latestResults, readRuns } from '../fleet/history.js';
import { declaredServers, type ServerJson } from '../fleet/server-json.js';
import { type ServerSpec, specReferences, substitute } from '../fleet/spec.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { formatProblem } from '../gateway/config-source.js';
import { isRevision, REVISIONS, type Revision } from '../protocol/revisions.js';
import { errorMessage } from '../util/guards.js';
import { pairs } from './fleet.js';
import type { CliIo } from './io.js';
import { readServerJson, terminalInputs } from './server-json-input.js';
import { escapeControls } from './terminal-text.js';
import { parseCommandLine, UsageError } from './usage-error.js';

const OPTIONS = {
  config: { type: 'string' },
  'server-json': { type: 'string' },
  server: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  json: { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  history: { type: 'string' },
  revision: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  env: { type: 'string', multiple: true },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const FLEET_CHECK_HELP = `Usage:
  switchboard check --config FILE [--server NAME ...] [--concurrency N] [options]
  switchboard check --server-json FILE [--env K=V ...] [options]

--config checks every server of an mcpServers or VS Code config (the gateway's
parser: problems are reported as file:line:column); --server picks some.
--server-json checks every package and remote a server.json declares, and
reports where the running server disagrees with the file (name, version,
transport). One table: server, transport, revisions spoken, score, MUST
failures, changes since the last run (with --history).

Options:
  --server <name>       Check only this server of the config (repeatable)
  --concurrency <n>     Servers checked at once (default 2)
  --json <file>         One object per server, each with its score
  --junit <file>        JUnit XML, one suite per server
  --html <file>         One HTML page for the fleet
  --history <file>      Append this run to a JSONL file (and compare with its last run);
                        switchboard report FILE --html OUT draws it
  --revision <rev>      Check only this revision (repeatable)
  --timeout <ms>        Time allowed for each answer (default 10000)
  --env K=V             A value the server.json asks for
  --quiet               No progress on stderr
`;

export async function runFleetCheck(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`switchboard: ${error.message}\nRun "switchboard check --help" for usage.\n`);
      return 2;
    }
    if (error instanceof FleetError) {
      io.err(`switchboard: ${escapeControls(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS, 'check');
  if (values.help) {
    io.out(FLEET_CHECK_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(
      `--config and --server-json check the servers the file names; unexpected ${JSON.stringify(positionals[0])}.`,
      'check',
    );
  if ((values.config === undefined) === (values['server-json'] === undefined))
    throw new UsageError('Give one of --config FILE and --server-json FILE.', 'check');
  const concurrency = Number(values.concurrency ?? '2');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError(
      `--concurrency takes a whole number from 1 to 64, got ${JSON.stringify(values.concurrency)}.`,
      'check',
    );
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutMs !== undefined && (!/^\d+$/.test(values.timeout!) || timeoutMs <= 0))
    throw new UsageError(
      `--timeout takes a positive whole number of milliseconds, got ${JSON.stringify(values.timeout)}.`,
      'check',
    );
  for (const r of values.revision ?? [])
    if (!isRevision(r))
      throw new UsageError(
        `Unknown revision ${JSON.stringify(r)}; use one of ${REVISIONS.join(', ')}.`,
        'check',
      );
  const source = values.config ?? values['server-json']!;
  let targets: FleetTarget[];
  let json: ServerJson | undefined;
  const unrunnable: FleetResult[] = [];
  if (values.config !== undefined) {
    const loaded = loadGatewayConfig(values.config);
    if (!loaded.ok) {
      for (const problem of loaded.problems) io.err(`${escapeControls(formatProblem(problem))}\n`);
      io.err(`switchboard: ${loaded.problems.length} problem(s) in ${values.config}; nothing checked.\n`);
      return 2;
    }
    targets = configTargets(loaded.config);
    const picked = values.server ?? [];
    const unknown = picked.filter((p) => !targets.some((t) => t.name === p));
    if (unknown.length > 0)
      throw new UsageError(
        `${values.config} has no server ${unknown.map((u) => JSON.stringify(u)).join(', ')}; it has ${targets.map((t) => t.name).join(', ')}.`,
        'check',
      );
    if (picked.length > 0) targets = targets.filter((t) => picked.includes(t.name));
  } else {
    json = readServerJson(source);
    targets = [];
    for (const declared of await declaredServers(json, terminalInputs(pairs(values.env, '--env', 'check')))) {
      if ('error' in declared) {
        unrunnable.push(uncheckedResult(declared.label, 'stdio', declared.label, declared.error));
        continue;
      }
      const references = new Set([
        ...specReferences(declared.spec),
        ...(declared.start ? specReferences(declared.start) : []),
      ]);
      const missing = [...references].filter((v) => process.env[v] === undefined);
      const transport = declared.transport === 'streamable-http' ? 'http' : declared.transport;
      if (missing.length > 0) {
        unrunnable.push(
          uncheckedResult(
            declared.label,
            transport,
            declared.label,
            `set ${missing.join(', ')} in the environment: the server.json declares ${missing.length === 1 ? 'it' : 'them'} secret`,
          ),
        );
        continue;
      }
      targets.push({
        name: declared.label,
        transport,
        target: checkTarget(declared.spec),
        ...(declared.start ? { start: filled(declared.start) } : {}),
      });
    }
  }
  const history = values.history;
  const previous = history ? latestResults(readRuns(history)) : undefined;
  const results = [
    ...(await checkFleet(targets, {
      concurrency,
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(values.revision ? { revisions: values.revision as Revision[] } : {}),
      ...(previous ? { previous } : {}),
      ...(values.quiet
        ? {}
        : { onProgress: (line: string) => io.err(`switchboard check: ${escapeControls(line)}\n`) }),
    })),
    ...unrunnable,
  ];
  io.out(escapeControls(formatFleetTable(results)));
  const disagreements = json ? disagreementsWith(json, results) : [];
  if (json) {
    io.out(
      disagreements.length === 0
        ? `\nThe running server${results.length === 1 ? '' : 's'} agree${results.length === 1 ? 's' : ''} with ${source} (name, version, transport).\n`
        : `\nWhere the running server disagrees with ${source}:\n${disagreements.map((d) => `  ${d}\n`).join('')}`,
    );
  }
  const at = new Date().toISOString();
  try {
    if (values.json) writeFileSync(values.json, `${JSON.stringify(results.map(forJson), null, 2)}\n`);
    if (values.junit) writeFileSync(values.junit, formatFleetJunit(results));
    if (values.html) writeFileSync(values.html, formatFleetHtml(results, source, at));
    if (history) appendRun(history, fleetRun(source, results, at));
  } catch (error) {
    io.err(`switchboard: could not write the report: ${errorMessage(error)}\n`);
    return 2;
  }
  if (results.some((r) => r.error !== undefined)) return 2;
  return results.some((r) => r.mustFailures > 0) || disagreements.length > 0 ? 1 : 0;
}

function forJson(result: FleetResult) {
  const { report, surface: _surface, ...rest } = result;
  return { ...rest, ...(report ? { checks: report.checks } : {}) };
}

/** A server.json spec with its `${NAME}` references read from our environment. */
function filled<S extends ServerSpec>(spec: S): S {
  const fill = (v: string) => substitute(v, (name) => process.env[name] ?? '');
  const each = (m: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fill(v)]));
  return spec.kind === 'stdio'
    ? { ...spec, args: spec.args.map(fill), env: each(spec.env) }
    : { ...spec, url: fill(spec.url), headers: each(spec.headers) };
}

/** A server.json spec as the checker runs it. */
function checkTarget(spec: ServerSpec): CheckTarget {
  const full = filled(spec);
  return full.kind === 'stdio'
    ? { kind: 'stdio', command: full.command, args: full.args, env: full.env }
    : { kind: 'http', url: full.url, headers: full.headers };
}

/** Name, version and transport: what the file declares against what each running server says. */
export function disagreementsWith(json: ServerJson, results: readonly FleetResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (r.error || !r.server) continue;
    const short = json.name.split('/').at(-1);
    if (r.server.name !== json.name && r.server.name !== short)
      out.push(
        `${r.name}: the file names the server "${json.name}", the server calls itself "${r.server.name}"`,
      );
    if (json.version !== undefined && r.server.version !== json.version)
      out.push(`${r.name}: the file says version ${json.version}, the server says ${r.server.version}`);
    if (r.served !== undefined && r.served !== r.transport) {
      const name = { stdio: 'stdio', http: 'Streamable HTTP', sse: 'HTTP+SSE' };
      out.push(`${r.name}: the file declares ${name[r.transport]}, the server serves ${name[r.served]}`);
    }
  }
  return out;
}

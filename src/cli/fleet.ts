/**
 * `switchboard add`, `remove` and `list`: a server put into (or taken out of) every MCP client's
 * own config file, and what each client has, checked. The work is in src/fleet/; this file reads
 * the command line and prints.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import {
  CLIENT_IDS,
  CLIENTS,
  type ClientInfo,
  isClientId,
  type Place,
  type Platform,
  type Scope,
} from '../fleet/clients.js';
import { unifiedDiff } from '../fleet/diff.js';
import { type RenderOptions, readEntry } from '../fleet/entries.js';
import { FleetError } from '../fleet/errors.js';
import { type RunningPackage, startHttpPackage } from '../fleet/http-package.js';
import {
  applyChange,
  checkServerName,
  installedClients,
  type ListedFile,
  listServers,
  localSpec,
  type PlannedChange,
  planAdd,
  planRemove,
} from '../fleet/install.js';
import { printEntries } from '../fleet/print.js';
import { type ServerSpec, type StdioSpec, substitute } from '../fleet/spec.js';
import { verifyLaunch } from '../fleet/verify.js';
import type { CliIo } from './io.js';
import { escapeControls } from './terminal-text.js';
import { parseCommandLine, UsageError } from './usage-error.js';

const CLIENT_LIST = CLIENT_IDS.join(', ');

export const ADD_HELP = `Usage:
  switchboard add NAME --client LIST [options] -- COMMAND [ARGS...]
  switchboard add NAME URL --client LIST [--header K=V ...] [options]
  switchboard add NAME --server-json FILE --client LIST [options]

Puts an MCP server into each client's own config file, edited in place: comments,
formatting and the other entries are kept, the old file is kept as FILE.bak,
the write is atomic, and a file that does not parse is never touched.

A command (npx, node, uvx, docker, ...) is written as its absolute path with a
PATH in env, so desktop apps that start without your shell's PATH still find it
(no "spawn npx ENOENT"). A value written \${NAME} is the environment variable
NAME: each client's file gets its own reference to it (\${env:NAME}, VS Code
inputs, Codex env_vars / bearer_token_env_var / env_http_headers), never the
value, unless --inline-secrets. A URL server for a client whose file takes only
commands (Claude Desktop) is written as "switchboard gateway --stdio URL".

After writing, each entry is started as its client would start it (same
command, environment and folder) and asked server/discover or initialize.

Clients: ${CLIENT_LIST}; all: every one found on this machine.

Options:
  --client <list>       Clients to write into (comma-separated, repeatable; all)
  --scope user|project  The user's file (default) or the project's (this folder)
  --env K=V             Set a variable for the server (repeatable; V may be \${NAME})
  --header K=V          An HTTP header for a URL server (repeatable)
  --transport http|sse  The URL's transport (default http: Streamable HTTP)
  --server-json <file>  Take the server from a server.json (the MCP Registry's format)
  --dry-run             Print each change as a diff; write nothing
  --no-verify           Do not start the server after writing
  --print               Print each client's entry for a README (JSON or TOML, Cursor's
                        install link, VS Code's code --add-mcp argument); write nothing
  --inline-secrets      Write secrets' values where a client cannot refer to them
  --timeout <ms>        Time allowed to verify each entry (default 30000)
  -h, --help            Show this help

Exit status: 0 when every client was written (and verified), 1 when one was
not, 2 when the command line is wrong.

Examples:
  switchboard add everything --client cursor,vscode -- npx -y @modelcontextprotocol/server-everything
  switchboard add docs https://example.com/mcp --client all --header 'Authorization=Bearer \${DOCS_TOKEN}'
  switchboard add notes --client claude-code --scope project --dry-run -- node server.js
`;

export const REMOVE_HELP = `Usage:
  switchboard remove NAME --client LIST [--scope user|project] [--dry-run]

Removes the server NAME from each client's file, and nothing else: comments,
formatting and other entries are kept, the old file is kept as FILE.bak.

Clients: ${CLIENT_LIST}; all: every one found on this machine.
`;

export const LIST_HELP = `Usage:
  switchboard list [--client LIST] [--scope user|project] [--json]

Shows which server is in which client's file (both scopes unless --scope), and
flags entries that would not start: a command not on the PATH that client
starts servers with, a file that is not there, a variable that is not set.

Exit status: 0 when every entry would start, 1 when one would not (or a file
does not parse), 2 when the command line is wrong.
`;

const OPTIONS = {
  client: { type: 'string', multiple: true },
  scope: { type: 'string' },
  env: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  transport: { type: 'string' },
  'server-json': { type: 'string' },
  'dry-run': { type: 'boolean' },
  'no-verify': { type: 'boolean' },
  print: { type: 'boolean' },
  'inline-secrets': { type: 'boolean' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];
const parse = (argv: readonly string[], command: string) => parseCommandLine(argv, OPTIONS, command);

export async function runFleetCli(
  command: 'add' | 'remove' | 'list',
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const out = (text: string) => io.out(escapeControls(text));
  try {
    const parsed = parse(argv, command);
    if (parsed.values.help) {
      io.out(command === 'add' ? ADD_HELP : command === 'remove' ? REMOVE_HELP : LIST_HELP);
      return 0;
    }
    const place = userPlace();
    if (command === 'list') return listCommand(parsed.values, parsed.positionals, place, out);
    if (command === 'remove') return removeCommand(parsed.values, parsed.positionals, place, out);
    return await addCommand(parsed, place, out, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`switchboard: ${error.message}\nRun "switchboard ${command} --help" for usage.\n`);
      return 2;
    }
    if (error instanceof FleetError) {
      io.err(`switchboard: ${escapeControls(error.message)}\n`);
      return 1;
    }
    throw error;
  }
}

export function userPlace(): Place {
  const platform: Platform =
    process.platform === 'win32' || process.platform === 'darwin' ? process.platform : 'linux';
  const home = homedir();
  // An empty HOME would make every client's file relative to the current folder.
  if (!isAbsolute(home))
    throw new FleetError("HOME is not set (or not an absolute path): the clients' files cannot be found.");
  return { platform, home, env: process.env, projectDir: process.cwd() };
}

function clientsOf(values: Values, place: Place, command: string, required: boolean): ClientInfo[] {
  const names = (values.client ?? [])
    .flatMap((c) => c.split(','))
    .map((c) => c.trim())
    .filter(Boolean);
  if (names.length === 0) {
    if (required)
      throw new UsageError(`--client is required: name one or more of ${CLIENT_LIST}, or all.`, command);
    return CLIENT_IDS.map((id) => CLIENTS[id]);
  }
  if (names.includes('all')) {
    const found = installedClients(place);
    if (found.length === 0)
      throw new FleetError(`No MCP client was found on this machine (looked for ${CLIENT_LIST}).`);
    return found;
  }
  const unknown = names.filter((n) => !isClientId(n));
  if (unknown.length > 0)
    throw new UsageError(
      `Unknown client ${unknown.map((u) => JSON.stringify(u)).join(', ')}: use ${CLIENT_LIST} or all.`,
      command,
    );
  return [...new Set(names)].map((n) => CLIENTS[n as ClientInfo['id']]);
}

function scopeOf(values: Values, command: string): Scope | undefined {
  if (values.scope === undefined) return undefined;
  if (values.scope !== 'user' && values.scope !== 'project')
    throw new UsageError(`--scope takes user or project, not ${JSON.stringify(values.scope)}.`, command);
  return values.scope;
}

/** `K=V` pairs (for headers, `K: V` is taken too). */
export function pairs(
  list: readonly string[] | undefined,
  flag: string,
  command: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of list ?? []) {
    const match = /^([^=:\s][^=:]*?)\s*[=:]\s?(.*)$/s.exec(pair);
    if (!match || (flag === '--env' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(match[1]!)))
      throw new UsageError(`${flag} takes K=V, got ${JSON.stringify(pair)}.`, command);
    out[match[1]!] = match[2]!;
  }
  return out;
}

function timeoutOf(values: Values, command: string): number {
  if (values.timeout === undefined) return 30_000;
  const ms = Number(values.timeout);
  if (!/^\d+$/.test(values.timeout) || ms <= 0)
    throw new UsageError(
      `--timeout takes a positive whole number of milliseconds, got ${JSON.stringify(values.timeout)}.`,
      command,
    );
  return ms;
}

/** The words after `--`, and the positionals before it. */
function split(parsed: ReturnType<typeof parse>): { before: string[]; after: string[] | undefined } {
  const terminator = parsed.tokens.find((t) => t.kind === 'option-terminator');
  if (!terminator) return { before: parsed.positionals, after: undefined };
  const after = parsed.tokens
    .filter((t) => t.kind === 'positional' && t.index > terminator.index)
    .map((t) => (t as { value: string }).value);
  return { before: parsed.positionals.slice(0, parsed.positionals.length - after.length), after };
}

/** `switchboard gateway --stdio` as the command this CLI runs as: node and this script, absolute. */
function bridgeCommand(): RenderOptions['bridge'] {
  const script = process.argv[1];
  return { command: realpathSync(process.execPath), args: script ? [realpathSync(script)] : [] };
}

async function specOf(
  parsed: ReturnType<typeof parse>,
  io: CliIo,
): Promise<{ name: string; spec: ServerSpec; start?: StdioSpec; notes: string[] }> {
  const { values } = parsed;
  const { before, after } = split(parsed);
  const [name, url, ...extra] = before;
  if (name === undefined)
    throw new UsageError('Missing NAME, the name the server gets in each client.', 'add');
  const env = pairs(values.env, '--env', 'add');
  const headers = pairs(values.header, '--header', 'add');
  if (values['server-json'] !== undefined) {
    if (url !== undefined || after !== undefined)
      throw new UsageError('--server-json takes the server from the file: give no URL or command.', 'add');
    const { specFromServerJson } = await import('./server-json-input.js');
    return { name, ...(await specFromServerJson(values['server-json'], env, headers, io)) };
  }
  if (extra.length > 0)
    throw new UsageError(
      `Unexpected ${extra.map((e) => JSON.stringify(e)).join(' ')}: put the server's command after --.`,
      'add',
    );
  if (url !== undefined && after !== undefined)
    throw new UsageError('Give either a URL or a command after --, not both.', 'add');
  if (url !== undefined) {
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url))
      throw new UsageError(`${JSON.stringify(url)} is not an http(s) URL; a command goes after --.`, 'add');
    if (Object.keys(env).length > 0)
      throw new UsageError('--env is for a command; a URL server takes --header.', 'add');
    const transport = values.transport ?? 'http';
    if (transport !== 'http' && transport !== 'sse')
      throw new UsageError(`--transport takes http or sse, not ${JSON.stringify(transport)}.`, 'add');
    return { name, spec: { kind: 'url', url, transport, headers }, notes: [] };
  }
  if (after === undefined || after.length === 0)
    throw new UsageError('Give the server: a URL, or its command after -- (-- npx -y some-server).', 'add');
  if (Object.keys(headers).length > 0) throw new UsageError('--header is for a URL server.', 'add');
  return { name, spec: { kind: 'stdio', command: after[0]!, args: after.slice(1), env }, notes: [] };
}

async function addCommand(
  parsed: ReturnType<typeof parse>,
  place: Place,
  out: (t: string) => void,
  io: CliIo,
): Promise<number> {
  const { values } = parsed;
  const { name, spec, start, notes } = await specOf(parsed, io);
  checkServerName(name);
  for (const note of notes) out(`${note}\n`);
  const inlineSecrets = values['inline-secrets'] ?? false;
  if (values.print) {
    const clients = clientsOf(values, place, 'add', false);
    out(
      printEntries(clients, name, spec, {
        inlineSecrets,
        env: place.env,
        bridge: { command: 'npx', args: ['-y', 'switchboard'] },
      }),
    );
    return 0;
  }
  const clients = clientsOf(values, place, 'add', true);
  const scope = scopeOf(values, 'add') ?? 'user';
  const timeoutMs = timeoutOf(values, 'add');
  const local = localSpec(spec, place.env);
  const planned = planAdd(clients, name, local, scope, place, {
    inlineSecrets,
    env: place.env,
    bridge: bridgeCommand(),
  });
  const dryRun = values['dry-run'] ?? false;
  let failed = 0;
  const written: PlannedChange[] = [];
  for (const plan of planned) {
    if ('error' in plan) {
      out(`${plan.client.id}: not written: ${plan.error}\n`);
      failed++;
      continue;
    }
    if (dryRun) {
      out(`${plan.client.id}: would add "${name}" to ${plan.file}\n`);
      for (const note of plan.notes) out(`  ${note}\n`);
      out(unifiedDiff(plan.file, plan.before, plan.after));
      continue;
    }
    const result = applyChange(plan);
    out(
      `${plan.client.id}: added "${name}" to ${result.file}${result.backup ? ` (the old file is ${result.backup})` : ''}\n`,
    );
    for (const note of plan.notes) out(`  ${note}\n`);
    written.push(plan);
  }
  if (dryRun) {
    out('Dry run: nothing was written.\n');
    return failed > 0 ? 1 : 0;
  }
  if (values['no-verify'] || written.length === 0) return failed > 0 ? 1 : 0;
  // A server.json package that serves HTTP: run it (as its user will) while the entries are verified.
  let running: RunningPackage | undefined;
  if (start && local.kind === 'url') {
    const fill = (v: string) => substitute(v, (variable) => place.env[variable] ?? '');
    const env = Object.fromEntries(Object.entries(start.env).map(([k, v]) => [k, fill(v)]));
    try {
      running = await startHttpPackage(
        { command: start.command, args: start.args.map(fill), env },
        fill(local.url),
        timeoutMs,
      );
    } catch (error) {
      if (!(error instanceof FleetError)) throw error;
      out(`NOT verified: ${error.message}\n`);
      return 1;
    }
  }
  const verifying = Promise.all(
    written.map((plan) => {
      const launch = readEntry(plan.client, plan.entry);
      if (typeof launch === 'string') return Promise.resolve({ ok: false as const, reason: launch });
      return verifyLaunch(plan.client, launch, {
        env: place.env,
        home: place.home,
        projectDir: place.projectDir,
        cwd: scope === 'project' ? place.projectDir : place.home,
        timeoutMs,
      });
    }),
  );
  const results = await verifying.finally(() => running?.close());
  results.forEach((result, i) => {
    const client = written[i]!.client;
    if (result.ok)
      out(
        `${client.id}: verified: ${result.server} answered (protocol ${result.revision}, ${result.tools} tool${result.tools === 1 ? '' : 's'})\n`,
      );
    else {
      failed++;
      out(`${client.id}: NOT verified: ${result.reason}\n`);
    }
  });
  return failed > 0 ? 1 : 0;
}

function removeCommand(
  values: Values,
  positionals: string[],
  place: Place,
  out: (t: string) => void,
): number {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError('Missing NAME, the server to remove.', 'remove');
  if (extra.length > 0)
    throw new UsageError(`Unexpected ${extra.map((e) => JSON.stringify(e)).join(' ')}.`, 'remove');
  const clients = clientsOf(values, place, 'remove', true);
  const planned = planRemove(clients, name, scopeOf(values, 'remove') ?? 'user', place);
  let removed = 0;
  for (const plan of planned) {
    if ('error' in plan) {
      out(`${plan.client.id}: ${plan.error}\n`);
      continue;
    }
    removed++;
    if (values['dry-run']) {
      out(
        `${plan.client.id}: would remove "${name}" from ${plan.file}\n${unifiedDiff(plan.file, plan.before, plan.after)}`,
      );
      continue;
    }
    const result = applyChange(plan);
    out(`${plan.client.id}: removed "${name}" from ${result.file} (the old file is ${result.backup})\n`);
  }
  if (values['dry-run']) out('Dry run: nothing was written.\n');
  return removed > 0 && removed === planned.length ? 0 : 1;
}

function listCommand(values: Values, positionals: string[], place: Place, out: (t: string) => void): number {
  if (positionals.length > 0)
    throw new UsageError(`Unexpected ${positionals.map((e) => JSON.stringify(e)).join(' ')}.`, 'list');
  const clients = clientsOf(values, place, 'list', false);
  const scope = scopeOf(values, 'list');
  const files = listServers(clients, scope ? [scope] : ['user', 'project'], place);
  const bad = files.some((f) => f.error !== undefined || f.entries.some((e) => e.problems.length > 0));
  out(values.json ? `${JSON.stringify(listJson(files), null, 2)}\n` : renderList(files));
  return bad ? 1 : 0;
}

function describeLaunch(launch: ListedFile['entries'][number]['launch']): string {
  if (typeof launch === 'string') return '(not usable)';
  if (launch.kind === 'url') return `${launch.url}${launch.transport === 'sse' ? ' (HTTP+SSE)' : ''}`;
  return [launch.command, ...launch.args].join(' ');
}

function renderList(files: readonly ListedFile[]): string {
  if (files.length === 0) return 'No client config file with MCP servers was found.\n';
  const lines: string[] = [];
  for (const file of files) {
    lines.push(`${file.client.id} (${file.scope}) ${file.file}`);
    if (file.error) lines.push(`  cannot be read: ${file.error}`);
    else if (file.entries.length === 0) lines.push('  no servers');
    for (const entry of file.entries) {
      lines.push(`  ${entry.problems.length > 0 ? '✗' : '✓'} ${entry.name}  ${describeLaunch(entry.launch)}`);
      for (const problem of entry.problems) lines.push(`      would not start: ${problem}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function listJson(files: readonly ListedFile[]) {
  return files.map((f) => ({
    client: f.client.id,
    scope: f.scope,
    file: f.file,
    ...(f.error ? { error: f.error } : {}),
    servers: f.entries.map((e) => ({
      name: e.name,
      // Only the variables' names: a value may be a secret written into the file.
      ...(typeof e.launch === 'string'
        ? {}
        : {
            launch:
              e.launch.kind === 'stdio'
                ? { ...e.launch, env: Object.keys(e.launch.env) }
                : { ...e.launch, headers: Object.keys(e.launch.headers) },
          }),
      starts: e.problems.length === 0,
      problems: e.problems,
    })),
  }));
}

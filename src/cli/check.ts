/**
 * `switchboard check <target>`: scores an MCP server against the specification (src/check/).
 * Its own options, parsed here; the reports go to files named by --json, --junit and --html, the
 * readable report to stdout, progress to stderr.
 *
 * Exit status: 0 when no MUST failed (expected failures aside), 1 when one did, 2 when the target
 * could not be checked (did not start, speaks no MCP) or the command line is wrong.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { type ClientCheckTarget, checkClient } from '../check/client/run.js';
import { formatHtml } from '../check/report/html.js';
import { formatJunit } from '../check/report/junit.js';
import { formatText } from '../check/report/text.js';
import {
  type CheckReport,
  type CheckTarget,
  CheckTargetError,
  checkServer,
  unknownSelectors,
} from '../check/run.js';
import {
  compareSurfaces,
  formatChanges,
  parseSnapshot,
  type Snapshot,
  toSnapshot,
} from '../check/snapshot.js';
import { isRevision, REVISIONS, type Revision } from '../protocol/revisions.js';
import { errorMessage } from '../util/guards.js';
import { headerOptions } from './header-option.js';
import type { CliIo } from './io.js';
import { targetFromWords } from './target.js';
import { escapeControls } from './terminal-text.js';
import { parseCommandLine, UsageError } from './usage-error.js';

export const CHECK_HELP = `Usage:
  switchboard check [options] <target>
  switchboard check [options] -- <server command ...>
  switchboard check [options] --client "<client command>"
  switchboard check --config FILE | --server-json FILE [options]   (docs/fleet.md)

Scores an MCP server for protocol compliance: every revision it speaks
(2026-07-28 and the legacy 2024-11-05 .. 2025-11-25), over stdio or HTTP. It
discovers what the server offers and exercises it: tools called with arguments
made up from their inputSchema (valid and invalid), results held to their
outputSchema, lists walked page by page, forged cursors, resources and
templates read, prompts got with and without their arguments, completion,
ping, unknown methods, malformed frames, and the HTTP status codes and headers
of the transport. Every message the server sends is checked against the
official JSON Schema of the revision in use.

By default only tools annotated readOnlyHint: true are called.

With --client it scores a client instead: scripted servers (2026-07-28 only,
legacy only, an older version, a session that expires) listen on loopback
HTTP, and the client's command runs once against each, with the server's URL
as its last argument. Make it connect, list the tools and call each one.

Options:
  --client <command>         Check this client instead of a server (see above)
  --revision <rev>           Check only this revision (repeatable)
  --call-tools               Call every tool, not only read-only ones (tools may change data)
  --json <file>              Write the whole result as JSON
  --junit <file>             Write a JUnit XML report (for CI)
  --html <file>              Write a self-contained HTML report
  --only <id|area>           Report only these checks (repeatable, or comma-separated)
  --skip <id|area>           Leave these checks out (repeatable, or comma-separated)
  --expected-failures <file> Failures listed in this file (one id, or revision:id, per line;
                             # comments) do not fail the run
  --snapshot <file>          Record the server's surface (tools, resources, templates,
                             prompts with schemas and annotations; sample results of
                             read-only tools) in this file
  --against <file>           Report what changed since that snapshot; any change to a
                             tool, resource, template or prompt exits 1
  --timeout <ms>             Time allowed for each answer (default 10000); with
                             --client, for each run of the client (default 30000)
  --header <h>               Extra HTTP header "Name: value" (HTTP targets; repeatable)
  --verbose                  The report by revision: every revision's evidence, and
                             every check not tested, with the reason
  --quiet                    No progress on stderr
  -h, --help                 Show this help

Exit status: 0 when no MUST requirement failed, 1 when one did (or, with
--against, the surface changed), 2 when the target could not be checked (it did not start, or speaks no MCP) or the command
line is wrong.

Examples:
  switchboard check "node server.js"
  switchboard check http://127.0.0.1:7420/mcp --junit check.xml
  switchboard check --revision 2025-06-18 --json report.json -- npx -y some-server
  switchboard check "node server.js" --snapshot server.snapshot.json
  switchboard check "node server.js" --against server.snapshot.json
  switchboard check --client "node my-agent.js --mcp-url"
`;

const OPTIONS = {
  revision: { type: 'string', multiple: true },
  'call-tools': { type: 'boolean' },
  json: { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  'expected-failures': { type: 'string' },
  client: { type: 'string' },
  snapshot: { type: 'string' },
  against: { type: 'string' },
  timeout: { type: 'string' },
  header: { type: 'string', multiple: true },
  quiet: { type: 'boolean' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runCheckCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Many servers at once (docs/fleet.md): options of their own.
  if (argv.some((a) => /^--(config|server-json)(=|$)/.test(a))) {
    const { runFleetCheck } = await import('./fleet-check.js');
    return runFleetCheck(argv, io);
  }
  let parsed: ReturnType<typeof parseCheckArgs>;
  try {
    parsed = parseCheckArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`switchboard: ${error.message}\nRun "switchboard check --help" for usage.\n`);
    return 2;
  }
  if (parsed === 'help') {
    io.out(CHECK_HELP);
    return 0;
  }
  const { target, client, values, revisions, only, skip, expected, timeoutMs, pinned } = parsed;
  const wantsSurface = pinned !== undefined || values.snapshot !== undefined;
  const onProgress = values.quiet
    ? undefined
    : (line: string) => io.err(`switchboard check: ${escapeControls(line)}\n`);
  let report: CheckReport;
  try {
    report = client
      ? await checkClient(client, { timeoutMs, only, skip, onProgress })
      : await checkServer(target, {
          ...(revisions ? { revisions } : {}),
          callTools: values['call-tools'] ?? false,
          timeoutMs,
          only,
          skip,
          // Compare like with like: the revision the snapshot was taken in.
          ...(wantsSurface ? { surface: pinned?.revision ?? true } : {}),
          onProgress,
        });
  } catch (error) {
    io.err(`switchboard: ${escapeControls(errorMessage(error))}\n`);
    if (!(error instanceof CheckTargetError)) io.err('switchboard: the target could not be checked.\n');
    return 2;
  }
  io.out(
    escapeControls(
      formatText(report, {
        expected,
        verbose: values.verbose ?? false,
        ...(process.stdout.isTTY ? { width: process.stdout.columns } : {}),
      }),
    ),
  );
  if (wantsSurface && !report.surface) {
    io.err(
      `switchboard: the server does not speak ${pinned?.revision ?? 'any revision checked'}, so its surface could not be ${pinned ? 'compared' : 'recorded'}.\n`,
    );
    return 2;
  }
  const changes = pinned && report.surface ? compareSurfaces(pinned, report.surface) : undefined;
  if (changes) io.out(escapeControls(formatChanges(changes, values.against!)));
  try {
    const json = changes ? { ...report, changes } : report;
    if (values.json) writeFileSync(values.json, `${JSON.stringify(json, null, 2)}\n`);
    if (values.snapshot && report.surface)
      writeFileSync(
        values.snapshot,
        `${JSON.stringify(toSnapshot(report.surface, { target: report.target, server: report.server }), null, 2)}\n`,
      );
    if (values.junit) writeFileSync(values.junit, formatJunit(report));
    if (values.html) writeFileSync(values.html, formatHtml(report));
  } catch (error) {
    io.err(`switchboard: could not write the report: ${errorMessage(error)}\n`);
    return 2;
  }
  const isExpected = (id: string, revision: Revision) =>
    expected.has(id) || expected.has(`${revision}:${id}`);
  const unexpected = report.checks.filter((c) => c.status === 'failed' && !isExpected(c.id, c.revision));
  const nowPassing = report.checks.filter((c) => c.status === 'passed' && isExpected(c.id, c.revision));
  for (const c of nowPassing) {
    io.err(`switchboard check: ${c.revision} ${c.id} passes now; remove it from the expected failures.\n`);
  }
  // A sample answer that differs is reported, never fatal: read-only tools may answer with the time.
  const drifted = (changes ?? []).filter((c) => c.kind !== 'sample');
  if (drifted.length > 0) {
    io.err(
      `switchboard check: the server's surface changed since ${values.against}: ${drifted.length} change(s).\n`,
    );
  }
  return unexpected.length > 0 || drifted.length > 0 ? 1 : 0;
}

/** node's own message, without its advice about positional arguments. */
const parse = (argv: readonly string[]) =>
  parseCommandLine(argv, OPTIONS, 'check', (error) =>
    errorMessage(error).replace(/\. To specify a positional argument.*$/s, '.'),
  );

function parseCheckArgs(argv: readonly string[]) {
  const result = parse(argv);
  const { values, positionals, tokens } = result;
  if (values.help) return 'help' as const;
  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const words = terminator
    ? tokens
        .filter((t) => t.kind === 'positional' && t.index > terminator.index)
        .map((t) => (t as { value: string }).value)
    : positionals;
  if (terminator && positionals.length > words.length) {
    throw new UsageError(
      'Give the target either before -- (one quoted command line or a URL) or after it, not both.',
      'check',
    );
  }
  if (!terminator && positionals.length > 1) {
    throw new UsageError(
      `Unexpected arguments ${positionals
        .slice(1)
        .map((p) => JSON.stringify(p))
        .join(' ')}: quote the whole server command ("node server.js --flag") or put it after --.`,
      'check',
    );
  }
  const client = values.client === undefined ? undefined : clientTarget(values, words);
  let target: CheckTarget = { kind: 'stdio', command: '' };
  if (!client) {
    const parsedTarget = targetFromWords(words, terminator !== undefined, 'check');
    target =
      parsedTarget.kind === 'http'
        ? { ...parsedTarget, headers: headerOptions(values.header ?? [], 'check') }
        : parsedTarget;
  }
  let revisions: Revision[] | undefined;
  if (values.revision) {
    for (const r of values.revision) {
      if (!isRevision(r))
        throw new UsageError(
          `Unknown revision ${JSON.stringify(r)}; use one of ${REVISIONS.join(', ')}.`,
          'check',
        );
    }
    revisions = values.revision as Revision[];
  }
  const list = (names: readonly string[] | undefined) =>
    (names ?? [])
      .flatMap((n) => n.split(','))
      .map((n) => n.trim())
      .filter(Boolean);
  const only = list(values.only);
  const skip = list(values.skip);
  const unknown = unknownSelectors([...only, ...skip]);
  if (unknown.length > 0) {
    throw new UsageError(
      `--only/--skip name no requirement or area: ${unknown.join(', ')}. See docs/check.md for the ids.`,
      'check',
    );
  }
  let timeoutMs = client ? 30_000 : 10_000;
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout);
    if (!/^\d+$/.test(values.timeout) || timeoutMs <= 0) {
      throw new UsageError(
        `--timeout takes a positive whole number of milliseconds, got ${JSON.stringify(values.timeout)}.`,
        'check',
      );
    }
  }
  return {
    target,
    client,
    values,
    revisions,
    only,
    skip,
    expected: expectedFailures(values['expected-failures']),
    timeoutMs,
    pinned: values.against === undefined ? undefined : readSnapshot(values.against),
  };
}

/** Options that concern a server only, refused with --client rather than silently ignored. */
const SERVER_ONLY = ['revision', 'call-tools', 'snapshot', 'against', 'header'] as const;

function clientTarget(
  values: ReturnType<typeof parse>['values'],
  words: readonly string[],
): ClientCheckTarget {
  const used = SERVER_ONLY.filter((name) => values[name] !== undefined);
  if (used.length > 0) {
    throw new UsageError(
      `${used.map((n) => `--${n}`).join(', ')}: for a server check only, not with --client.`,
      'check',
    );
  }
  if (words.length > 0) {
    throw new UsageError(
      `--client takes the client's whole command line as one quoted argument; unexpected ${words.map((w) => JSON.stringify(w)).join(' ')}.`,
      'check',
    );
  }
  const parsed = targetFromWords([values.client ?? ''], false, 'check');
  if (parsed.kind === 'http') {
    throw new UsageError(
      '--client takes the command that runs the client (it gets the server URL as its last argument), not a URL.',
      'check',
    );
  }
  return { command: parsed.command, args: parsed.args ?? [] };
}

function readSnapshot(file: string): Snapshot {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--against: cannot read ${file}: ${errorMessage(error)}`, 'check');
  }
  try {
    return parseSnapshot(text, file);
  } catch (error) {
    throw new UsageError(`--against: ${errorMessage(error)}`, 'check');
  }
}

/** The ids (or revision:id) listed in an expected-failures file. */
function expectedFailures(file: string | undefined): Set<string> {
  if (file === undefined) return new Set();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--expected-failures: cannot read ${file}: ${errorMessage(error)}`, 'check');
  }
  const ids = text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean);
  const unknown = unknownSelectors(ids.map((id) => id.replace(/^\d{4}-\d{2}-\d{2}:/, '')));
  if (unknown.length > 0) {
    throw new UsageError(
      `--expected-failures: ${file} names no requirement: ${unknown.join(', ')}.`,
      'check',
    );
  }
  return new Set(ids);
}

/**
 * `switchboard test`: runs `*.mcptest.yaml|json` files against MCP servers (src/mcptest/), and
 * `--generate` / `--import` write such files. Progress and failures go to stdout (stderr with
 * `--json`, whose report takes stdout); `--junit` and `--html` write files.
 *
 * Exit status: 0 when every test passed, 1 when any failed or did not run, 2 on a usage or file error.
 */
import { watch, writeFileSync } from 'node:fs';
import { findTestFiles } from '../mcptest/discover.js';
import { formatProblem } from '../mcptest/parse.js';
import { formatTestHtml } from '../mcptest/report/html.js';
import { formatTestJunit } from '../mcptest/report/junit.js';
import { formatProgress, formatSummary } from '../mcptest/report/text.js';
import { type RunOptions, runTestFiles, succeeded, TestFileError, type TestReport } from '../mcptest/run.js';
import { TestServerError } from '../mcptest/server.js';
import { SnapshotFileError } from '../mcptest/snapshots.js';
import { errorMessage } from '../util/guards.js';
import type { CliIo } from './io.js';
import { escapeControls } from './terminal-text.js';
import { parseCommandLine, UsageError } from './usage-error.js';

export const TEST_HELP = `Usage:
  switchboard test [options] [FILE|DIR ...]
  switchboard test --generate <target> [-o FILE] [--call-tools]
  switchboard test --import mcp-jest.json [-o FILE]

Runs declarative tests for any MCP server: each *.mcptest.yaml (or .json) file
names a server and the requests to send it (call a tool, read a resource, get
a prompt, any request, a list), with what the answers must be (outcome, text,
structuredContent, JSON paths, error codes, time) and snapshots recorded in
__snapshots__/<file>.snap.json. With no FILE or DIR, every test file under the
current folder runs. The file format: docs/test.md.

Options:
  --server <target>   Run the files against this server instead of the one they
                      name (a command line or URL)
  -u, --update        Rewrite snapshots that differ (and drop unused ones)
  --only <name>       Run only tests whose name is or contains this (repeatable)
  --bail              Stop at the first failure (the rest are "not run")
  --watch             Run again whenever a file under the test folders changes
  --json              Print the whole result as JSON (progress goes to stderr)
  --junit <file>      Write a JUnit XML report (one testcase per test and revision)
  --html <file>       Write a self-contained HTML report
  --timeout <ms>      Time allowed for each answer (default 30000; a file's
                      timeoutMs wins)
  --quiet             No progress lines, only failures and the counts
  --generate <target> Write a test suite for this server: one test per tool,
                      resource, template and prompt, answers as snapshots,
                      negative cases, the lists snapshotted. Merges with the
                      file when it exists (hand-written tests and edits stay)
  -o, --output <file> Where --generate and --import write (default:
                      server.mcptest.yaml, mcp-jest.mcptest.yaml)
  --call-tools        With --generate: call every tool, not only those
                      annotated readOnlyHint: true (tools may change data)
  --import <file>     Convert an mcp-jest config into a test file, saying what
                      could not be mapped
  -h, --help          Show this help

Exit status: 0 when every test passed, 1 when any failed or did not run, 2 on a
usage error or a file that cannot be read as a test file.

Examples:
  switchboard test
  switchboard test tests/ --junit test-results.xml
  switchboard test server.mcptest.yaml --server http://127.0.0.1:7420/mcp
  switchboard test --generate "node server.js" -o server.mcptest.yaml
`;

const OPTIONS = {
  server: { type: 'string' },
  update: { type: 'boolean', short: 'u' },
  only: { type: 'string', multiple: true },
  bail: { type: 'boolean' },
  watch: { type: 'boolean' },
  json: { type: 'boolean' },
  junit: { type: 'string' },
  html: { type: 'string' },
  timeout: { type: 'string' },
  quiet: { type: 'boolean' },
  generate: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'call-tools': { type: 'boolean' },
  import: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseCommandLine<typeof OPTIONS>>['values'];

export async function runTestCli(argv: readonly string[], io: CliIo): Promise<number> {
  let values: Values;
  let paths: string[];
  let timeoutMs: number | undefined;
  try {
    ({ values, positionals: paths } = parseCommandLine(argv, OPTIONS, 'test'));
    if (values.help) {
      io.out(TEST_HELP);
      return 0;
    }
    timeoutMs = values.timeout === undefined ? undefined : positiveInteger(values.timeout, '--timeout');
    checkCombination(values, paths);
  } catch (error) {
    return usage(error, io);
  }
  if (values.generate !== undefined || values.import !== undefined) {
    const { runGenerateCli } = await import('./test-generate.js');
    return runGenerateCli(values, timeoutMs, io).catch((error: unknown) => usage(error, io));
  }
  const files = findTestFiles(paths);
  if (files.length === 0) {
    io.err(
      `switchboard: no *.mcptest.yaml or *.mcptest.json file under ${paths.length > 0 ? paths.join(', ') : 'the current folder'}.\nWrite one (docs/test.md) or generate one: switchboard test --generate "node server.js".\n`,
    );
    return 2;
  }
  const progress = values.json ? io.err : io.out;
  const options: RunOptions = {
    ...(values.server !== undefined ? { server: values.server } : {}),
    update: values.update ?? false,
    ...(values.only ? { only: values.only } : {}),
    bail: values.bail ?? false,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(values.quiet ? {} : { onProgress: (event) => progress(escapeControls(formatProgress(event))) }),
  };
  const once = () => runOnce(files, options, values, io);
  if (!values.watch) return once();
  return watchAndRun(paths.length > 0 ? paths : ['.'], once, io);
}

async function runOnce(
  files: readonly string[],
  options: RunOptions,
  values: Values,
  io: CliIo,
): Promise<number> {
  let report: TestReport;
  try {
    report = await runTestFiles(files, options);
  } catch (error) {
    if (error instanceof TestFileError) {
      io.err(`${error.problems.map((p) => escapeControls(formatProblem(p))).join('\n')}\n`);
      return 2;
    }
    if (error instanceof SnapshotFileError || error instanceof TestServerError) {
      io.err(`switchboard: ${escapeControls(error.message)}\n`);
      return 2;
    }
    throw error;
  }
  if (values.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(escapeControls(formatSummary(report)));
  try {
    if (values.junit) writeFileSync(values.junit, formatTestJunit(report));
    if (values.html) writeFileSync(values.html, formatTestHtml(report));
  } catch (error) {
    io.err(`switchboard: could not write the report: ${errorMessage(error)}\n`);
    return 2;
  }
  return succeeded(report.summary) ? 0 : 1;
}

/** Runs, then runs again after each change under `folders` (snapshot files aside) until stopped. */
async function watchAndRun(
  folders: readonly string[],
  once: () => Promise<number>,
  io: CliIo,
): Promise<number> {
  let last = await once();
  let running: Promise<void> | undefined;
  let again = false;
  const rerun = () => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        io.out('\nswitchboard test: a file changed; running again.\n');
        last = await once();
      } while (again);
      running = undefined;
      io.out('switchboard test: watching for changes (Ctrl-C to stop).\n');
    })();
  };
  let timer: NodeJS.Timeout | undefined;
  const watchers = folders.map((folder) =>
    watch(folder, { recursive: true }, (_event, name) => {
      const changed = String(name ?? '');
      if (changed.includes('__snapshots__') || changed.includes('node_modules')) return;
      clearTimeout(timer);
      // Editors write a file in several steps: one run for the lot.
      timer = setTimeout(rerun, 150);
    }),
  );
  io.out('switchboard test: watching for changes (Ctrl-C to stop).\n');
  try {
    await (io.untilStopped ?? (() => new Promise<void>(() => {})))();
  } finally {
    clearTimeout(timer);
    for (const w of watchers) w.close();
    await running;
  }
  return last;
}

function checkCombination(values: Values, paths: readonly string[]): void {
  if (values.generate !== undefined && values.import !== undefined) {
    throw new UsageError('--generate and --import each write a file: give one of them.', 'test');
  }
  const writing = values.generate !== undefined || values.import !== undefined;
  if (writing && paths.length > 0) {
    throw new UsageError(
      `--${values.generate !== undefined ? 'generate' : 'import'} takes no test files (${paths[0]}); name the file to write with -o.`,
      'test',
    );
  }
  if (!writing && values.output !== undefined)
    throw new UsageError('-o/--output goes with --generate or --import.', 'test');
  if (values.generate === undefined && values['call-tools'])
    throw new UsageError('--call-tools goes with --generate.', 'test');
  if (
    writing &&
    (values.watch ||
      values.update ||
      values.bail ||
      values.only ||
      values.server ||
      values.junit ||
      values.html ||
      values.json)
  ) {
    throw new UsageError(
      '--generate and --import only write a test file; run it afterwards with switchboard test <file>.',
      'test',
    );
  }
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0)
    throw new UsageError(
      `${flag} wants a positive number of milliseconds, not ${JSON.stringify(text)}.`,
      'test',
    );
  return value;
}

function usage(error: unknown, io: CliIo): number {
  if (!(error instanceof UsageError)) throw error;
  io.err(`switchboard: ${error.message}\nRun "switchboard test --help" for usage.\n`);
  return 2;
}

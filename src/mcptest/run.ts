/**
 * Runs test files: for each file and each of its revisions one connection (a fresh process on
 * stdio), the tests in order on it, each answer held to its expectations and its snapshot. A test
 * that did not run (skipped, after `bail`, its connection failed, a variable it needs was not saved)
 * is `not-run`, which is never a pass: only a run whose every test passed succeeds.
 */
import { readFileSync } from 'node:fs';
import type { Revision } from '../protocol/revisions.js';
import { loadLinearPatterns } from '../schema/linear-pattern.js';
import { errorMessage } from '../util/guards.js';
import { type Answer, ask, NoAnswer } from './answer.js';
import { canonicalJson, deepEqual, lineDiff } from './compare.js';
import { evaluate, type Failure } from './evaluate.js';
import type { Position, TestCase, TestFile } from './format.js';
import { lookUp } from './json-path.js';
import { formatProblem, parseTestFile, type TestFileProblem } from './parse.js';
import {
  type Connection,
  connect,
  describeServer,
  parseServerLine,
  type ResolvedServer,
  resolveServer,
  TestServerError,
} from './server.js';
import { SnapshotFile, snapshotValue } from './snapshots.js';
import { substitute, variablesIn } from './variables.js';

export type TestStatus = 'passed' | 'failed' | 'not-run';

/** One test at one revision. Field names are a contract (`--json`). */
export interface TestResult {
  readonly file: string;
  readonly name: string;
  /** The revision the connection spoke. */
  readonly revision?: Revision;
  readonly status: TestStatus;
  readonly durationMs: number;
  /** Why it failed (each condition that did not hold) . */
  readonly failures?: readonly Failure[];
  /** Why it did not run. */
  readonly reason?: string;
  /** What happened to its snapshot: compared and equal, recorded for the first time, or rewritten (`update`). */
  readonly snapshot?: 'matched' | 'written' | 'updated';
  readonly at: Position;
}

export interface TestSummary {
  readonly passed: number;
  readonly failed: number;
  readonly notRun: number;
  readonly total: number;
}

export interface FileReport {
  readonly file: string;
  /** The server as tested (command line or URL). */
  readonly server: string;
  readonly results: readonly TestResult[];
  readonly summary: TestSummary;
  /** Problems that concern the whole file: a connection that failed, snapshots no test produced. */
  readonly notes: readonly string[];
}

export interface TestReport {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly files: readonly FileReport[];
  readonly summary: TestSummary;
}

export interface RunOptions {
  /** Test this server instead of the one the file names (a command line or URL). */
  readonly server?: string;
  /** Rewrite snapshots that differ (and drop those no test produced) instead of failing. */
  readonly update?: boolean;
  /** Run only tests whose name is, or contains, one of these. */
  readonly only?: readonly string[];
  /** Stop at the first failure; the tests after it are not run. */
  readonly bail?: boolean;
  /** Longest wait for one answer, in ms, unless the file says (default 30 s). */
  readonly timeoutMs?: number;
  /** Told of each file as it starts and each test as it ends. */
  readonly onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
  | { readonly kind: 'file'; readonly file: string; readonly server: string }
  | { readonly kind: 'test'; readonly result: TestResult };

/** A test file that cannot be run as written: the problems, each with its line and column. */
export class TestFileError extends Error {
  override readonly name = 'TestFileError';
  constructor(readonly problems: readonly TestFileProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Reads and checks a test file; throws `TestFileError` with every problem. */
export async function readTestFile(path: string): Promise<TestFile> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TestFileError([
      {
        file: path,
        line: 1,
        column: 1,
        message: missing
          ? 'The test file does not exist.'
          : `The test file cannot be read: ${errorMessage(error)}.`,
        fix: 'Give the path of a .mcptest.yaml or .mcptest.json file.',
      },
    ]);
  }
  const parsed = await parseTestFile(path, text);
  if (!parsed.ok) throw new TestFileError(parsed.problems);
  return parsed.file;
}

/** Runs the files in order. A file that cannot be read throws `TestFileError` before any test runs. */
export async function runTestFiles(paths: readonly string[], options: RunOptions = {}): Promise<TestReport> {
  const started = Date.now();
  const files: TestFile[] = [];
  const problems: TestFileProblem[] = [];
  for (const path of paths) {
    try {
      files.push(await readTestFile(path));
    } catch (error) {
      if (!(error instanceof TestFileError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new TestFileError(problems);
  checkOnly(files, options.only);
  const reports: FileReport[] = [];
  let stop = false;
  for (const file of files) {
    const report = await runFile(file, { ...options, stopped: () => stop });
    reports.push(report);
    if (options.bail && report.summary.failed > 0) stop = true;
  }
  return {
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    files: reports,
    summary: sum(reports.map((r) => r.summary)),
  };
}

/** Runs one file: what `node:test` or Vitest calls to hold a server to a file. */
export async function runTestFile(path: string, options: RunOptions = {}): Promise<FileReport> {
  const file = await readTestFile(path);
  checkOnly([file], options.only);
  return runFile(file, { ...options, stopped: () => false });
}

function checkOnly(files: readonly TestFile[], only: readonly string[] | undefined): void {
  if (!only || only.length === 0) return;
  const unmatched = only.filter((pattern) => !files.some((f) => f.tests.some((t) => selected(t, [pattern]))));
  if (unmatched.length > 0) {
    throw new TestFileError(
      unmatched.map((pattern) => ({
        file: files[0]?.file ?? '.',
        line: 1,
        column: 1,
        message: `No test is named, or has in its name, ${JSON.stringify(pattern)} (--only).`,
        fix: "Check the spelling against the tests' name: fields.",
      })),
    );
  }
}

const selected = (test: TestCase, only: readonly string[] | undefined) =>
  !only || only.length === 0 || only.some((pattern) => test.name === pattern || test.name.includes(pattern));

interface FileRunOptions extends RunOptions {
  /** Whether an earlier file's failure stopped the run (`bail`). */
  readonly stopped: () => boolean;
}

async function runFile(file: TestFile, options: FileRunOptions): Promise<FileReport> {
  let server: ResolvedServer;
  try {
    if (options.server !== undefined) server = parseServerLine(options.server);
    else if (file.server) server = resolveServer(file.server);
    else {
      throw new TestFileError([
        {
          file: file.file,
          line: 1,
          column: 1,
          message: 'The file names no server.',
          fix: 'Add server: "node server.js" (or run with --server).',
        },
      ]);
    }
  } catch (error) {
    if (error instanceof TestServerError)
      throw new TestFileError([{ file: file.file, line: 1, column: 1, message: error.message }]);
    throw error;
  }
  const shown = describeServer(server);
  options.onProgress?.({ kind: 'file', file: file.file, server: shown });
  const tests = file.tests.filter((t) => selected(t, options.only));
  const snapshots = new SnapshotFile(file.file);
  const patterns = await loadLinearPatterns();
  const timeoutMs = file.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const results: TestResult[] = [];
  const notes: string[] = [];
  let failed = false;
  const report = (result: TestResult) => {
    results.push(result);
    if (result.status === 'failed') failed = true;
    options.onProgress?.({ kind: 'test', result });
  };
  for (const revision of file.revisions ?? [undefined]) {
    const notRun = (test: TestCase, reason: string): TestResult => ({
      file: file.file,
      name: test.name,
      ...(revision ? { revision } : {}),
      status: 'not-run',
      durationMs: 0,
      reason,
      at: test.at,
    });
    if (options.stopped() || (options.bail && failed)) {
      for (const test of tests) report(notRun(test, 'the run stopped at the first failure (--bail)'));
      continue;
    }
    let connection: Connection;
    try {
      connection = await connect(server, { ...(revision ? { revision } : {}), timeoutMs });
      // The Client holds structuredContent to the outputSchema of the tools it listed.
      if (connection.client.serverCapabilities.tools) await connection.client.listTools({ timeoutMs });
    } catch (error) {
      const reason = errorMessage(error);
      notes.push(reason);
      for (const test of tests)
        report(notRun(test, `the server could not be reached: ${reason.split('\n')[0]}`));
      continue;
    }
    const saved = new Map<string, unknown>();
    /** Variables whose test failed or did not run: the tests needing them cannot run. */
    const lost = new Map<string, string>();
    try {
      for (const test of tests) {
        if (options.stopped() || (options.bail && failed)) {
          report(notRun(test, 'the run stopped at the first failure (--bail)'));
          continue;
        }
        if (test.skip !== undefined) {
          for (const name of Object.keys(test.save ?? {})) lost.set(name, test.name);
          report(notRun(test, test.skip));
          continue;
        }
        const missing = variablesIn(test.step).find((name) => !saved.has(name));
        if (missing !== undefined) {
          for (const name of Object.keys(test.save ?? {})) lost.set(name, test.name);
          report(
            notRun(
              test,
              `\${${missing}} was not saved: the test ${JSON.stringify(lost.get(missing) ?? '?')} did not pass`,
            ),
          );
          continue;
        }
        const result = await runTest(test, {
          connection,
          revision,
          file,
          saved,
          snapshots,
          patterns,
          timeoutMs,
          update: options.update ?? false,
        });
        if (result.status !== 'passed')
          for (const name of Object.keys(test.save ?? {})) lost.set(name, test.name);
        report(result);
      }
    } finally {
      await connection.close().catch(() => undefined);
    }
  }
  // Obsolete entries are known only when every test of the file had its turn.
  const complete =
    (!options.only || options.only.length === 0) &&
    results.every(
      (r) => r.status !== 'not-run' || r.reason !== 'the run stopped at the first failure (--bail)',
    );
  if (complete) {
    const obsolete = snapshots.obsolete();
    if (obsolete.length > 0) {
      notes.push(
        options.update
          ? `removed ${obsolete.length} obsolete snapshot(s): ${obsolete.join(', ')}`
          : `${obsolete.length} snapshot(s) no test produced (run with -u to remove): ${obsolete.join(', ')}`,
      );
    }
  }
  snapshots.save(complete && (options.update ?? false));
  return { file: file.file, server: shown, results, summary: summarize(results), notes };
}

interface TestContext {
  readonly connection: Connection;
  readonly revision: Revision | undefined;
  readonly file: TestFile;
  readonly saved: Map<string, unknown>;
  readonly snapshots: SnapshotFile;
  readonly patterns: Awaited<ReturnType<typeof loadLinearPatterns>>;
  readonly timeoutMs: number;
  readonly update: boolean;
}

async function runTest(test: TestCase, ctx: TestContext): Promise<TestResult> {
  const base = {
    file: ctx.file.file,
    name: test.name,
    revision: ctx.revision ?? ctx.connection.client.revision,
    at: test.at,
  };
  const step = substitute(test.step, ctx.saved);
  let answer: Answer;
  try {
    answer = await ask(ctx.connection.client, step, ctx.timeoutMs);
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
    const tail = ctx.connection.stderrTail();
    return {
      ...base,
      status: 'failed',
      durationMs: 0,
      failures: [
        {
          message: `no usable answer: ${error.message}${tail ? `\nthe server's stderr ended with:\n${tail}` : ''}`,
        },
      ],
    };
  }
  const failures = evaluate(test.expect, answer, ctx.patterns);
  let snapshot: TestResult['snapshot'];
  if (test.snapshot) {
    const key = ctx.file.revisions ? `${test.name} [${ctx.revision}]` : test.name;
    const value = snapshotValue(answer.value, test.snapshot);
    const stored = ctx.snapshots.get(key);
    if (!stored.found) {
      ctx.snapshots.set(key, value);
      snapshot = 'written';
    } else if (deepEqual(stored.value, value)) {
      snapshot = 'matched';
    } else if (ctx.update) {
      ctx.snapshots.set(key, value);
      snapshot = 'updated';
    } else {
      const expected = canonicalJson(stored.value);
      const actual = canonicalJson(value);
      failures.push({
        message: 'the answer differs from its snapshot (run with -u to accept it)',
        expected,
        actual,
        diff: lineDiff(expected, actual),
      });
    }
  }
  const durationMs = Math.round(answer.durationMs * 10) / 10;
  if (failures.length > 0)
    return { ...base, status: 'failed', durationMs, failures, ...(snapshot ? { snapshot } : {}) };
  for (const [name, path] of Object.entries(test.save ?? {})) {
    const found = lookUp(answer.value, path);
    if (!found.found) {
      return {
        ...base,
        status: 'failed',
        durationMs,
        failures: [
          {
            message: `save: ${name} has nothing at its path in the answer`,
            actual: canonicalJson(answer.value),
          },
        ],
      };
    }
    ctx.saved.set(name, found.value);
  }
  return { ...base, status: 'passed', durationMs, ...(snapshot ? { snapshot } : {}) };
}

export function summarize(results: readonly TestResult[]): TestSummary {
  const count = (status: TestStatus) => results.filter((r) => r.status === status).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    notRun: count('not-run'),
    total: results.length,
  };
}

function sum(summaries: readonly TestSummary[]): TestSummary {
  return summaries.reduce(
    (a, b) => ({
      passed: a.passed + b.passed,
      failed: a.failed + b.failed,
      notRun: a.notRun + b.notRun,
      total: a.total + b.total,
    }),
    { passed: 0, failed: 0, notRun: 0, total: 0 },
  );
}

/** Whether a run succeeded: something ran, and every test passed (a test not run is not a pass). */
export const succeeded = (summary: TestSummary): boolean =>
  summary.total > 0 && summary.passed === summary.total;

/**
 * Runs the benchmark suite's smoke pass (`npm run bench -- --smoke`) for part of it and checks only
 * that it completes without a failed cell and prints its tables — never a figure: speed is measured
 * by `npm run bench`, not by tests. Forked with an IPC channel, so the harness and everything it
 * started exit if this test process is killed.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUN = fileURLToPath(new URL('../../bench/run.js', import.meta.url));

/** The first cells of a throughput table: most tables start with them. */
export const THROUGHPUT_ROWS: readonly RegExp[] = [
  /^\| metric \| unit \| switchboard \|/m,
  /^\| seq throughput \| calls\/s/m,
];

/** Runs `--smoke --only <only>` and checks that it prints every title and every row matching `rows`. */
export async function runSmoke(
  only: 'stdio' | 'cold' | 'http' | 'gateway',
  titles: readonly string[],
  signal: AbortSignal,
  rows: readonly RegExp[] = THROUGHPUT_ROWS,
): Promise<void> {
  const stdout = await runBench(RUN, ['--smoke', '--only', only], signal, `the ${only} smoke pass`);
  for (const title of titles) assert.ok(stdout.includes(title), `missing the "${title}" table`);
  for (const pattern of rows) assert.match(stdout, pattern);
}

/** Forks a compiled bench script with `args`, asserts that it exits with 0, and returns its stdout. */
export async function runBench(
  script: string,
  args: readonly string[],
  signal: AbortSignal,
  what: string,
): Promise<string> {
  const child = fork(script, [...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], signal });
  child.on('error', () => {}); // an abort kills it; the exit code below says the rest
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  assert.equal(code, 0, `${what} failed:\n${stderr.slice(-4000)}`);
  return stdout;
}

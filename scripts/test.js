#!/usr/bin/env node
// Runs the compiled test suite (build/test/**/*.test.js) with node:test.
// Usage: node scripts/test.js [substring ...]  — only files whose path contains one of the substrings.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canCheck, leftovers } from './leftovers.js';

// SWITCHBOARD_TEST_ROOT: another tree of compiled tests (the runner's own test runs it on a fixture).
const root = process.env.SWITCHBOARD_TEST_ROOT ?? 'build/test';
const filters = process.argv.slice(2);

function collect(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return collect(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const files = collect(root)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`No test files under ${root} match ${JSON.stringify(filters)}. Did the build run?`);
  process.exit(1);
}

// A file that hangs is stopped after three minutes: a limit for hangs, not for speed. On a 2-core
// machine other work keeps busy (issue 15: the suite must hold under load) the CLI files and the docs
// examples, which start dozens of processes, took over 100 s. The benchmark smoke passes (test/bench)
// start more: they run alongside, with a longer limit (the HTTP one took 470 s at load 55), and their
// report follows the suite's.
const isBench = (f) => f.split(/[\\/]/).includes('bench');
const groups = [
  { files: files.filter((f) => !isBench(f)), timeout: 180_000, concurrency: 4 },
  { files: files.filter(isBench), timeout: 15 * 60_000, concurrency: 2 },
].filter((g) => g.files.length > 0);

// Test files import the library from tsc's output (build/src) both directly and as `switchboard`:
// scripts/tsc-modules.js maps the package's exports there too, so a test process never holds two
// copies of a class. Processes the tests spawn resolve `switchboard` to the bundles, as users do.
const sessions = [];
// Out of the terminal's process group, the runs would not hear Ctrl-C: pass it on to each session.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const session of sessions) {
      try {
        process.kill(-session, signal);
      } catch {
        // that run has ended
      }
    }
  });
}
const runs = groups.map((group, i) => {
  const args = [
    '--import',
    fileURLToPath(new URL('tsc-modules.js', import.meta.url)),
    '--test',
    `--test-concurrency=${group.concurrency}`,
    `--test-timeout=${group.timeout}`,
    ...group.files,
  ];
  // Tests are mostly I/O bound (child processes, loopback sockets), so run more files than cores.
  // A session of its own (see scripts/leftovers.js): what is left in it after the run leaked.
  const child = spawn(process.execPath, args, {
    stdio: i === 0 ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  sessions.push(child.pid);
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output })),
  );
});

let status = 0;
for (const run of runs) {
  const { code, output } = await run;
  for (const chunk of output) process.stdout.write(chunk);
  if (code !== 0) status = code;
}

// A test must stop every process it starts, also when it fails or its file is stopped by the limit
// above: a server left running holds ports and memory and can disturb the next run. Report, stop them
// and fail the run.
const left = await leftovers(sessions);
if (left.length > 0) {
  console.error(`\nThe tests left ${left.length} process(es) running (stopped now; the run fails):`);
  for (const { pid, command } of left) {
    console.error(`  pid ${pid}: ${command}`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // it ended meanwhile
    }
  }
  console.error('Stop what a test starts in its after() hook, also when the test fails.');
  status = 1;
} else if (!canCheck) {
  console.error(`(Processes left behind are checked on Linux only, not on ${process.platform}.)`);
}
process.exit(status);

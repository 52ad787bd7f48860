/**
 * `switchboard test --watch`: runs, then runs again when a test file changes, until stopped; the
 * exit code is the last run's. Driven in-process through the CLI's
 * `untilStopped` hook, each step waiting for the line that says the previous one happened.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { runTestCli } from '../../src/cli/test.js';
import { EXAMPLE, scratch, testFile } from './helpers.js';

const file = (expected: string) =>
  `server: ${JSON.stringify(EXAMPLE)}\ntests:\n  - name: echoes\n    call: echo\n    args: { text: hi }\n    expect: { text: { equals: ${expected} } }\n`;

test('--watch runs again after a test file changes and exits with the last run', async () => {
  const dir = scratch();
  const path = testFile(dir, 'w.mcptest.yaml', file('hi'));
  let output = '';
  const waiters: { pattern: RegExp; count: number; resolve: () => void }[] = [];
  const seen = (pattern: RegExp) => output.match(new RegExp(pattern.source, 'gm'))?.length ?? 0;
  const wake = () => {
    for (const w of [...waiters]) {
      if (seen(w.pattern) >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  /** Resolves once `pattern` has been printed `count` times in all. */
  const printed = (pattern: RegExp, count: number) =>
    new Promise<void>((resolve) => {
      waiters.push({ pattern, count, resolve });
      wake();
    });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const io = {
    out: (text: string) => {
      output += text;
      wake();
    },
    err: (text: string) => {
      output += text;
      wake();
    },
    untilStopped: () => stopped,
  };
  const watching = /^switchboard test: watching for changes/;
  const run = runTestCli(['--watch', dir], io);

  await printed(watching, 1);
  assert.match(output, /^1 passed, 0 failed, 0 not run/m);

  writeFileSync(path, file('ho'));
  await printed(watching, 2);
  assert.equal(seen(/^switchboard test: a file changed; running again\./), 1, output);
  assert.match(output, /^0 passed, 1 failed, 0 not run/m);

  stop();
  assert.equal(await run, 1, "the exit code is the last run's");
});

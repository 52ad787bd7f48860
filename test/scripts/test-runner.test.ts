/**
 * scripts/test.js fails a run that leaves a process behind (issue 15: no test may leak a child), and
 * stops what was left. Runs the runner on a tree of two fixture test files: one stops the process it
 * starts, one forgets it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/wait.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const tree = mkdtempSync(join(tmpdir(), 'switchboard-runner-'));

// A process that runs until it is stopped, with a marker to find it by in the runner's report.
const START = `spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000) // leak-marker'], { stdio: 'ignore' })`;
writeFileSync(
  join(tree, 'clean.test.js'),
  `import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
test('stops what it starts', async () => {
  const child = ${START};
  await once(child, 'spawn');
  child.kill();
  await once(child, 'exit');
});
`,
);
writeFileSync(
  join(tree, 'leaks.test.js'),
  `import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
test('forgets what it starts', async () => {
  const child = ${START};
  await once(child, 'spawn');
  child.unref();
  writeFileSync(new URL('./leaked.pid', import.meta.url), String(child.pid));
});
`,
);

// NODE_TEST_CONTEXT would make the runner's `node --test` report to this file's runner instead.
const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
const runnerEnv = { ...inherited, SWITCHBOARD_TEST_ROOT: tree };

function runner(filter: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/test.js', filter],
      { cwd: repo, env: runnerEnv, timeout: 120_000 }, // a hang guard
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

/** Running and not a zombie (a killed orphan stays one until init reaps it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('scripts/test.js: processes left behind', {
  skip: process.platform !== 'linux' && 'reads /proc',
}, () => {
  let leaked: number | undefined;
  after(() => {
    // Only if the runner failed to stop it (the test below fails then).
    if (leaked !== undefined && alive(leaked)) process.kill(leaked, 'SIGKILL');
    rmSync(tree, { recursive: true, force: true });
  });

  test('a run whose tests stop their processes passes', async () => {
    const { code, output } = await runner('clean');
    assert.equal(code, 0, output);
    assert.doesNotMatch(output, /left .* running/);
  });

  test('a run with a test that leaves a process running fails, names it and stops it', async () => {
    const { code, output } = await runner('.test.js');
    leaked = Number(readFileSync(join(tree, 'leaked.pid'), 'utf8'));
    assert.equal(code, 1, output);
    // TAP (Node 20, 22) or the spec reporter (Node 23 and later, piped too).
    assert.match(output, /^(#|ℹ) pass 2$/m, 'both fixture tests themselves pass');
    assert.match(output, /The tests left 1 process\(es\) running/);
    assert.match(output, new RegExp(`pid ${leaked}: .*leak-marker`));
    await until(() => !alive(leaked!), 'the leaked process stopped');
  });
});

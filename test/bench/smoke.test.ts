/**
 * The benchmark suite's smoke pass (`npm run bench -- --smoke`): every scenario and implementation
 * runs for a moment. It asserts only that the run completes without a failed cell and prints its
 * tables — never a figure: speed is measured by `npm run bench`, not by tests.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const RUN = fileURLToPath(new URL('../../bench/run.js', import.meta.url));

test('the benchmark smoke pass completes and prints its tables', { timeout: 10 * 60_000 }, async () => {
  const child = spawn(process.execPath, [RUN, '--smoke'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  assert.equal(code, 0, `the smoke pass failed:\n${stderr.slice(-4000)}`);
  for (const title of ['### stdio: client + server', '### HTTP legacy', '### HTTP modern']) {
    assert.ok(stdout.includes(title), `missing the "${title}" table`);
  }
  assert.match(stdout, /^\| metric \| unit \| switchboard \|/m);
  assert.match(stdout, /^\| seq throughput \| calls\/s/m);
});

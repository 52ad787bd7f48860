/**
 * The soak's short form (`node bench/soak.js --short`, see bench/soak.ts): every scenario runs a few
 * hundred rounds and must leave the heap within 10% of its baseline after GC, no handles or timers,
 * no child process, and every bounded structure at its bound. The full run's figures are in
 * docs/benchmarks.md.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ScenarioReport } from '../../bench/soak.js';

const SOAK = fileURLToPath(new URL('../../bench/soak.js', import.meta.url));

test('the soak short form leaves no memory, handles or processes behind', async (t) => {
  const child = fork(SOAK, ['--short', '--json'], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    signal: t.signal,
  });
  child.on('error', () => {});
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const reports = JSON.parse(stdout) as ScenarioReport[];
  assert.deepEqual(
    reports.map((r) => r.name),
    [
      'legacy sessions',
      'listen streams',
      'timeouts and cancellations',
      'caches at their bounds',
      'stdio servers',
    ],
  );
  for (const report of reports)
    assert.deepEqual(report.problems, [], `${report.name}: ${JSON.stringify(report)}`);
  assert.equal(code, 0, stderr.slice(-2000));
});

/**
 * The cold-start benchmark's smoke pass completes and prints its rows (see smoke.ts), one section
 * per Node binary: `--node` adds one (here the same binary again, so no other Node is needed).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runBench } from './smoke.js';

const RUN = fileURLToPath(new URL('../../bench/run.js', import.meta.url));

test('the cold-start benchmark smoke pass completes and prints its rows, a section per Node binary', async (t) => {
  const args = ['--smoke', '--only', 'cold', '--node', process.execPath];
  const stdout = await runBench(RUN, args, t.signal, 'the cold smoke pass');
  const titles = stdout.match(/^### stdio cold start on Node v\d+\.\d+\.\d+:/gm) ?? [];
  assert.deepEqual(titles, Array(2).fill(`### stdio cold start on Node ${process.version}:`));
  for (const pattern of [
    /^\| metric \| unit \| switchboard \| switchboard-cached \| switchboard-modern \| switchboard-unbundled \| sdk-v1 \| sdk-v2 \| sdk-v2-modern \| raw \|/m,
    /^\| spawn to first answer p50 \| ms /m,
    /^\| spawn to first answer p90 \| ms /m,
    /^\| import of the library \| ms /m,
  ]) {
    assert.match(stdout, pattern);
  }
});

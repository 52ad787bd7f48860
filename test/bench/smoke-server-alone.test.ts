/**
 * `npm run bench:server` (bench/server-alone.ts) completes one short run per era and prints its
 * medians; never a figure is checked (see smoke.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runBench } from './smoke.js';

const SCRIPT = fileURLToPath(new URL('../../bench/server-alone.js', import.meta.url));

test('the server-alone benchmark runs both eras and prints their medians', async (t) => {
  const stdout = await runBench(SCRIPT, ['--runs', '1', '--ms', '300'], t.signal, 'server-alone');
  for (const era of ['legacy', 'modern']) {
    assert.match(
      stdout,
      new RegExp(
        `^${era} median, switchboard-http vs raw-http: \\d+/s vs \\d+/s, throughput ([\\d.]+x|n/a), CPU/call ([\\d.]+x|n/a)$`,
        'm',
      ),
    );
  }
});

/**
 * `npm run bench:server` (bench/server-alone.ts) completes one short run per era and prints its
 * medians; never a figure is checked (see smoke.ts).
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../bench/server-alone.js', import.meta.url));

test('the server-alone benchmark runs both eras and prints their medians', async (t) => {
  const child = fork(SCRIPT, ['--runs', '1', '--ms', '300'], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    signal: t.signal,
  });
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
  assert.equal(code, 0, `server-alone failed:\n${stderr.slice(-4000)}`);
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

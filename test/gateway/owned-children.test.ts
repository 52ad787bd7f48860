/** A test file stopped by the runner (SIGTERM) takes the children it owns with it. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertExited } from '../interop/helpers/processes.js';

const OWNER = fileURLToPath(new URL('../fixtures/owns-a-child.js', import.meta.url));

test('spawnOwned: a SIGTERM to the owner kills the child it spawned', async () => {
  const owner = spawn(process.execPath, [OWNER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [chunk] = (await once(owner.stdout, 'data')) as [Buffer];
    const pid = Number(chunk.toString().trim());
    assert.ok(pid > 0);
    process.kill(pid, 0); // alive
    owner.kill('SIGTERM');
    const [code] = (await once(owner, 'exit')) as [number | null];
    assert.equal(code, 143);
    await assertExited([pid], 'the child of a stopped owner');
  } finally {
    owner.kill('SIGKILL');
  }
});

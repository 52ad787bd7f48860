/** `npm start` runs examples/session.js: it must talk to the example server and exit cleanly. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const script = (name: string) => fileURLToPath(new URL(`../../examples/${name}.js`, import.meta.url));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the session example negotiates 2026-07-28, calls tools, reads a resource and exits 0', async () => {
  const { code, stdout, stderr } = await run([script('session')]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /negotiated protocol 2026-07-28 \(modern era\)/);
  assert.match(stdout, /< structuredContent \{"sum":42\}/);
  assert.match(stdout, /< \[link notes:\/\/ideas\]/);
  assert.match(stdout, /< isError true: Cannot divide by zero/);
  assert.match(stdout, /< text\/plain A switchboard for AI tools/);
  assert.match(stdout, /closed; the server process has exited\.$/m);
});

test('the example server without --stdio prints its usage and exits 2', async () => {
  const { code, stdout, stderr } = await run([script('server')]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /^usage: .*--stdio/);
});

/**
 * The promise, as a user types it: `npm run --silent auth:demo -- --port N` starts the
 * development authorization server and the example server protected by it, and
 * `BROWSER="curl -sL" switchboard tools http://127.0.0.1:N/mcp` signs in and lists the tools
 * without a person. Ctrl-C (SIGINT) stops both.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnOwned } from '../helpers/owned-children.js';
import { CLI_ENV, runCli } from './run-cli.js';

/** A port free a moment ago (the demo needs it up front: its resource URL names it). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('auth:demo, then BROWSER="curl -sL" switchboard tools signs in and lists the tools', async () => {
  const port = await freePort();
  const demo = spawnOwned(process.execPath, [
    fileURLToPath(new URL('../../examples/auth/demo.js', import.meta.url)),
    '--port',
    String(port),
  ]);
  const config = mkdtempSync(join(tmpdir(), 'switchboard-auth-demo-'));
  try {
    let printed = '';
    demo.stdout.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      demo.stdout.on('data', (chunk: string) => {
        printed += chunk;
        if (printed.includes('Ctrl-C stops both servers.')) resolve();
      });
      demo.once('exit', (code) => reject(new Error(`auth:demo exited with ${code} before it was ready`)));
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    assert.match(printed, new RegExp(`BROWSER="curl -sL" npx switchboard tools ${url}`));
    const run = await runCli(['tools', url], {
      env: { ...CLI_ENV, XDG_CONFIG_HOME: config, BROWSER: 'curl -sL' },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /signing in with curl/);
    assert.match(run.stdout, /\S/, 'some tools are listed');
  } finally {
    const exited = demo.exitCode === null ? once(demo, 'exit') : Promise.resolve([demo.exitCode]);
    demo.kill('SIGINT');
    const [code] = await exited;
    rmSync(config, { recursive: true, force: true });
    assert.equal(code, 0, 'Ctrl-C stops both servers and exits cleanly');
  }
});

/**
 * The issue's promise, exactly as a user types it: `npm run --silent auth:demo -- --port N` starts
 * the development authorization server and the example server protected by it, and
 * `BROWSER="curl -sL" npx switchboard tools http://127.0.0.1:N/mcp` signs in and lists the tools
 * without a person. Ctrl-C (SIGINT to the command's process group, as a terminal sends it) stops
 * both.
 *
 * `npx switchboard` runs from a project that has switchboard installed (node_modules/switchboard
 * linked to this repository, its bin in node_modules/.bin), offline: npx runs that bin. (Run inside
 * this repository itself, npx would first install the repository into its cache, running its
 * `prepare` script: a full rebuild of build/ under the other tests' feet.)
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI, CLI_ENV } from './run-cli.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** A port free a moment ago (the demo needs it up front: its resource URL names it). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Whether something listens on 127.0.0.1:`port`. */
async function listening(port: number): Promise<boolean> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/** A project with switchboard installed: what `npm install switchboard` leaves, linked to this repository. */
function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-user-project-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true }));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(REPO, join(dir, 'node_modules', 'switchboard'), 'dir');
  const bin = join(dir, 'node_modules', '.bin', 'switchboard');
  symlinkSync(relative(join(dir, 'node_modules', '.bin'), CLI), bin);
  chmodSync(CLI, 0o755); // as npm makes a package's bin executable when it links it

  return dir;
}

test('npm run --silent auth:demo -- --port N, then BROWSER="curl -sL" npx switchboard tools signs in and lists the tools', async () => {
  const port = await freePort();
  // Its own process group, so that Ctrl-C can be sent to npm and the demo together.
  const demo = spawn(NPM, ['run', '--silent', 'auth:demo', '--', '--port', String(port)], {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const group = demo.pid!;
  // Should this file be stopped before `finally` runs, the demo must not outlive it.
  const killGroup = () => {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killGroup);
  const exited = once(demo, 'exit');
  const project = userProject();
  const config = mkdtempSync(join(tmpdir(), 'switchboard-auth-demo-'));
  let printed = '';
  try {
    let errors = '';
    demo.stdout.setEncoding('utf8');
    demo.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    await new Promise<void>((resolve, reject) => {
      demo.stdout.on('data', (chunk: string) => {
        printed += chunk;
        if (printed.includes('Ctrl-C stops both servers.')) resolve();
      });
      demo.once('exit', (code) =>
        reject(new Error(`auth:demo exited with ${code} before it was ready: ${errors}`)),
      );
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    assert.match(printed, new RegExp(`BROWSER="curl -sL" npx switchboard tools ${url}`));
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        NPX,
        ['switchboard', 'tools', url],
        {
          cwd: project,
          timeout: 120_000, // a hang guard
          env: { ...CLI_ENV, XDG_CONFIG_HOME: config, BROWSER: 'curl -sL', npm_config_offline: 'true' },
        },
        (error, stdout, stderr) => {
          const code = error ? (error as { code?: unknown }).code : 0;
          resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
        },
      );
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /signing in with curl \(from \$BROWSER\)/);
    // The example server's tools (examples/server.ts).
    assert.match(run.stdout, /\becho\b/);
  } finally {
    if (demo.exitCode === null) process.kill(-group, 'SIGINT');
    const [code, signal] = await exited;
    process.off('exit', killGroup);
    rmSync(config, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
    // npm ends as its script did (0), or re-raises the SIGINT it was sent, as in a terminal.
    assert.ok(code === 0 || signal === 'SIGINT', `npm ended with ${code ?? signal}`);
    const asPort = Number(/Authorization server: +http:\/\/127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
    assert.ok(asPort > 0, printed);
    assert.equal(await listening(port), false, 'the MCP server stopped');
    assert.equal(await listening(asPort), false, 'the authorization server stopped');
  }
});

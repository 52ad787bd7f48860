/**
 * The main job: `npm start` (examples/start.js) serves the example over HTTP and shows a session against
 * it; examples/session.js runs the same session over stdio; examples/server.js serves either way.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
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

test('the example server without --stdio or --port prints its usage and exits 2', async () => {
  const { code, stdout, stderr } = await run([script('server')]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /^usage: .*--port <n>/);
  assert.match(stderr, /--stdio/);
});

/** Starts a long-running example program and resolves once it printed its endpoint URL. */
function startServing(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = /Switchboard example server at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout)?.[1];
      if (url) resolve({ child, url, output: () => stdout });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`exited early (${code}): ${stdout}${stderr}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('npm start: prints the console URL first, serves MCP at /mcp and the console at /, connected to it', async () => {
  const { child, url, output } = await startServing([script('start'), '--port', '0']);
  try {
    const consoleUrl = /^Switchboard console: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)\n/.exec(
      output(),
    )?.[1];
    assert.ok(consoleUrl, `the first line names the console: ${output()}`);
    assert.equal(new URL(consoleUrl).origin, new URL(url).origin);
    assert.equal(new URL(url).pathname, '/mcp');
    const page = await fetch(consoleUrl);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>Switchboard console<\/title>/);
    assert.equal((await fetch(new URL('/', url))).status, 401);
    const token = new URL(consoleUrl).searchParams.get('token')!;
    const listed = await fetch(new URL(`/api/connections?token=${token}`, url));
    const [connection] = (
      (await listed.json()) as { connections: { state: string; target: { url: string } }[] }
    ).connections;
    assert.equal(connection?.state, 'open');
    assert.equal(connection?.target.url, url);

    assert.match(output(), /negotiated protocol 2026-07-28 \(modern era\)/);
    assert.match(output(), /< structuredContent \{"sum":42\}/);
    assert.match(output(), new RegExp(`node build/dist/cli/main\\.js tools ${url.replaceAll('.', '\\.')}`));
    const tools = await run([cli, 'tools', url]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /\badd\b/);
    const call = await run([cli, 'call', url, 'add', 'a=2', 'b=40', '--json']);
    assert.equal(call.code, 0, call.stderr);
    assert.deepEqual(JSON.parse(call.stdout).structuredContent, { sum: 42 });
    // The same URL serves legacy clients too.
    const legacy = await run([cli, 'read', url, 'notes://ideas', '--legacy', '--verbose']);
    assert.equal(legacy.code, 0, legacy.stderr);
    assert.match(legacy.stdout, /A switchboard for AI tools/);
  } finally {
    assert.equal(await stop(child), 0);
  }
});

test('the example server over HTTP (npm run demo -- --port N) answers and stops on SIGINT', async () => {
  const { child, url } = await startServing([script('server'), '--port', '0']);
  try {
    const prompts = await run([cli, 'prompts', url, '--protocol', '2025-03-26']);
    assert.equal(prompts.code, 0, prompts.stderr);
    assert.match(prompts.stdout, /summarize_note/);
  } finally {
    assert.equal(await stop(child), 0);
  }
});

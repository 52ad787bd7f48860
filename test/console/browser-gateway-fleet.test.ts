/**
 * The fleet view of a `switchboard gateway` the console is connected to, in Chromium: the real CLI
 * gateway (with a lock file holding one tool back) fronting the example server and the gateway
 * tests' upstream; the console (`switchboard console --history FILE <gateway URL>`) shows the
 * gateway and each upstream with its health, last score and history from the history file, the
 * tool the gateway holds, a tool changed since the console pinned it (diff, approved after a
 * confirmation), and a check of the gateway run from the page.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TOKEN_HEADER } from '../../src/console/api-types.js';
import { type RunningConsole, serveConsole } from '../../src/console.js';
import { RUN_FORMAT } from '../../src/fleet/history.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { UPSTREAM } from '../gateway/helpers.js';
import { launchChromium } from '../helpers/chromium.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { EXAMPLE_SERVER } from './helpers.js';
import { openConsole, screenshots } from './page.js';

const dir = mkdtempSync(join(tmpdir(), 'console-gateway-fleet-'));
const history = join(dir, 'fleet.jsonl');
const pinsFile = `${history}.pins.json`;
const shots = screenshots();
let browser: Browser;
let running: RunningConsole;
let page: Page;
let gateway: ReturnType<typeof spawnOwned>;

/** A run of `switchboard check --config` for the gateway's config, as its history file holds it. */
const run = (at: string, scores: Record<string, number>) => ({
  format: RUN_FORMAT,
  at,
  source: join(dir, 'mcp.json'),
  servers: Object.entries(scores).map(([name, score]) => ({
    name,
    transport: 'stdio',
    target: name,
    revisions: ['2026-07-28'],
    score,
    mustFailures: score < 90 ? 1 : 0,
    failed: score < 100 ? 1 : 0,
    failures: [],
    changes: [],
  })),
});

function startGateway(): Promise<string> {
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        example: { command: process.execPath, args: [EXAMPLE_SERVER, '--stdio'] },
        memo: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'memo' } },
      },
    }),
  );
  // A lock whose pin of example__add no definition has: the gateway holds that tool back.
  const lock = join(dir, 'tools.lock');
  writeFileSync(lock, JSON.stringify({ version: 1, tools: { example__add: `sha256:${'0'.repeat(64)}` } }));
  gateway = spawnOwned(process.execPath, [CLI, 'gateway', config, '--port', '0', '--lock', lock], {
    env: CLI_ENV,
  });
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    gateway.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving 2 servers at (\S+)\n(?:.*\n){2}/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    gateway.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
  });
}

before(async () => {
  const url = await startGateway();
  writeFileSync(
    history,
    [
      run('2026-12-01T10:00:00.000Z', { example: 92, memo: 85 }),
      run('2026-12-01T11:00:00.000Z', { example: 100, memo: 88 }),
    ]
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );
  const connect = [{ kind: 'http' as const, url, protocol: 'auto' as const }];
  // A first console pins the tools it sees through the gateway; one pin is then made older.
  const first = await serveConsole({ port: 0, connect, fleet: { history } });
  const token = new URL(first.url).searchParams.get('token') ?? '';
  const seen = await fetch(`${first.origin}/api/fleet`, { headers: { [TOKEN_HEADER]: token } });
  assert.equal(seen.status, 200, await seen.clone().text());
  await first.close();
  const pins = JSON.parse(readFileSync(pinsFile, 'utf8'));
  const [memoTool] = Object.keys(pins.memo);
  assert.ok(memoTool, JSON.stringify(pins));
  pins.memo[memoTool] = { ...pins.memo[memoTool], description: 'The old wording' };
  writeFileSync(pinsFile, JSON.stringify(pins));
  [browser, running] = await Promise.all([
    launchChromium(),
    serveConsole({ port: 0, connect, fleet: { history } }),
  ]);
  page = await openConsole(browser, `${running.url}#/fleet`);
});
after(async () => {
  await browser?.close();
  await running?.close();
  const exited = new Promise((resolve) => gateway?.on('exit', resolve));
  if (gateway?.exitCode === null) {
    gateway.kill('SIGTERM');
    await exited;
  }
  shots.done();
});

test("a gateway's fleet: each upstream's health, score and history, held and changed tools; approve; a check", async () => {
  await page.getByRole('link', { name: 'Fleet' }).waitFor();
  const table = page.getByRole('table');
  const example = table.getByRole('row', { name: /^example/ });
  const memo = table.getByRole('row', { name: /^memo/ });
  await example.getByText('up', { exact: true }).waitFor();
  await memo.getByText('up', { exact: true }).waitFor();
  await example.getByRole('img', { name: 'example: scores 92, 100' }).waitFor();
  await memo.getByRole('img', { name: 'memo: scores 85, 88' }).waitFor();
  assert.match((await memo.textContent()) ?? '', /88\s*1 MUST failure/);
  assert.match((await example.textContent()) ?? '', /checked with the gateway/);

  // The tool the gateway holds back: named, with how to approve it in the lock; no button here.
  const held = page.getByRole('article', { name: 'example: example__add held' });
  await held.getByText(/switchboard gateway approve --lock/).waitFor();
  assert.equal(await held.getByRole('button').count(), 0);

  // A tool changed since the console pinned it: the diff, and Approve after a confirmation.
  const change = page.getByRole('article', { name: /^memo: memo__\S+ changed$/ });
  assert.match(
    (await change.locator('pre').textContent()) ?? '',
    /^- {2}"description": "The old wording",?$/m,
  );
  await shots.shot(page, 'fleet-gateway');
  const asked = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }),
  );
  await change.getByRole('button', { name: 'Approve' }).click();
  assert.match(await asked, /^Approve the definition of memo__\S+ on memo\?$/);
  await change.waitFor({ state: 'detached' });
  const pins = JSON.parse(readFileSync(pinsFile, 'utf8'));
  assert.ok(!JSON.stringify(pins.memo).includes('The old wording'));

  // A check of the gateway from the page: its row gets a score, the history file a run.
  const own = table.getByRole('row', { name: /^http:\/\/127\.0\.0\.1/ });
  await own.getByText('not checked').waitFor();
  await page.getByRole('button', { name: 'Check the gateway' }).click();
  await page.getByRole('button', { name: 'Check the gateway' }).waitFor({ timeout: 150_000 });
  await own.getByText(/\d+ MUST failures?/).waitFor();
  assert.equal(readFileSync(history, 'utf8').trim().split('\n').length, 3);
});

test('an upstream cannot be checked apart from the gateway; the fleet API wants the token', async () => {
  const token = new URL(running.url).searchParams.get('token') ?? '';
  const refused = await fetch(`${running.origin}/api/fleet/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
    body: JSON.stringify({ server: 'memo' }),
  });
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /memo is behind the gateway.*switchboard check --config/);
  const anonymous = await fetch(`${running.origin}/api/fleet/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'memo', tool: 'x' }),
  });
  assert.equal(anonymous.status, 401);
});

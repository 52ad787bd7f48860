/**
 * The fleet view of a `switchboard gateway` the console is connected to, in Chromium: the real CLI
 * gateway (with a lock file holding one tool back, and its admin endpoint on) fronting the example
 * server and the gateway tests' upstream; the console (`switchboard console --history FILE
 * <gateway URL>`, with the gateway's admin token) shows the gateway and each upstream with its
 * health, last score and history from the history file, the tool the gateway holds with the diff
 * from its pinned definition (approved on the gateway, then callable through it), a tool changed
 * since the console pinned it (diff, approved after a confirmation), a check of one upstream run by
 * the gateway and a check of the gateway, both from the page and kept in the history file.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TOKEN_HEADER } from '../../src/console/api-types.js';
import type { FleetView } from '../../src/console/fleet-types.js';
import { type RunningConsole, serveConsole } from '../../src/console.js';
import { RUN_FORMAT } from '../../src/fleet/history.js';
import { toolHash } from '../../src/gateway/pins.js';
import type { Tool } from '../../src/protocol/types.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { switchboardClient, textOf, UPSTREAM } from '../gateway/helpers.js';
import { launchChromium } from '../helpers/chromium.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { EXAMPLE_SERVER } from './helpers.js';
import { openConsole, screenshots } from './page.js';

const dir = mkdtempSync(join(tmpdir(), 'console-gateway-fleet-'));
const history = join(dir, 'fleet.jsonl');
const pinsFile = `${history}.pins.json`;
const lock = join(dir, 'tools.lock');
const ADMIN_TOKEN = randomBytes(32).toString('base64url');
const OLD_WORDING = 'Adds two numbers, and tells nobody.';
const shots = screenshots();
let browser: Browser;
let running: RunningConsole;
let page: Page;
let gateway: ReturnType<typeof spawnOwned> | undefined;
let gatewayUrl: string;

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

/** The CLI gateway with its admin endpoint (the token in ADMIN_TOKEN) and `--lock`; resolves to its URL. */
function startGateway(): Promise<string> {
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        example: { command: process.execPath, args: [EXAMPLE_SERVER, '--stdio'] },
        memo: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'memo' } },
      },
      gateway: { admin: { token: `\${ADMIN_TOKEN}` } },
    }),
  );
  const child = spawnOwned(process.execPath, [CLI, 'gateway', config, '--port', '0', '--lock', lock], {
    env: { ...CLI_ENV, ADMIN_TOKEN },
  });
  gateway = child;
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving 2 servers at (\S+)\n(?:.*\n){2}/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
  });
}

async function stopGateway(): Promise<void> {
  const child = gateway;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The gateway pins every tool on its first run; then example__add's pin is made an older wording. */
async function lockWithAnOlderAdd(): Promise<void> {
  await startGateway();
  await stopGateway();
  const pins = JSON.parse(readFileSync(lock, 'utf8'));
  const definition = { ...pins.tools.example__add.definition, description: OLD_WORDING };
  pins.tools.example__add = { hash: toolHash({ name: 'add', ...definition } as Tool), definition };
  writeFileSync(lock, JSON.stringify(pins));
}

before(async () => {
  await lockWithAnOlderAdd();
  gatewayUrl = await startGateway();
  writeFileSync(
    history,
    [
      run('2026-12-01T10:00:00.000Z', { example: 92, memo: 85 }),
      run('2026-12-01T11:00:00.000Z', { example: 100, memo: 88 }),
    ]
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );
  const connect = [{ kind: 'http' as const, url: gatewayUrl, protocol: 'auto' as const }];
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
    serveConsole({ port: 0, connect, fleet: { history }, gatewayAdminToken: ADMIN_TOKEN }),
  ]);
  page = await openConsole(browser, `${running.url}#/fleet`);
  // Each approval reads the gateway's lists again and each view asks it twice: slow on a loaded machine.
  page.setDefaultTimeout(120_000);
});
after(async () => {
  await browser?.close();
  await running?.close();
  await stopGateway();
  shots.done();
});

/** Accepts the next confirmation the page asks, resolving to its question. */
const confirmed = () =>
  new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }),
  );

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
  // With the admin endpoint each upstream is checked from its own row (by the gateway).
  await example.getByRole('button', { name: 'Check' }).waitFor();

  // The tool the gateway holds back: the diff from the definition pinned in its lock to the new one.
  const held = page.getByRole('article', { name: 'example: example__add held' });
  const heldDiff = (await held.locator('pre').textContent()) ?? '';
  assert.match(heldDiff, new RegExp(`^- {2}"description": "${OLD_WORDING}",?$`, 'm'));
  assert.match(heldDiff, /^\+ {2}"description": "(?!Adds two numbers, and)[^"]+",?$/m);

  // A tool changed since the console pinned it: the diff, and Approve after a confirmation.
  const change = page.getByRole('article', { name: /^memo: memo__\S+ changed$/ });
  assert.match(
    (await change.locator('pre').textContent()) ?? '',
    /^- {2}"description": "The old wording",?$/m,
  );
  await shots.shot(page, 'fleet-gateway');
  let asked = confirmed();
  await change.getByRole('button', { name: 'Approve' }).click();
  assert.match(await asked, /^Approve the definition of memo__\S+ on memo\?$/);
  await change.waitFor({ state: 'detached' });
  const pins = JSON.parse(readFileSync(pinsFile, 'utf8'));
  assert.ok(!JSON.stringify(pins.memo).includes('The old wording'));

  // Approving the held tool approves it on the gateway: in its lock, and callable through it.
  const { client } = await switchboardClient(gatewayUrl, 'fleet');
  try {
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'example__add'), 'held');
    asked = confirmed();
    await held.getByRole('button', { name: 'Approve' }).click();
    assert.match(await asked, /^Approve the new definition of example__add on the gateway\?/);
    await held.waitFor({ state: 'detached' });
    const pinned = JSON.parse(readFileSync(lock, 'utf8')).tools.example__add;
    assert.notEqual(pinned.definition.description, OLD_WORDING);
    assert.equal(pinned.hash, toolHash({ name: 'add', ...pinned.definition } as Tool));
    const sum = await client.callTool('example__add', { a: 2, b: 40 });
    assert.deepEqual(sum.structuredContent, { sum: 42 }, textOf(sum));
  } finally {
    await client.close();
  }
  // Nor does the console show it as new: it pinned what it approved.
  await page.getByRole('article', { name: /^example: example__add/ }).waitFor({ state: 'detached' });

  // A check of one upstream, run by the gateway on its config entry: a score, a run in the history.
  await memo.getByRole('button', { name: 'Check' }).click();
  await memo.getByRole('button', { name: 'Check' }).waitFor({ timeout: 150_000 });
  await memo.getByRole('img', { name: /^memo: scores 85, 88, \d+$/ }).waitFor();
  const runs = readFileSync(history, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(runs.length, 3);
  assert.equal(runs[2].source, gatewayUrl);
  assert.deepEqual(
    runs[2].servers.map((server: { name: string }) => server.name),
    ['memo'],
  );
  assert.equal(typeof runs[2].servers[0].score, 'number');
  await shots.shot(page, 'fleet-gateway-checked');

  // A check of the gateway from the page: its row gets a score, the history file a run.
  const own = table.getByRole('row', { name: /^http:\/\/127\.0\.0\.1/ });
  await own.getByText('not checked').waitFor();
  await page.getByRole('button', { name: 'Check the gateway' }).click();
  await page.getByRole('button', { name: 'Check the gateway' }).waitFor({ timeout: 150_000 });
  await own.getByText(/\d+ MUST failures?/).waitFor();
  assert.equal(readFileSync(history, 'utf8').trim().split('\n').length, 4);
});

test("without the gateway's admin token: held tools say how to approve them in the lock, upstreams cannot be checked", async () => {
  const connect = [{ kind: 'http' as const, url: gatewayUrl, protocol: 'auto' as const }];
  const other = await serveConsole({ port: 0, connect });
  try {
    const token = new URL(other.url).searchParams.get('token') ?? '';
    const view = (await (
      await fetch(`${other.origin}/api/fleet`, { headers: { [TOKEN_HEADER]: token } })
    ).json()) as FleetView;
    assert.match(view.admin ?? '', /answered 401: The admin endpoint needs the admin token/);
    assert.ok(view.servers.slice(1).every((server) => server.checkable === false));
    const refused = await fetch(`${other.origin}/api/fleet/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
      body: JSON.stringify({ server: 'memo' }),
    });
    assert.equal(refused.status, 400);
    assert.match(
      await refused.text(),
      /memo is behind the gateway.*admin endpoint.*switchboard check --config/,
    );
    const anonymous = await fetch(`${other.origin}/api/fleet/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'memo', tool: 'x' }),
    });
    assert.equal(anonymous.status, 401);
  } finally {
    await other.close();
  }
});

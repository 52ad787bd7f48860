/**
 * The command center (`switchboard console --config FILE --history FILE`) in Chromium: the fleet
 * of a config (the example server over stdio, a server that cannot start), each server's health,
 * last score and score history, a tool whose definition changed since it was pinned with its diff,
 * approved from the page (after a confirmation), and a check run from the page.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type RunningConsole, serveConsole } from '../../src/console.js';
import { runCli } from '../cli/run-cli.js';
import { launchChromium } from '../helpers/chromium.js';
import { EXAMPLE_SERVER } from './helpers.js';
import { openConsole, screenshots } from './page.js';

const dir = mkdtempSync(join(tmpdir(), 'console-fleet-'));
const config = join(dir, 'mcp.json');
const history = join(dir, 'fleet.jsonl');
const shots = screenshots();
let browser: Browser;
let running: RunningConsole;
let page: Page;

before(async () => {
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        example: { command: process.execPath, args: [EXAMPLE_SERVER, '--stdio'] },
        broken: { command: join(dir, 'no-such-server') },
      },
    }),
  );
  // A first run from the command line; its tools are pinned, one with an older description.
  const first = await runCli([
    'check',
    '--config',
    config,
    '--history',
    history,
    '--revision',
    '2026-07-28',
    '--quiet',
  ]);
  assert.equal(first.code, 2, first.stdout + first.stderr);
  const run = JSON.parse(readFileSync(history, 'utf8').trim());
  const tools = run.servers.find((s: { name: string }) => s.name === 'example').surface.tools as {
    name: string;
    description?: string;
  }[];
  const pins = Object.fromEntries(
    tools.map((t) => [t.name, t.name === 'add' ? { ...t, description: 'Adds (the old wording)' } : t]),
  );
  writeFileSync(`${history}.pins.json`, JSON.stringify({ example: pins }));
  [browser, running] = await Promise.all([
    launchChromium(),
    serveConsole({ port: 0, fleet: { config, history } }),
  ]);
  page = await openConsole(browser, `${running.url}#/fleet`);
});
after(async () => {
  await browser?.close();
  await running?.close();
  shots.done();
});

test('the fleet: health, score, history; a changed tool with its diff, approved; a check from the page', async () => {
  const table = page.getByRole('table');
  const example = table.getByRole('row', { name: /^example/ });
  const broken = table.getByRole('row', { name: /^broken/ });
  await example.getByText('up', { exact: true }).waitFor();
  await broken.getByText('down', { exact: true }).waitFor();
  assert.match((await broken.textContent()) ?? '', /no-such-server/);
  assert.match((await example.textContent()) ?? '', /\d+ MUST failures?/);
  assert.match((await example.textContent()) ?? '', /1 changed/);
  const change = page.getByRole('article', { name: 'example: add changed' });
  const diff = (await change.locator('pre').textContent()) ?? '';
  assert.match(diff, /^- {2}"description": "Adds \(the old wording\)",$/m);
  assert.match(diff, /^\+ {2}"description": /m);

  // A check run from the page: a second point in each history.
  await page.getByRole('button', { name: 'Check every server' }).click();
  await page.getByRole('button', { name: 'Checking every server…' }).waitFor();
  await page.getByRole('button', { name: 'Check every server' }).waitFor({ timeout: 150_000 });
  await example.getByRole('img', { name: /^example: scores \d+, \d+$/ }).waitFor();
  assert.equal(readFileSync(history, 'utf8').trim().split('\n').length, 2);
  await shots.shot(page, 'fleet');

  // Approving asks first; dismissed, nothing changes.
  page.once('dialog', (dialog) => void dialog.dismiss());
  await change.getByRole('button', { name: 'Approve' }).click();
  assert.equal(await change.count(), 1);
  const asked = new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void dialog.accept();
    }),
  );
  await change.getByRole('button', { name: 'Approve' }).click();
  assert.equal(await asked, 'Approve the definition of add on example?');
  await change.waitFor({ state: 'detached' });
  assert.match((await example.textContent()) ?? '', /\d+ pinned/);
  assert.doesNotMatch((await example.textContent()) ?? '', /changed/);
  const pins = JSON.parse(readFileSync(`${history}.pins.json`, 'utf8'));
  assert.notEqual(pins.example.add.description, 'Adds (the old wording)');
});

test("the fleet API refuses a request without the token, like the console's other actions", async () => {
  const answer = await fetch(`${running.origin}/api/fleet/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server: 'example', tool: 'add' }),
  });
  assert.equal(answer.status, 401);
});

/**
 * The servers behind a `switchboard gateway`, one by one, in a real browser (see browser.test.ts):
 * the real CLI gateway fronting the example server and the gateway tests' upstream (plus one that
 * fails to start); the console reads each upstream's health from the gateway's /readyz and lists
 * tools, prompts and resources under the server they come from; a call goes through to its server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { UPSTREAM } from '../gateway/helpers.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { EXAMPLE_SERVER } from './helpers.js';
import { type Bench, connectFrom, startBench } from './page.js';

function writeConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'console-gateway-')), 'mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        example: { command: process.execPath, args: [EXAMPLE_SERVER, '--stdio'] },
        memo: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'memo' } },
        broken: { command: process.execPath, args: [UPSTREAM, 'crash-on-start'] },
      },
    }),
  );
  return file;
}

let bench: Bench;
let page: Page;
let gateway: ReturnType<typeof spawnOwned>;
let gatewayUrl: string;

before(async () => {
  gateway = spawnOwned(process.execPath, [CLI, 'gateway', writeConfig(), '--port', '0'], { env: CLI_ENV });
  let stderr = '';
  const started = new Promise<string>((resolve, reject) => {
    gateway.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving 3 servers at (\S+)\n(?:.*\n){3}/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    gateway.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
  });
  [bench, gatewayUrl] = await Promise.all([startBench(), started]);
  page = bench.page;
});
after(async () => {
  const exited = new Promise((resolve) => gateway?.on('exit', resolve));
  if (gateway?.exitCode === null) {
    gateway.kill('SIGTERM');
    await exited;
  }
  await bench?.close();
});

test('connects to the gateway and shows each server behind it with its health', async () => {
  await connectFrom(page, 'http', gatewayUrl);
  const servers = page.getByRole('region', { name: 'Servers behind the gateway' });
  const row = (name: string) =>
    servers.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  await row('example').getByRole('cell', { name: 'up', exact: true }).waitFor();
  await row('memo').getByRole('cell', { name: 'up', exact: true }).waitFor();
  await row('example').getByRole('cell', { name: 'stdio', exact: true }).waitFor();
  // The upstream that cannot start is shown failing, with what it said.
  await row('broken').getByText('cannot open the database').waitFor();
  assert.notEqual(await row('broken').getByRole('cell').first().textContent(), 'up');
  // Every eager upstream was tried (the CLI printed its summary), so the gateway is ready and
  // serves the two that came up; the one that failed is named, not a reason to be unready.
  await servers.getByText('ready', { exact: true }).waitFor();
  await servers.getByRole('button', { name: 'Refresh health' }).click();
  await row('memo').getByRole('cell', { name: 'up', exact: true }).waitFor();
});

test('lists tools under the server they come from and calls one through the gateway', async () => {
  const nav = page.getByRole('navigation', { name: 'Tools' });
  await nav.getByRole('heading', { name: 'memo', exact: true }).waitFor();
  await nav.getByRole('heading', { name: 'example', exact: true }).waitFor();
  const memo = nav.getByRole('list', { name: 'Tools of memo' });
  const example = nav.getByRole('list', { name: 'Tools of example' });
  await memo.getByRole('button', { name: /memo__whoami/ }).waitFor();
  await example.getByRole('button', { name: /^Echo example__echo/ }).waitFor();
  assert.equal(await memo.getByRole('button', { name: /example__/ }).count(), 0);
  await bench.shot('gateway');
  await memo.getByRole('button', { name: /memo__whoami/ }).click();
  await page.getByRole('button', { name: 'Call memo__whoami' }).click();
  await page
    .getByRole('region', { name: 'Result' })
    .getByText(/^memo pid \d+$/)
    .waitFor();
});

test('lists resources and prompts under their servers too', async () => {
  await page.getByRole('tab', { name: 'Resources' }).click();
  const resources = page.getByRole('navigation', { name: 'Resources' });
  await resources
    .getByRole('list', { name: 'Resources of memo' })
    .getByText('gateway://memo/memo://one')
    .waitFor();
  await resources
    .getByRole('list', { name: 'Resources of example' })
    .getByText('gateway://example/docs://readme')
    .waitFor();
  await resources
    .getByRole('list', { name: 'Templates of example' })
    .getByText('gateway://example/notes://{id}')
    .waitFor();
  await page.getByRole('tab', { name: 'Prompts' }).click();
  const prompts = page.getByRole('navigation', { name: 'Prompts' });
  await prompts
    .getByRole('list', { name: 'Prompts of memo' })
    .getByRole('button', { name: /memo__greet/ })
    .waitFor();
});

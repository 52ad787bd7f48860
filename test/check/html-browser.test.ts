/**
 * The HTML report in a real browser (Debian's Chromium, driven by playwright-core; `.ci/run`
 * installs chromium when it is missing): the page loads nothing from the network, shows the score,
 * lists the failures first with their evidence folded until asked for. With
 * SWITCHBOARD_WRITE_SCREENSHOT=1 it rewrites the screenshot docs/check.md shows.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { checkServer, formatHtml } from 'switchboard/check';
import { target } from './detection.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const SCREENSHOT = fileURLToPath(new URL('../../../docs/images/check-report.png', import.meta.url));

describe('the HTML report in Chromium', () => {
  let browser: Browser;
  before(async () => {
    assert.ok(CHROMIUM, 'Chromium is not installed: apt-get install chromium (.ci/run does it)');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  after(() => browser?.close());

  test('score, failures first, evidence folded, nothing fetched', async () => {
    const report = await checkServer(target('no-input-validation'), {
      revisions: ['2026-07-28', '2025-11-25'],
    });
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const fetched: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('data:') && request.url() !== 'about:blank') fetched.push(request.url());
    });
    await page.setContent(formatHtml(report), { waitUntil: 'load' });
    assert.deepEqual(fetched, [], 'a self-contained page fetches nothing');
    assert.equal(await page.locator('.score').textContent(), `${report.summary.score}/100`);
    const firstProblem = page.locator('table').first().locator('tr').nth(1);
    assert.equal(await firstProblem.locator('td').first().textContent(), 'failed');
    assert.match(String(await firstProblem.textContent()), /tools\.invalid-arguments/);
    const evidence = firstProblem.locator('details pre');
    assert.equal(await evidence.isVisible(), false, 'evidence is folded');
    await firstProblem.locator('summary').click();
    assert.equal(await evidence.isVisible(), true, 'evidence unfolds');
    assert.match(String(await evidence.textContent()), /succeeded/);
    const png = await page.screenshot({ fullPage: false });
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
    if (process.env.SWITCHBOARD_WRITE_SCREENSHOT === '1') writeFileSync(SCREENSHOT, png);
    await page.close();
  });
});

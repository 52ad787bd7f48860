/**
 * Accessibility of the console in a real browser (see browser.test.ts): the way from connecting to
 * a tool's result with the keyboard alone, focus always visible; and axe-core (the accessibility
 * engine browsers' own audits build on, injected from node_modules: nothing from the network) finds
 * no WCAG 2.1 A/AA violation in any view, in the light and the dark theme, wide and 360 px narrow.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createExampleServer } from '../../examples/server.js';
import type { RunningServer } from '../../src/node.js';
import { type Bench, openConsole, startBench } from './page.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let bench: Bench;
let page: Page;
let mcp: RunningServer;

before(async () => {
  bench = await startBench(createExampleServer());
  mcp = bench.mcp!;
  // The console's CSP admits only its own scripts: this page lets the test inject axe-core.
  page = await openConsole(bench.browser, bench.running.url, { bypassCSP: true });
});
after(() => bench?.close());

/** The few DOM globals the page-side functions use (the tests compile without the DOM library). */
interface Dom {
  document: { activeElement: unknown; documentElement: { scrollWidth: number } };
  getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string };
  innerWidth: number;
}
const isFocused = (element: unknown) => element === (globalThis as unknown as Dom).document.activeElement;

/** Is `target` the focused element, and does it show it (the :focus-visible outline)? */
async function focusShown(target: Locator): Promise<boolean> {
  return target.evaluate((element) => {
    const { document, getComputedStyle } = globalThis as unknown as Dom;
    if (element !== document.activeElement) return false;
    const style = getComputedStyle(element);
    return style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2;
  });
}

/** Presses Tab until `target` has the focus (at most `limit` times), checking it shows. */
async function tabTo(target: Locator, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate(isFocused)) {
      assert.ok(await focusShown(target), `focus on ${target} is visible`);
      return;
    }
  }
  assert.fail(`Tab never reached ${target}`);
}

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** axe-core's WCAG 2.1 A and AA violations on the page as it is now. */
async function violations(): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE);
  const found = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)`,
  )) as AxeViolation[];
  return found.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.help}) at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`),
  );
}

async function audit(view: string): Promise<void> {
  for (const theme of ['light', 'dark']) {
    await page.getByRole('combobox', { name: 'Theme' }).selectOption(theme);
    assert.deepEqual(await violations(), [], `${view}, ${theme} theme`);
  }
  await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
}

test('keyboard only: connect, choose a tool, fill its form, call it, read the result', async () => {
  await page.locator('body').focus();
  await tabTo(page.getByRole('radio', { name: 'stdio command' }));
  await page.keyboard.press('ArrowDown');
  assert.ok(await page.getByRole('radio', { name: 'HTTP URL' }).isChecked());
  await tabTo(page.getByRole('textbox', { name: 'Endpoint URL' }));
  await page.keyboard.type(mcp.url);
  await page.keyboard.press('Enter');
  await page.getByRole('region', { name: 'Server' }).getByText('Streamable HTTP').waitFor();
  await tabTo(page.getByRole('button', { name: /^Echo echo/ }));
  await page.keyboard.press('Enter');
  const form = page.getByRole('form', { name: 'Call echo' });
  await tabTo(form.getByRole('textbox', { name: /^text/ }));
  await page.keyboard.type('typed, not clicked');
  await tabTo(form.getByRole('checkbox', { name: /shout/ }));
  await page.keyboard.press('Space');
  await tabTo(form.getByRole('button', { name: 'Call echo' }));
  await page.keyboard.press('Enter');
  const result = page.getByRole('region', { name: 'Result' });
  await result.getByText('TYPED, NOT CLICKED', { exact: true }).waitFor();
  // The focus is not lost to the page's top when the call ends.
  assert.notEqual(await page.evaluate('document.activeElement?.tagName'), 'BODY');
  // The tabs move with the arrow keys.
  await page.getByRole('tab', { name: 'Tools' }).focus();
  await page.keyboard.press('ArrowRight');
  assert.ok(await focusShown(page.getByRole('tab', { name: 'Resources' })));
  assert.equal(await page.getByRole('tab', { name: 'Resources' }).getAttribute('aria-selected'), 'true');
});

test('axe-core: no WCAG A/AA violation in any view, light and dark', async () => {
  // The audit can fail: a field without a label, added for a moment, is found.
  await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<input id="unlabelled-probe">')`);
  assert.match((await violations()).join('\n'), /^label \(.*#unlabelled-probe/m);
  await page.evaluate(`document.getElementById('unlabelled-probe').remove()`);
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('button', { name: /^Echo echo/ }).click();
  await page.getByRole('button', { name: 'Call echo' }).click();
  await page.getByRole('form', { name: 'Call echo' }).getByRole('alert').first().waitFor();
  await audit('a tool form with a validation message');
  await page.getByRole('button', { name: /^Logo logo/ }).click();
  await page.getByRole('button', { name: 'Call logo' }).click();
  await page.getByRole('region', { name: 'Result' }).getByRole('img').waitFor();
  await audit('a tool result');
  for (const tab of ['Resources', 'Prompts', 'History', 'Trace', 'Logs', 'Check']) {
    await page.getByRole('tab', { name: tab }).click();
    await page.getByRole('tabpanel').waitFor();
    await audit(`the ${tab} tab`);
  }
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('button', { name: /^Book a table book_table/ }).click();
  await page.getByRole('button', { name: 'Call book_table' }).click();
  await page.getByRole('dialog').getByRole('textbox', { name: /^Name/ }).waitFor();
  await audit('an elicitation dialog');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
});

test('360 px wide: nothing scrolls sideways and axe finds nothing, light and dark', async () => {
  await page.setViewportSize({ width: 360, height: 780 });
  for (const tab of ['Tools', 'Trace', 'Check']) {
    await page.getByRole('tab', { name: tab }).click();
    assert.ok(
      await page.evaluate('document.documentElement.scrollWidth <= innerWidth'),
      `the ${tab} tab fits 360 px`,
    );
    await audit(`the ${tab} tab at 360 px`);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
});

/** What the console's browser tests do on the page: open it, connect from its form, take screenshots. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { type RunningConsole, serveConsole } from '../../src/console.js';
import { createHttpHandler, type Server } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { launchChromium } from '../helpers/chromium.js';

/** What a browser test file shares: one browser, one console, its page, and maybe an MCP server. */
export interface Bench {
  readonly browser: Browser;
  readonly running: RunningConsole;
  readonly page: Page;
  /** `server` served over loopback HTTP, when one was given. */
  readonly mcp: RunningServer | undefined;
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startBench(server?: Server): Promise<Bench> {
  const shots = screenshots();
  const [browser, running, mcp] = await Promise.all([
    launchChromium(),
    serveConsole({ port: 0 }),
    server ? serve(createHttpHandler(server), { port: 0 }) : undefined,
  ]);
  const page = await openConsole(browser, running.url);
  return {
    browser,
    running,
    page,
    mcp,
    shot: (name) => shots.shot(page, name),
    async close() {
      await browser.close();
      await running.close();
      await mcp?.close();
      shots.done();
    },
  };
}

/** A fresh page on the console at `url`; a script error on it fails the test. */
export async function openConsole(
  browser: Browser,
  url: string,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    colorScheme: 'light',
    ...options,
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => assert.fail(`the page threw: ${error.message}`));
  await page.goto(url);
  return page;
}

/** Connects from the page's "New connection" form; `protocol` is the form's Protocol choice (value). */
export async function connectFrom(
  page: Page,
  kind: 'stdio' | 'http',
  target: string,
  protocol = 'auto',
): Promise<void> {
  await page.getByRole('radio', { name: kind === 'stdio' ? 'stdio command' : 'HTTP URL' }).check();
  await page.getByRole('textbox', { name: kind === 'stdio' ? 'Command' : 'Endpoint URL' }).fill(target);
  await page.getByRole('combobox', { name: 'Protocol' }).selectOption(protocol);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
}

/**
 * Where screenshots go: a temporary folder, or $CONSOLE_SCREENSHOTS
 * (`CONSOLE_SCREENSHOTS=docs/console node scripts/test.js console/browser` refreshes the ones
 * docs/console.md shows). `shot(page, name)` takes one of the view from its top.
 */
export function screenshots(): { shot(page: Page, name: string): Promise<void>; done(): void } {
  const keep = process.env.CONSOLE_SCREENSHOTS !== undefined;
  const folder = keep
    ? resolve(process.env.CONSOLE_SCREENSHOTS!)
    : mkdtempSync(join(tmpdir(), 'console-shots-'));
  mkdirSync(folder, { recursive: true });
  return {
    async shot(page, name) {
      // A click may have scrolled the page.
      await page.evaluate('scrollTo(0, 0)');
      await page.screenshot({ path: join(folder, `${name}.png`) });
    },
    done() {
      if (!keep) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * The console in a real browser: Debian's chromium driven by playwright-core (which downloads no
 * browser; .ci/run installs chromium). One browser for the whole file. The page connects to the
 * example server over stdio and HTTP from its own form, calls tools through generated forms, shows
 * an image, answers an elicitation, traces, cancels a long call, completes a resource template and
 * runs the checker; and a page without the token, or on another origin, gets nowhere.
 *
 * Screenshots of the main views are taken on the way (see screenshots() in page.ts).
 */
import assert from 'node:assert/strict';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createExampleServer } from '../../examples/server.js';
import type { RunningConsole } from '../../src/console.js';
import type { RunningServer } from '../../src/node.js';
import { api, EXAMPLE_SERVER } from './helpers.js';
import { type Bench, connectFrom, startBench } from './page.js';

let bench: Bench;
let browser: Browser;
let page: Page;
let running: RunningConsole;
let mcp: RunningServer;

before(async () => {
  bench = await startBench(createExampleServer());
  ({ browser, page, running } = bench);
  mcp = bench.mcp!;
});
after(() => bench?.close());

const connect = (kind: 'stdio' | 'http', target: string) => connectFrom(page, kind, target);
const shot = (name: string) => bench.shot(name);

const result = () => page.getByRole('region', { name: 'Result' });

test('connects over stdio from its form and shows the negotiated connection', async () => {
  await connect('stdio', `${JSON.stringify(process.execPath)} ${JSON.stringify(EXAMPLE_SERVER)} --stdio`);
  const server = page.getByRole('region', { name: 'Server' });
  await server.getByRole('heading', { name: /Switchboard Example 1\.0\.0/ }).waitFor();
  await server.getByText('protocol 2026-07-28').waitFor();
  await server.getByText('modern era').waitFor();
  await server.getByText(/negotiated in \d+ ms/).waitFor();
  await server.getByText(/Notes live under notes:\/\/\{id\}/).waitFor();
});

test('calls a tool through the form generated from its inputSchema, checking it before sending', async () => {
  await page.getByRole('button', { name: /^Echo echo/ }).click();
  const form = page.getByRole('form', { name: 'Call echo' });
  await form.getByRole('button', { name: 'Call echo' }).click();
  // `text` is required: the form says so and sends nothing.
  await form.getByRole('alert').filter({ hasText: 'Required.' }).waitFor();
  await form.getByRole('textbox', { name: /^text/ }).fill('hello console');
  await form.getByRole('checkbox', { name: /shout/ }).check();
  await form.getByRole('button', { name: 'Call echo' }).click();
  await result().getByText('HELLO CONSOLE', { exact: true }).waitFor();
  // The raw JSON editor carries the same arguments.
  await form.getByRole('button', { name: 'JSON', exact: true }).click();
  const raw = JSON.parse(await form.getByLabel('Arguments (JSON object)').inputValue());
  assert.deepEqual(raw, { text: 'hello console', shout: true });
});

test('renders an image result as an image', async () => {
  await page.getByRole('button', { name: /^Logo logo/ }).click();
  await page.getByRole('button', { name: 'Call logo' }).click();
  const image = result().getByRole('img', { name: 'Tool result (image/png)' });
  await image.waitFor();
  assert.equal(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), 16);
  await shot('tools');
});

test('cancels a long call: progress shows, Cancel stops it', async () => {
  await page.getByRole('button', { name: /^Wait wait/ }).click();
  const form = page.getByRole('form', { name: 'Call wait' });
  await form.getByRole('spinbutton', { name: /^seconds/ }).fill('300');
  await form.getByRole('button', { name: 'Call wait' }).click();
  await form.locator('progress').waitFor();
  await form.getByText(/of 300 s/).waitFor();
  await form.getByRole('button', { name: 'Cancel' }).click();
  await result().getByRole('alert').filter({ hasText: 'ABORTED' }).waitFor();
});

test('the history replays a call or opens it in the form; a deep link opens a tool', async () => {
  await page.getByRole('tab', { name: 'History' }).click();
  const history = page.getByRole('region', { name: 'History' });
  // Newest first: the cancelled wait, then logo, then echo.
  await history.getByRole('row').nth(1).getByRole('cell', { name: 'wait', exact: true }).waitFor();
  await history.getByRole('button', { name: 'Replay echo' }).click();
  await history.getByRole('region', { name: 'Result' }).getByText('HELLO CONSOLE', { exact: true }).waitFor();
  await history.getByRole('button', { name: 'Edit echo' }).first().click();
  const form = page.getByRole('form', { name: 'Call echo' });
  assert.equal(await form.getByRole('textbox', { name: /^text/ }).inputValue(), 'hello console');
  assert.match(page.url(), /#\/c1\/tools\/echo$/);
  // The link to another tool, opened afresh, shows that tool.
  await page.goto(page.url().replace(/echo$/, 'logo'));
  await page.getByRole('form', { name: 'Call logo' }).waitFor();
});

test('connects over HTTP and answers an elicitation form the server sends during a call', async () => {
  await connect('http', mcp.url);
  await page.getByRole('region', { name: 'Server' }).getByText('Streamable HTTP').waitFor();
  await page.getByRole('button', { name: /^Book a table book_table/ }).click();
  await page.getByRole('button', { name: 'Call book_table' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Booking at Chez MCP: who is coming?').waitFor();
  await dialog.getByRole('textbox', { name: /^Name/ }).fill('Ada');
  await dialog.getByRole('spinbutton', { name: /^Guests/ }).fill('3');
  await dialog.getByRole('combobox', { name: /^Seating/ }).selectOption({ label: 'terrace' });
  await shot('elicitation');
  await dialog.getByRole('button', { name: 'Submit' }).click();
  await result().getByText('Booked a table for 3 at Chez MCP under Ada, terrace.', { exact: true }).waitFor();
  // Answered questions leave the page (the console's event stream says so).
  await dialog.waitFor({ state: 'hidden' });
});

test('the trace shows the messages both ways, filtered by search', async () => {
  await page.getByRole('tab', { name: 'Trace' }).click();
  const trace = page.getByRole('region', { name: 'Trace' });
  await trace.getByRole('button', { name: 'tools/call' }).first().waitFor();
  await trace.getByRole('cell', { name: 'sent', exact: true }).first().waitFor();
  await trace.getByRole('cell', { name: 'received', exact: true }).first().waitFor();
  await trace.getByRole('searchbox').fill('who is coming');
  await trace.getByText(/^[1-9]\d* of \d+ messages$/).waitFor();
  // The question travels inside a message (a 2026-07-28 input_required result over HTTP): open it.
  await trace.locator('tbody tr').last().getByRole('button').click();
  await trace.getByText('"input_required"').waitFor();
  await page.getByLabel('Theme').selectOption('dark');
  await shot('trace-dark');
  await page.getByLabel('Theme').selectOption('light');
});

test('reads a templated resource whose field completes as it is typed', async () => {
  await page.getByRole('tab', { name: 'Resources' }).click();
  await page.getByRole('button', { name: /^Note notes:\/\/\{id\}/ }).click();
  const form = page.getByRole('form', { name: 'Read note' });
  await form.getByRole('combobox', { name: 'id' }).fill('gr');
  await form.getByRole('button', { name: 'groceries' }).click();
  await form.getByText('notes://groceries').waitFor();
  await form.getByRole('button', { name: 'Read' }).click();
  await page.getByRole('heading', { name: 'Read notes://groceries' }).waitFor();
  await shot('resources');
});

test('runs switchboard check on the connected server and shows its report', async () => {
  await page.getByRole('tab', { name: 'Check' }).click();
  const form = page.getByRole('form', { name: 'Run a check' });
  // The revision the connection negotiated is chosen; one revision keeps the check short.
  assert.equal(await form.getByRole('combobox', { name: 'Revisions' }).inputValue(), '2026-07-28');
  await form.getByRole('button', { name: 'Run check' }).click();
  const report = page.getByRole('region', { name: 'Check report' });
  await report.getByText(/^\d+\/100$/).waitFor({ timeout: 45_000 });
  await report.getByText('2026-07-28 spoken').waitFor();
  await report.getByText(/^\d+ passed$/).waitFor();
  assert.ok(Number((await report.getByText(/^\d+ passed$/).textContent())!.split(' ')[0]) > 10);
  await shot('check');
});

test('reads narrow: one column on a phone-sized screen', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('tab', { name: 'Tools' }).click();
  const side = await page.getByRole('complementary', { name: 'Connections' }).boundingBox();
  const main = await page.getByRole('main').boundingBox();
  assert.ok(side && main && main.y >= side.y + side.height - 1, 'the connections sit above the main view');
  await shot('narrow');
  await page.setViewportSize({ width: 1280, height: 860 });
});

test('without the token, the browser gets a refusal and no page', async () => {
  const other = await browser.newPage();
  try {
    const response = await other.goto(running.origin);
    assert.equal(response?.status(), 401);
    assert.match(await other.content(), /needs its token/);
  } finally {
    await other.close();
  }
});

test('a page on another origin cannot reach the API, even knowing the token', async () => {
  // The attacker's page, on another port of the same machine (another origin), tries both a
  // readable request and a blind "simple" POST that would start a program.
  const evil: HttpServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise<void>((done) => evil.listen(0, '127.0.0.1', done));
  const other = await browser.newPage();
  try {
    await other.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    const outcome = await other.evaluate(
      async ({ origin, token }) => {
        const tried: string[] = [];
        try {
          await fetch(`${origin}/api/connections?token=${token}`);
          tried.push('read: answered');
        } catch {
          tried.push('read: blocked');
        }
        const blind = await fetch(`${origin}/api/connections?token=${token}`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ kind: 'stdio', command: 'evil-marker-program' }),
        });
        tried.push(`blind: ${blind.type}`);
        return tried;
      },
      { origin: running.origin, token: running.token },
    );
    assert.deepEqual(outcome, ['read: blocked', 'blind: opaque']);
    const { connections } = (await api(running.origin, running.token)('GET', '/api/connections')).json();
    assert.ok(
      connections.every((c: { label: string }) => !c.label.includes('evil-marker-program')),
      'the blind POST created nothing',
    );
  } finally {
    await other.close();
    await new Promise((done) => evil.close(done));
  }
});

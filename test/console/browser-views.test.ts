/**
 * The console in a real browser (see browser.test.ts), for what the other files do not show: three
 * connections side by side (stdio, Streamable HTTP and the legacy HTTP+SSE transport), tools' icons
 * and annotations, every kind of result (structured content checked against the outputSchema,
 * isError, audio, resource links that open, embedded resources, markdown), prompts with completed
 * arguments rendered as messages, the trace's timing, direction filter and copy as JSON, logs with
 * their level, a deep link to a resource; and all along, the page asks nothing of any other origin.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createExampleServer } from '../../examples/server.js';
import type { RunningConsole } from '../../src/console.js';
import type { RunningServer } from '../../src/node.js';
import { EXAMPLE_SERVER } from './helpers.js';
import { type Bench, connectFrom, startBench } from './page.js';

/** The example server, plus a server that breaks its own promise: `add` of 13 answers a string sum. */
function lyingExampleServer() {
  const server = createExampleServer();
  server.use((next) => async (method, params, ctx) => {
    const result = await next(method, params, ctx);
    const call = params as { name?: string; arguments?: { a?: unknown } };
    return method === 'tools/call' && call.name === 'add' && call.arguments?.a === 13
      ? { ...(result as object), structuredContent: { sum: 'thirteen' } }
      : result;
  });
  return server;
}

let bench: Bench;
let page: Page;
let running: RunningConsole;
let mcp: RunningServer;
/** Every URL the page asked for, and every load its Content-Security-Policy refused. */
const requested: string[] = [];

before(async () => {
  bench = await startBench(lyingExampleServer());
  ({ page, running } = bench);
  mcp = bench.mcp!;
  page.context().on('request', (request) => requested.push(request.url()));
  await page.addInitScript({
    content:
      'globalThis.cspViolations = []; addEventListener("securitypolicyviolation", ' +
      '(e) => globalThis.cspViolations.push(e.violatedDirective + " " + e.blockedURI));',
  });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: running.origin });
  // From the first request on, under the listeners.
  await page.reload();
});
after(() => bench?.close());

const result = () => page.getByRole('region', { name: 'Result' });
const connections = () => page.getByRole('complementary', { name: 'Connections' }).getByRole('listitem');

async function chooseTool(title: string, name: string) {
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('button', { name: new RegExp(`^${title} ${name}`) }).click();
  return page.getByRole('form', { name: `Call ${name}` });
}

test('three connections side by side: stdio, Streamable HTTP and legacy HTTP+SSE', async () => {
  await connectFrom(
    page,
    'stdio',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(EXAMPLE_SERVER)} --stdio`,
  );
  await connections().filter({ hasText: 'open · stdio' }).waitFor();
  await connectFrom(page, 'http', new URL('/sse', mcp.url).href);
  await connections().filter({ hasText: 'open · HTTP+SSE' }).waitFor();
  const server = page.getByRole('region', { name: 'Server' });
  await server.getByText('HTTP+SSE', { exact: true }).waitFor();
  await server.getByText('legacy era').waitFor();
  await connectFrom(page, 'http', mcp.url);
  await connections().filter({ hasText: 'open · Streamable HTTP' }).waitFor();
  await server.getByText('protocol 2026-07-28').waitFor();
  assert.equal(await connections().count(), 3);
  // Each stays open and can be chosen again.
  await connections().filter({ hasText: 'HTTP+SSE' }).getByRole('button').click();
  await server.getByText('HTTP+SSE', { exact: true }).waitFor();
  await connections().filter({ hasText: 'Streamable HTTP' }).getByRole('button').click();
  await server.getByText('protocol 2026-07-28').waitFor();
});

test('tools show their icons and annotations', async () => {
  const form = await chooseTool('Echo', 'echo');
  const icon = page.getByRole('button', { name: /^Echo echo/ }).locator('img.icon');
  await icon.waitFor();
  assert.match((await icon.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
  assert.equal(await icon.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), 16);
  for (const badge of ['read-only', 'idempotent']) await form.getByText(badge, { exact: true }).waitFor();
  assert.equal(await form.getByText('open world', { exact: true }).count(), 0);
});

test('structured content is checked against the outputSchema: a match is shown, a mismatch is an error', async () => {
  const form = await chooseTool('Add', 'add');
  await form.getByRole('spinbutton', { name: /^a/ }).fill('2');
  await form.getByRole('spinbutton', { name: /^b/ }).fill('3');
  await form.getByRole('button', { name: 'Call add' }).click();
  await result().getByText('matches outputSchema').waitFor();
  await result()
    .getByText(/^\{\s*"sum": 5\s*\}$/)
    .waitFor();
  await form.getByRole('spinbutton', { name: /^a/ }).fill('13');
  await form.getByRole('button', { name: 'Call add' }).click();
  await result().getByRole('alert').filter({ hasText: 'does not match its outputSchema' }).waitFor();
});

test('an isError result is shown as an error, with what the tool said', async () => {
  const form = await chooseTool('Divide', 'divide');
  await form.getByRole('spinbutton', { name: /^a/ }).fill('1');
  await form.getByRole('spinbutton', { name: /^b/ }).fill('0');
  await form.getByRole('button', { name: 'Call divide' }).click();
  await result().getByRole('alert').filter({ hasText: 'The tool reported an error (isError).' }).waitFor();
  await result().getByText('Cannot divide by zero: pass a non-zero b.', { exact: true }).waitFor();
});

test('an audio result plays in the page', async () => {
  const form = await chooseTool('Beep', 'beep');
  await form.getByRole('button', { name: 'Call beep' }).click();
  const audio = result().locator('audio');
  await audio.waitFor();
  // The browser decoded the WAV: it knows how long it lasts.
  const seconds = await audio.evaluate(
    (element) =>
      new Promise<number>((resolve) => {
        const media = element as unknown as {
          readyState: number;
          duration: number;
          addEventListener(name: string, f: () => void): void;
        };
        if (media.readyState >= 1) resolve(media.duration);
        else media.addEventListener('loadedmetadata', () => resolve(media.duration));
      }),
  );
  assert.ok(seconds > 0 && Number.isFinite(seconds), `duration ${seconds}`);
});

test('resource links open; embedded resources show their contents', async () => {
  let form = await chooseTool('Find notes', 'find_notes');
  await form.getByRole('textbox', { name: /^query/ }).fill('milk');
  await form.getByRole('button', { name: 'Call find_notes' }).click();
  const link = result().locator('.link').filter({ hasText: 'notes://groceries' });
  await link.getByRole('button', { name: 'Open' }).click();
  await page.getByRole('heading', { name: 'Read notes://groceries' }).waitFor();
  await page.getByRole('tab', { name: 'Resources', selected: true }).waitFor();
  await page.getByRole('region', { name: 'Resource' }).getByText(/milk/i).first().waitFor();

  form = await chooseTool('Read a note', 'read_note');
  await form.getByRole('textbox', { name: /^id/ }).fill('groceries');
  await form.getByRole('button', { name: 'Call read_note' }).click();
  const embedded = result().locator('.embedded');
  await embedded.getByText('embedded', { exact: true }).waitFor();
  await embedded.getByText('notes://groceries').waitFor();
  await embedded.getByText(/milk/i).waitFor();
});

test('markdown contents are rendered as markdown; a deep link reads a resource', async () => {
  const link = `${page.url().replace(/#.*$/, '')}#/c3/resources/${encodeURIComponent('docs://readme')}`;
  await page.goto(link);
  const view = page.getByRole('region', { name: 'Resource' });
  await view.getByRole('heading', { name: 'Read docs://readme' }).waitFor();
  await view.getByRole('heading', { name: 'Switchboard example server', level: 4 }).waitFor();
  await view.locator('.markdown code', { hasText: 'find_notes' }).waitFor();
  assert.doesNotMatch((await view.locator('.markdown').textContent()) ?? '', /#|`/);
  await bench.shot('markdown');
});

test('a prompt with completed arguments, rendered as the messages a model would get', async () => {
  await page.getByRole('tab', { name: 'Prompts' }).click();
  await page.getByRole('button', { name: /^Summarize a note summarize_note/ }).click();
  const form = page.getByRole('form', { name: 'Get summarize_note' });
  await form.getByRole('combobox', { name: /^Note/ }).fill('gr');
  await form.getByRole('button', { name: 'groceries' }).click();
  await form.getByRole('combobox', { name: /^Style/ }).fill('de');
  await form.getByRole('button', { name: 'detailed' }).click();
  await form.getByRole('button', { name: 'Get prompt' }).click();
  const messages = form.getByRole('region', { name: 'Messages' }).getByRole('listitem');
  await messages.first().getByText('Summarize this note in a detailed style.').waitFor();
  assert.equal(await messages.count(), 2);
  await messages.nth(0).getByText('user', { exact: true }).waitFor();
  await messages.nth(1).getByText('user', { exact: true }).waitFor();
  await messages.nth(1).getByText('notes://groceries').waitFor();
  await bench.shot('prompt');
});

test("the Skills tab lists the example's skill, renders its SKILL.md safely and browses its files, each read verified", async () => {
  await page.getByRole('tab', { name: 'Skills' }).click();
  await page.getByRole('button', { name: /^notes-research skill:\/\/notes-research\/SKILL\.md/ }).click();
  const skill = page.getByRole('region', { name: 'Skill' });
  const file = skill.getByRole('region', { name: 'File' });
  // SKILL.md through the Markdown renderer, its frontmatter left out of the text.
  await file.getByRole('heading', { name: 'Researching the notes' }).waitFor();
  await file.locator('.markdown code', { hasText: 'find_notes' }).waitFor();
  assert.doesNotMatch((await file.textContent()) ?? '', /name: notes-research|#|`/);
  await skill
    .getByRole('list', { name: 'Files' })
    .getByRole('button', { name: /references\/note-format\.md/ })
    .click();
  await file.getByRole('heading', { name: 'The notes' }).waitFor();
  await bench.shot('skills');
});

test('logs arrive at the level chosen', async () => {
  await page.getByRole('tab', { name: 'Logs' }).click();
  const logs = page.getByRole('region', { name: 'Logs' });
  await logs.getByRole('combobox', { name: 'Level' }).selectOption('error');
  const count = async (n: number) => {
    const form = await chooseTool('Count', 'count');
    await form.getByRole('spinbutton', { name: /^n/ }).fill(String(n));
    await form.getByRole('button', { name: 'Call count' }).click();
    await result().getByText(`Counted to ${n}.`, { exact: true }).waitFor();
    await page.getByRole('tab', { name: 'Logs' }).click();
  };
  // The messages of a call travel before its result: once the result shows, they would be here.
  await count(2);
  assert.equal(await logs.getByRole('listitem').count(), 0);
  await logs.getByRole('combobox', { name: 'Level' }).selectOption('info');
  await count(3);
  await logs.getByRole('listitem').filter({ hasText: '{"step":3}' }).waitFor();
  assert.equal(await logs.getByRole('listitem').filter({ hasText: 'info' }).count(), 3);
});

test('the trace times each message, filters by direction and copies what it shows as JSON', async () => {
  await page.getByRole('tab', { name: 'Trace' }).click();
  const trace = page.getByRole('region', { name: 'Trace' });
  await trace.getByRole('columnheader', { name: '+ms' }).waitFor();
  const times = await trace.locator('tbody td.num').allTextContents();
  assert.ok(times.length > 10 && times.every((t) => /^\d+$/.test(t)), `times: ${times.join(' ')}`);
  assert.deepEqual(
    times.map(Number),
    times.map(Number).sort((a, b) => a - b),
    'in order',
  );
  await trace.getByRole('combobox', { name: 'Direction' }).selectOption({ label: 'received' });
  await trace.getByRole('searchbox').fill('counted to 3');
  await trace.getByText(/^1 of \d+ messages$/).waitFor();
  await trace.getByRole('button', { name: 'Copy shown as JSON' }).click();
  const copied = JSON.parse(await page.evaluate<string>('navigator.clipboard.readText()')) as {
    at: string;
    direction: string;
    message: { result?: { content?: { text?: string }[] } };
  }[];
  assert.equal(copied.length, 1);
  assert.equal(copied[0]!.direction, 'in');
  assert.ok(!Number.isNaN(Date.parse(copied[0]!.at)));
  assert.equal(copied[0]!.message.result?.content?.[0]?.text, 'Counted to 3.');
});

test('no network: the page asked only its own origin for anything, and its policy refused nothing', async () => {
  assert.ok(requested.length > 5, 'the page was watched');
  const elsewhere = requested.filter(
    (url) => !url.startsWith(`${running.origin}/`) && !url.startsWith('data:'),
  );
  assert.deepEqual(elsewhere, []);
  assert.deepEqual(await page.evaluate('globalThis.cspViolations'), []);
});

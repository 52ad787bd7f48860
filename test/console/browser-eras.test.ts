/**
 * The console in a real browser (see browser.test.ts), for what a server asks of the person and
 * what it pushes, in both eras against one server: a 2026-07-28 connection (`input_required`
 * rounds, `subscriptions/listen`) and a legacy one (server→client requests, `resources/subscribe`).
 * The person writes a sampling reply, fills an elicitation form with every field kind, sets the
 * roots the server reads, answers URL-mode elicitations (a question during a call, and
 * a call that needs a link followed first), and follows a resource whose updates arrive live.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { Server } from '../../src/index.js';
import type { RunningServer } from '../../src/node.js';
import type { SamplingContent } from '../../src/protocol/types.js';
import { type Bench, connectFrom, startBench } from './page.js';

const COUNTER = 'counter://clicks';

/** Every field kind of the spec's elicitation schema (2025-11-25): strings and their formats, numbers, booleans, single and multiple choices. */
const EVERY_FIELD_KIND = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    email: { type: 'string', title: 'Email', format: 'email' },
    website: { type: 'string', title: 'Website', format: 'uri' },
    birthday: { type: 'string', title: 'Birthday', format: 'date' },
    meeting: { type: 'string', title: 'Meeting', format: 'date-time' },
    age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
    height: { type: 'number', title: 'Height', description: 'in metres' },
    newsletter: { type: 'boolean', title: 'Newsletter', default: false },
    colour: { type: 'string', title: 'Colour', enum: ['red', 'green'] },
    size: {
      type: 'string',
      title: 'Size',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    plan: { type: 'string', title: 'Plan', enum: ['basic', 'pro'], enumNames: ['Basic plan', 'Pro plan'] },
    days: { type: 'array', title: 'Days', items: { type: 'string', enum: ['mon', 'tue', 'wed'] } },
    toppings: {
      type: 'array',
      title: 'Toppings',
      items: {
        anyOf: [
          { const: 'ham', title: 'Ham' },
          { const: 'egg', title: 'Egg' },
        ],
      },
    },
  },
  required: ['name', 'email'],
} as const;

/** A server that asks the person things and has one resource that changes. */
function questioningServer() {
  const server = new Server({ name: 'questions', version: '1.0.0', title: 'Questions' });
  let clicks = 0;
  const linked = new Set<string>();
  server.registerTool(
    'draft',
    { title: 'Draft', description: 'Asks the model for one line.' },
    async (_a, ctx) => {
      const reply = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'Write one line about switchboards.' } }],
        maxTokens: 60,
      });
      const blocks: SamplingContent[] = Array.isArray(reply.content) ? reply.content : [reply.content];
      return `${reply.model} wrote: ${blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('')}`;
    },
  );
  server.registerTool(
    'consent',
    { title: 'Consent', description: 'Asks to open a page.' },
    async (_a, ctx) => {
      const answer = await ctx.elicit({
        mode: 'url',
        message: 'Open the consent page to continue.',
        url: 'https://example.com/consent?from=console',
      });
      return `consent: ${answer.action}`;
    },
  );
  server.registerTool(
    'lure',
    { title: 'Lure', description: 'Asks to open a page over plain http on another host.' },
    async (_a, ctx) => {
      const answer = await ctx.elicit({
        mode: 'url',
        message: 'Open this page.',
        url: 'http://example.com/login',
      });
      return `lure: ${answer.action}`;
    },
  );
  server.registerTool(
    'link_account',
    { title: 'Link account', description: 'Needs a linked account.' },
    async (_a, ctx) => {
      const who = ctx.revision;
      if (!linked.has(who)) {
        // The person "follows the link" by accepting; the next attempt finds the account linked.
        linked.add(who);
        await ctx.requireUrlElicitation({
          message: 'Link your account first.',
          url: 'https://example.com/link',
        });
      }
      return 'linked';
    },
  );
  server.registerTool(
    'profile',
    { title: 'Profile', description: 'Asks for one field of every kind an elicitation can have.' },
    async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'Tell us about you.', requestedSchema: EVERY_FIELD_KIND });
      return JSON.stringify(answer.content);
    },
  );
  server.registerTool(
    'where',
    { title: 'Where', description: 'Lists the roots the client offers.' },
    async (_a, ctx) => `roots: ${(await ctx.listRoots()).map((root) => root.uri).join(' ')}`,
  );
  server.registerResource(
    'clicks',
    COUNTER,
    { title: 'Clicks', mimeType: 'text/plain' },
    () => `clicks: ${clicks}`,
  );
  return {
    server,
    bump() {
      clicks++;
      server.notifyResourceUpdated(COUNTER);
    },
  };
}

const fixture = questioningServer();
let bench: Bench;
let page: Page;
let mcp: RunningServer;

before(async () => {
  bench = await startBench(fixture.server);
  page = bench.page;
  mcp = bench.mcp!;
});
after(() => bench?.close());

const result = () => page.getByRole('region', { name: 'Result' });
const dialog = () => page.getByRole('dialog');

async function callTool(name: string, title: string): Promise<void> {
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('button', { name: new RegExp(`^${title} ${name}`) }).click();
  await page.getByRole('button', { name: `Call ${name}` }).click();
}

for (const era of ['modern', 'legacy'] as const) {
  describe(`${era} era`, () => {
    test('connects', async () => {
      await connectFrom(page, 'http', mcp.url, era === 'modern' ? 'auto' : 'legacy');
      const server = page.getByRole('region', { name: 'Server' });
      await server.getByText(`${era} era`).waitFor();
      await server.getByText(era === 'modern' ? 'protocol 2026-07-28' : 'protocol 2025-11-25').waitFor();
    });

    test('sampling: the person reads the request, writes the reply and names the model', async () => {
      await callTool('draft', 'Draft');
      await dialog().getByRole('heading', { name: 'A model reply is requested (sampling)' }).waitFor();
      await dialog().getByText('Write one line about switchboards.').waitFor();
      await dialog().getByText('at most 60 tokens').waitFor();
      await dialog().getByRole('textbox', { name: 'Reply' }).fill('Every call finds its line.');
      await dialog().getByRole('textbox', { name: 'Model name' }).fill('ada-by-hand');
      if (era === 'modern') await bench.shot('sampling');
      await dialog().getByRole('button', { name: 'Send reply' }).click();
      await result().getByText('ada-by-hand wrote: Every call finds its line.', { exact: true }).waitFor();
      await dialog().waitFor({ state: 'hidden' });
    });

    test('an elicitation with every field kind: checked before sending, answered with typed values', async () => {
      await callTool('profile', 'Profile');
      const form = dialog();
      await form.getByText('Tell us about you.').waitFor();
      await form.getByRole('textbox', { name: /^Name/ }).fill('A');
      await form.getByRole('textbox', { name: /^Email/ }).fill('not an address');
      await form.getByRole('textbox', { name: /^Meeting/ }).fill('tomorrow');
      await form.getByRole('button', { name: 'Submit' }).click();
      // Checked in the page: nothing is sent until every field is right.
      await form.getByRole('alert').filter({ hasText: 'At least 2 characters.' }).waitFor();
      await form.getByRole('alert').filter({ hasText: 'Enter an email address.' }).waitFor();
      await form.getByRole('alert').filter({ hasText: 'like 2026-11-28T09:30:00Z' }).waitFor();
      await form.getByRole('textbox', { name: /^Name/ }).fill('Ada');
      await form.getByRole('textbox', { name: /^Email/ }).fill('ada@example.com');
      await form.getByRole('textbox', { name: /^Website/ }).fill('https://ada.example');
      await form.getByLabel(/^Birthday/).fill('1815-12-10');
      await form.getByRole('textbox', { name: /^Meeting/ }).fill('2026-11-28T09:30:00Z');
      await form.getByRole('spinbutton', { name: /^Age/ }).fill('36');
      await form.getByRole('spinbutton', { name: /^Height/ }).fill('1.65');
      await form.getByRole('checkbox', { name: /^Newsletter/ }).check();
      await form.getByRole('combobox', { name: /^Colour/ }).selectOption({ label: 'green' });
      await form.getByRole('combobox', { name: /^Size/ }).selectOption({ label: 'Large' });
      await form.getByRole('combobox', { name: /^Plan/ }).selectOption({ label: 'Pro plan' });
      const days = form.getByRole('group', { name: /^Days/ });
      await days.getByRole('checkbox', { name: 'tue' }).check();
      await days.getByRole('checkbox', { name: 'wed' }).check();
      await form
        .getByRole('group', { name: /^Toppings/ })
        .getByRole('checkbox', { name: 'Egg' })
        .check();
      await form.getByRole('button', { name: 'Submit' }).click();
      const answer = result().locator('pre.text');
      await answer.waitFor();
      assert.deepEqual(JSON.parse((await answer.textContent()) ?? ''), {
        name: 'Ada',
        email: 'ada@example.com',
        website: 'https://ada.example',
        birthday: '1815-12-10',
        meeting: '2026-11-28T09:30:00Z',
        age: 36,
        height: 1.65,
        newsletter: true,
        colour: 'green',
        size: 'l',
        plan: 'pro',
        days: ['tue', 'wed'],
        toppings: ['egg'],
      });
      await dialog().waitFor({ state: 'hidden' });
    });

    test('roots set in the page are what the server gets when it asks', async () => {
      const server = page.getByRole('region', { name: 'Server' });
      await server.getByText('Capabilities and roots').click();
      const root = `file:///work/${era}`;
      await server.getByRole('textbox', { name: /^Roots offered/ }).fill(`${root}\nfile:///tmp/shared`);
      await server.getByRole('button', { name: 'Set roots' }).click();
      await server.getByText('Capabilities and roots').click();
      await callTool('where', 'Where');
      await result().getByText(`roots: ${root} file:///tmp/shared`, { exact: true }).waitFor();
    });

    test('URL-mode elicitation during a call: the link shows, the person accepts', async () => {
      await callTool('consent', 'Consent');
      await dialog().getByRole('heading', { name: 'Open a link?' }).waitFor();
      await dialog().getByText('Open the consent page to continue.').waitFor();
      const link = dialog().getByRole('link', { name: 'Open in a new tab' });
      assert.equal(await link.getAttribute('href'), 'https://example.com/consent?from=console');
      assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
      await dialog().getByRole('button', { name: 'Accept' }).click();
      await result().getByText('consent: accept', { exact: true }).waitFor();
    });

    test('URL-mode elicitation to plain http elsewhere: shown as text with a note, never a link', async () => {
      await callTool('lure', 'Lure');
      await dialog().getByText('Open this page.').waitFor();
      await dialog().getByText('http://example.com/login', { exact: true }).waitFor();
      await dialog()
        .getByText(/only https addresses \(and http on this computer\) become links/)
        .waitFor();
      assert.equal(await dialog().getByRole('link').count(), 0);
      await dialog().getByRole('button', { name: 'Decline' }).click();
      await result().getByText('lure: decline', { exact: true }).waitFor();
    });

    test('URL-mode elicitation required before a call can run: accepted, the call succeeds', async () => {
      await callTool('link_account', 'Link account');
      await dialog().getByText('Link your account first.').waitFor();
      await dialog().getByRole('button', { name: 'Accept' }).click();
      await result().getByText('linked', { exact: true }).waitFor();
    });

    test('follows a resource: its updates arrive live and the contents read again; then stops', async () => {
      await page.getByRole('tab', { name: 'Resources' }).click();
      await page.getByRole('button', { name: new RegExp(`^Clicks ${COUNTER}`) }).click();
      const view = page.getByRole('region', { name: 'Resource' });
      const before = Number(
        /clicks: (\d+)/.exec((await view.getByText(/^clicks: \d+$/).textContent()) ?? '')?.[1],
      );
      await view.getByRole('button', { name: 'Follow updates' }).click();
      await view.getByText('following', { exact: true }).waitFor();
      fixture.bump();
      const updates = page.getByRole('region', { name: 'Resource updates' });
      await updates
        .getByRole('listitem')
        .filter({ hasText: `${COUNTER} changed` })
        .waitFor();
      await view.getByText(`clicks: ${before + 1}`, { exact: true }).waitFor();
      if (era === 'modern') await bench.shot('resource-updates');
      await view.getByRole('button', { name: 'Stop following' }).click();
      await view.getByRole('button', { name: 'Follow updates' }).waitFor();
      // The server was told: a legacy unsubscribe, or the listen request cancelled.
      await page.getByRole('tab', { name: 'Trace' }).click();
      const trace = page.getByRole('region', { name: 'Trace' });
      await trace
        .getByRole('button', { name: era === 'legacy' ? 'resources/unsubscribe' : 'notifications/cancelled' })
        .first()
        .waitFor();
    });
  });
}

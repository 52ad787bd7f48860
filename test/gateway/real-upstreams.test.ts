/**
 * The gateway in front of real servers: Switchboard's example server over stdio and over HTTP, the
 * official `@modelcontextprotocol/server-everything` over stdio (official SDK v1) and a server built
 * with the official SDK v2 over HTTP (2026-07-28). Five clients at once — the official v1 SDK, the
 * official v2 SDK (legacy and 2026-07-28), Switchboard's (legacy and 2026-07-28) — list, call, read,
 * complete, subscribe, and answer elicitation and sampling through it; each is asked only its own
 * questions.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createExampleServer } from '../../examples/server.js';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { type RunningServer, serve } from '../../src/node/serve.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { type RunningServer as OfficialServer, startV2 } from '../fixtures/http-official.js';
import { type StartedGateway, startGateway } from './helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/server.js', import.meta.url));
// The package has no main entry: its bin is dist/index.js.
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

type Content = { type: string; text?: string };
const textOf = (result: unknown): string =>
  ((result as { content: Content[] }).content ?? []).map((c) => c.text ?? `[${c.type}]`).join('');

/** `completion/complete` params for a prompt argument: the same in every SDK. */
const promptCompletion = (prompt: string, argument: string, value: string) => ({
  ref: { type: 'ref/prompt' as const, name: prompt },
  argument: { name: argument, value },
});

/** One downstream client, whichever SDK: what the test does with it, and the questions it was asked. */
interface Driver {
  readonly name: string;
  readonly era: 'legacy' | '2026-07-28';
  /** Messages of the elicitations and prompts of the samplings this client answered. */
  readonly asked: string[];
  tools(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<string>;
  read(uri: string): Promise<string>;
  completePrompt(prompt: string, argument: string, value: string): Promise<string[]>;
  resources(): Promise<string[]>;
  subscribe(uri: string): Promise<void>;
  close(): Promise<void>;
}

/** What every client answers: an elicitation with its name, a sampling with "sampled for <name>". */
const answers = (name: string, asked: string[]) => ({
  elicit: (message: string) => {
    asked.push(message);
    return { action: 'accept' as const, content: { name, guests: 2 } };
  },
  sample: (prompt: string) => {
    asked.push(prompt);
    return {
      role: 'assistant' as const,
      content: { type: 'text' as const, text: `sampled for ${name}` },
      model: 'test',
    };
  },
});

const promptText = (params: { messages: Array<{ content: unknown }> }) =>
  params.messages.map((m) => (m.content as { text?: string }).text ?? '').join(' ');

async function switchboard(url: string, name: string, era: 'legacy' | 'auto'): Promise<Driver> {
  const asked: string[] = [];
  const answer = answers(name, asked);
  const client = new Client({ name, version: '1.0.0' }, { version: era });
  client.onElicitation((params) => answer.elicit(params.message));
  client.onSampling((params) => answer.sample(promptText(params)));
  await client.connect(new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false }));
  const subscriptions: Array<{ close(): Promise<void> }> = [];
  return {
    name,
    era: client.era === 'modern' ? '2026-07-28' : 'legacy',
    asked,
    tools: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (tool, args) => textOf(await client.callTool(tool, args)),
    read: async (uri) => textOf({ content: (await client.readResource(uri)).contents }),
    completePrompt: async (prompt, argument, value) =>
      (await client.complete(promptCompletion(prompt, argument, value))).completion.values,
    resources: async () => (await client.listResources()).resources.map((r) => r.uri),
    subscribe: async (uri) => {
      const subscription = client.listen({ resourceSubscriptions: [uri] }, {});
      subscriptions.push(subscription);
      await subscription.acknowledged;
    },
    close: async () => {
      await Promise.all(subscriptions.map((s) => s.close()));
      await client.close();
    },
  };
}

/** The official clients share their method names (v1 and v2 alike). */
interface OfficialClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: Content[] }>;
  complete(params: unknown): Promise<{ completion: { values: string[] } }>;
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  subscribeResource(params: { uri: string }): Promise<unknown>;
  /** v2, 2026-07-28: a `subscriptions/listen` stream. */
  listen?(filter: { resourceSubscriptions: string[] }): Promise<{ close(): Promise<void> | void }>;
  close(): Promise<void>;
}

function official(client: OfficialClient, name: string, era: Driver['era'], asked: string[]): Driver {
  const streams: Array<{ close(): Promise<void> | void }> = [];
  return {
    name,
    era,
    asked,
    tools: async () => (await client.listTools()).tools.map((t) => t.name),
    call: async (tool, args) => textOf(await client.callTool({ name: tool, arguments: args })),
    read: async (uri) => textOf({ content: (await client.readResource({ uri })).contents }),
    completePrompt: async (prompt, argument, value) =>
      (await client.complete(promptCompletion(prompt, argument, value))).completion.values,
    resources: async () => (await client.listResources()).resources.map((r) => r.uri),
    subscribe: async (uri) => {
      if (era === 'legacy') await client.subscribeResource({ uri });
      else streams.push(await client.listen!({ resourceSubscriptions: [uri] }));
    },
    close: async () => {
      await Promise.all(streams.map((stream) => stream.close()));
      await client.close();
    },
  };
}

async function officialV1(url: string, name: string): Promise<Driver> {
  const asked: string[] = [];
  const answer = answers(name, asked);
  const client = new V1Client(
    { name, version: '1.0.0' },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => answer.elicit(request.params.message));
  client.setRequestHandler(CreateMessageRequestSchema, (request) =>
    answer.sample(promptText(request.params)),
  );
  await client.connect(new V1Http(new URL(url)));
  return official(client as unknown as OfficialClient, name, 'legacy', asked);
}

async function officialV2(
  url: string,
  name: string,
  mode: 'legacy' | { pin: '2026-07-28' },
): Promise<Driver> {
  const asked: string[] = [];
  const answer = answers(name, asked);
  const client = new V2Client(
    { name, version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', (request) =>
    answer.elicit((request.params as { message: string }).message),
  );
  client.setRequestHandler('sampling/createMessage', (request) =>
    answer.sample(promptText(request.params as never)),
  );
  await client.connect(new V2Http(new URL(url)));
  assert.equal(client.getNegotiatedProtocolVersion(), mode === 'legacy' ? '2025-11-25' : '2026-07-28');
  return official(
    client as unknown as OfficialClient,
    name,
    mode === 'legacy' ? 'legacy' : '2026-07-28',
    asked,
  );
}

describe('gateway: real upstreams, official and Switchboard clients of both eras at once', () => {
  let v2: OfficialServer;
  let exampleHttp: RunningServer;
  let started: StartedGateway;
  let clients: Driver[];

  before(async () => {
    v2 = await startV2();
    exampleHttp = await serve(createHttpHandler(createExampleServer()), { port: 0 });
    started = await startGateway({
      example: { command: process.execPath, args: [EXAMPLE, '--stdio'] },
      // Only the tools the `include` globs name.
      examplehttp: { url: exampleHttp.url, include: ['add', 'div?de'] },
      // Its environment-printing tool is hidden (an `exclude` glob).
      everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], exclude: ['get-env*'] },
      v2: { url: v2.url },
    });
    const url = started.url;
    clients = await Promise.all([
      officialV1(url, 'ada'),
      officialV2(url, 'bea', 'legacy'),
      officialV2(url, 'cy', { pin: '2026-07-28' }),
      switchboard(url, 'dee', 'legacy'),
      switchboard(url, 'eve', 'auto'),
    ]);
  });
  after(async () => {
    await Promise.all((clients ?? []).map((client) => client.close()));
    await started?.close();
    await exampleHttp?.close();
    await v2?.close();
  });

  test('every upstream is up, each in its era', () => {
    const health = Object.fromEntries(started.gateway.health().map((h) => [h.name, [h.state, h.revision]]));
    assert.deepEqual(health, {
      example: ['up', '2026-07-28'],
      examplehttp: ['up', '2026-07-28'],
      everything: ['up', '2025-11-25'],
      v2: ['up', '2026-07-28'],
    });
    assert.deepEqual(
      clients.map((c) => `${c.name} ${c.era}`),
      ['ada legacy', 'bea legacy', 'cy 2026-07-28', 'dee legacy', 'eve 2026-07-28'],
    );
  });

  test('each client lists, calls, reads and completes on every upstream', async () => {
    await Promise.all(
      clients.map(async (client) => {
        const tools = await client.tools();
        for (const tool of ['example__add', 'examplehttp__add', 'everything__echo', 'v2__echo']) {
          assert.ok(tools.includes(tool), `${client.name}: ${tool} in ${tools.join(', ')}`);
        }
        assert.ok(!tools.includes('everything__get-env'), 'excluded');
        assert.deepEqual(
          tools.filter((t) => t.startsWith('examplehttp__')).sort(),
          ['examplehttp__add', 'examplehttp__divide'],
          'included',
        );
        // A 2026-07-28 client gets the example's structured sum as text ({"sum":5}), a legacy one 5.
        assert.match(await client.call('example__add', { a: 2, b: 3 }), /^(5|\{"sum":5\})$/, client.name);
        assert.match(await client.call('examplehttp__add', { a: 4, b: 5 }), /^(9|\{"sum":9\})$/, client.name);
        assert.match(
          await client.call('everything__echo', { message: client.name }),
          new RegExp(client.name),
        );
        assert.equal(await client.call('v2__echo', { text: client.name }), client.name);
        assert.match(await client.read('gateway://example/docs://readme'), /Switchboard/);
        assert.match(await client.read('gateway://v2/file:///readme.md'), /\S/);
        const values = await client.completePrompt('example__summarize_note', 'id', '');
        assert.ok(values.length > 0, `${client.name}: completion values`);
      }),
    );
  });

  test('each client subscribes to an upstream resource', async () => {
    await Promise.all(
      clients.map(async (client) => {
        const uri = (await client.resources()).find((u) => u.startsWith('gateway://everything/'));
        assert.ok(uri, `${client.name}: a resource of server-everything`);
        await client.subscribe(uri);
      }),
    );
    assert.ok(started.gateway.following().some((f) => f.uri.startsWith('gateway://everything/')));
  });

  test('all at once: each answers the elicitations and samplings of its own calls, and no other', async () => {
    await Promise.all(
      clients.map(async (client) => {
        assert.match(
          await client.call('example__book_table', { restaurant: `Chez ${client.name}` }),
          new RegExp(`Booked a table for 2 at Chez ${client.name} under ${client.name}`),
        );
        assert.match(
          await client.call('everything__trigger-sampling-request', { prompt: `for ${client.name}` }),
          new RegExp(`sampled for ${client.name}`),
        );
      }),
    );
    for (const client of clients) {
      assert.equal(client.asked.length, 2, `${client.name} was asked ${JSON.stringify(client.asked)}`);
      for (const question of client.asked) assert.match(question, new RegExp(client.name), client.name);
    }
  });
});

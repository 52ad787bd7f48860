/**
 * Elicitation, sampling and roots between the official SDK clients and a Switchboard server over
 * real transports, in both eras: stdio pipes to a server process, Streamable HTTP on loopback (a
 * legacy session, and 2026-07-28 multi-round trips), and the 2024-11-05 HTTP+SSE transport. Every
 * frame our server sends is checked against its revision's official schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
  SSEClientTransport as V2SseTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as V1SseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { startServer, type TestServer } from '../http/server/helpers.js';
import { WireCheck } from '../http/server/wire.js';
import { OfficialClientTap } from '../interop/helpers/official-client-tap.js';
import { assertExited } from '../interop/helpers/processes.js';
import { ONBOARDED, onboardingServer } from './fixtures/onboarding-server.js';

const stdioServer = {
  command: process.execPath,
  args: [fileURLToPath(new URL('./fixtures/onboarding-server.js', import.meta.url)), '--stdio'],
};
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;
const POEM = { role: 'assistant', model: 'm', content: { type: 'text', text: 'roses are red' } } as const;
const ROOTS = { roots: [{ uri: 'file:///home/ada' }] };
const FORM = { action: 'accept', content: { name: 'Ada', color: '#00f' } } as const;

function v1Client(): V1Client {
  const client = new V1Client(
    { name: 'v1', version: '1' },
    { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(ElicitRequestSchema, () => FORM);
  client.setRequestHandler(CreateMessageRequestSchema, () => POEM);
  client.setRequestHandler(ListRootsRequestSchema, () => ROOTS);
  return client;
}

function v2Client(mode: 'legacy' | { pin: '2026-07-28' }): V2Client {
  const client = new V2Client(
    { name: 'v2', version: '1' },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', () => FORM);
  client.setRequestHandler('sampling/createMessage', () => POEM);
  client.setRequestHandler('roots/list', () => ROOTS);
  return client;
}

const ERAS = ['legacy', { pin: '2026-07-28' }] as const;
const eraName = (mode: (typeof ERAS)[number]) => (mode === 'legacy' ? 'legacy' : '2026-07-28');

describe('official clients → Switchboard server over stdio', () => {
  test('v1 client (2025-11-25): sampling, roots and elicitation as server→client requests', async () => {
    const tap = new OfficialClientTap(await loadSchemaCatalog());
    const client = v1Client();
    await client.connect(tap.attach(new V1StdioTransport(stdioServer), 'v1 stdio'));
    assert.equal(textOf(await client.callTool({ name: 'onboard', arguments: {} })), ONBOARDED);
    await client.close();
    tap.assertClean();
    await assertExited(tap.pids, 'v1 stdio');
  });

  for (const mode of ERAS) {
    test(`v2 client (${eraName(mode)}): the same handlers, the era's way`, async () => {
      const tap = new OfficialClientTap(await loadSchemaCatalog());
      const client = v2Client(mode);
      await client.connect(tap.attach(new V2StdioTransport(stdioServer), 'v2 stdio'));
      assert.equal(client.getNegotiatedProtocolVersion(), mode === 'legacy' ? '2025-11-25' : '2026-07-28');
      assert.equal(textOf(await client.callTool({ name: 'onboard', arguments: {} })), ONBOARDED);
      await client.close();
      tap.assertClean();
      await assertExited(tap.pids, 'v2 stdio');
    });
  }
});

describe('official clients → Switchboard server over HTTP', () => {
  let server: TestServer;
  const runs: string[] = [];
  before(async () => {
    server = await startServer(onboardingServer(runs));
  });
  after(() => server.close());

  test('v1 client over Streamable HTTP (a 2025-11-25 session)', async () => {
    runs.length = 0;
    const wire = await WireCheck.create('v1 streamable');
    const client = v1Client();
    await client.connect(new V1HttpTransport(new URL(server.url), { fetch: wire.fetch }));
    assert.equal(textOf(await client.callTool({ name: 'onboard', arguments: {} })), ONBOARDED);
    assert.deepEqual(runs, ['run 2025-11-25']);
    await client.close();
    await wire.assertCleanWhenSettled();
  });

  for (const mode of ERAS) {
    test(`v2 client over Streamable HTTP (${eraName(mode)})`, async () => {
      runs.length = 0;
      const wire = await WireCheck.create(`v2 streamable ${eraName(mode)}`);
      const client = v2Client(mode);
      await client.connect(new V2HttpTransport(new URL(server.url), { fetch: wire.fetch }));
      assert.equal(textOf(await client.callTool({ name: 'onboard', arguments: {} })), ONBOARDED);
      // Legacy: one run, the input arriving as requests on the POST's stream; 2026-07-28: one run per
      // round (asked, then answered three times over), each a stateless POST.
      assert.deepEqual(runs, mode === 'legacy' ? ['run 2025-11-25'] : Array(4).fill('run 2026-07-28'));
      await client.close();
      await wire.assertCleanWhenSettled();
    });
  }

  test('v1 and v2 clients over HTTP+SSE (2024-11-05 transport)', async () => {
    for (const [label, client, transport] of [
      [
        'v1',
        v1Client(),
        (fetch: typeof globalThis.fetch) => new V1SseTransport(new URL('/sse', server.origin), { fetch }),
      ],
      [
        'v2',
        v2Client('legacy'),
        (fetch: typeof globalThis.fetch) => new V2SseTransport(new URL('/sse', server.origin), { fetch }),
      ],
    ] as const) {
      runs.length = 0;
      const wire = await WireCheck.create(`${label} sse`);
      await (client as V1Client).connect(transport(wire.fetch) as never);
      assert.equal(
        textOf(await (client as V1Client).callTool({ name: 'onboard', arguments: {} })),
        ONBOARDED,
      );
      assert.equal(runs.length, 1, `${label}: ${runs.join(', ')}`);
      await (client as V1Client).close();
      await wire.assertCleanWhenSettled();
    }
  });
});

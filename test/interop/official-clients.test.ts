/**
 * Official clients → the Switchboard example server, over real stdio pipes
 * (`node build/examples/server.js --stdio`): the v1 SDK client (legacy), and the v2 client in its
 * legacy mode, pinned to 2026-07-28, and in auto negotiation. Every frame our server sends is checked
 * against the official schema of the negotiated revision (see OfficialClientTap).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LOGO_ICON } from '../../examples/data.js';
import { featuresOf, type Revision } from '../../src/protocol/revisions.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { CONTRACT, type ContractClient, failure, officialContractClient } from './contract.js';
import { OfficialClientTap } from './helpers/official-client-tap.js';
import { assertExited } from './helpers/processes.js';
import { summarizeViolations } from './helpers/violations.js';

const exampleServer = {
  command: process.execPath,
  args: [fileURLToPath(new URL('../../examples/server.js', import.meta.url)), '--stdio'],
};

interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** One official client connected to the example server, whichever SDK and mode. */
interface Session {
  readonly contract: ContractClient;
  readonly tap: OfficialClientTap;
  readonly revision: string | undefined;
  readonly serverName: string | undefined;
  readonly instructions: string | undefined;
  callWithProgress(
    name: string,
    args: Record<string, unknown>,
    onprogress: (p: Progress) => void,
  ): Promise<any>;
  ping(): Promise<unknown>;
  setLoggingLevel(level: 'warning' | 'debug'): Promise<unknown>;
  /** v2 only: a call validated against a tool definition the caller supplies. */
  callWithToolDefinition?(name: string, args: Record<string, unknown>, tool: unknown): Promise<any>;
  /** Problems the SDK reported through `onerror` (it would fail to parse something we sent, say). */
  readonly errors: Error[];
  close(): Promise<void>;
}

async function connectV1(): Promise<Session> {
  const tap = new OfficialClientTap(await loadSchemaCatalog());
  const client = new V1Client({ name: 'official-v1-client', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  const transport = tap.attach(new V1StdioClientTransport(exampleServer), 'v1 client');
  await client.connect(transport);
  return {
    contract: officialContractClient(client as never),
    tap,
    revision: tap.revisions()[0],
    serverName: client.getServerVersion()?.name,
    instructions: client.getInstructions(),
    callWithProgress: (name, args, onprogress) =>
      client.callTool({ name, arguments: args }, undefined, { onprogress }),
    ping: () => client.ping(),
    setLoggingLevel: (level) => client.setLoggingLevel(level),
    errors,
    close: () => client.close(),
  };
}

/** `offer`: the legacy revisions the client offers at initialize (default: the newest first). */
async function connectV2(mode: 'legacy' | 'auto' | { pin: string }, offer?: string[]): Promise<Session> {
  const tap = new OfficialClientTap(await loadSchemaCatalog());
  const client = new V2Client(
    { name: 'official-v2-client', version: '1.0.0' },
    { versionNegotiation: { mode }, ...(offer ? { supportedProtocolVersions: offer } : {}) },
  );
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  const transport = tap.tapProbeSiblings(
    tap.attach(new V2StdioClientTransport(exampleServer), 'v2 client'),
    (params) => new V2StdioClientTransport(params),
  );
  await client.connect(transport);
  return {
    contract: officialContractClient(client as never),
    tap,
    revision: client.getNegotiatedProtocolVersion(),
    serverName: client.getServerVersion()?.name,
    instructions: client.getInstructions(),
    callWithProgress: (name, args, onprogress) => client.callTool({ name, arguments: args }, { onprogress }),
    ping: () => client.ping(),
    setLoggingLevel: (level) => client.setLoggingLevel(level),
    callWithToolDefinition: (name, args, tool) =>
      client.callTool({ name, arguments: args }, { toolDefinition: tool as never }),
    errors,
    close: () => client.close(),
  };
}

const scenarios: { name: string; revision: string; connect: () => Promise<Session>; v2?: boolean }[] = [
  { name: 'official v1 Client', revision: '2025-11-25', connect: connectV1 },
  {
    name: 'official v2 Client (legacy)',
    revision: '2025-11-25',
    connect: () => connectV2('legacy'),
    v2: true,
  },
  {
    name: 'official v2 Client (pin 2026-07-28)',
    revision: '2026-07-28',
    connect: () => connectV2({ pin: '2026-07-28' }),
    v2: true,
  },
  { name: 'official v2 Client (auto)', revision: '2026-07-28', connect: () => connectV2('auto'), v2: true },
  // The older revisions, where our server fits results to what the revision can carry.
  ...(['2025-06-18', '2025-03-26', '2024-11-05'] as const).map((revision) => ({
    name: `official v2 Client (legacy, offering ${revision})`,
    revision,
    connect: () => connectV2('legacy', [revision]),
    v2: true,
  })),
];

for (const scenario of scenarios) {
  describe(`${scenario.name} → Switchboard example server over stdio`, () => {
    let session: Session;
    before(async () => {
      session = await scenario.connect();
    });
    after(async () => {
      await session.close();
      await assertExited(session.tap.pids, scenario.name);
    });

    test('negotiates the expected revision and sees the server', () => {
      assert.equal(session.revision, scenario.revision);
      assert.equal(session.serverName, 'switchboard-example');
      assert.match(session.instructions ?? '', /^A demo server\./);
    });

    const features = featuresOf(scenario.revision as Revision);
    const wire = { ...features, revision: scenario.revision };
    for (const check of CONTRACT) test(check.name, () => check.run(session.contract, wire));

    // Older revisions' descriptors are covered in-process (example-server.test.ts).
    test('descriptors carry titles, icons, annotations and _meta', { skip: !features.icons }, async () => {
      const tools = await session.contract.listTools();
      const echo = tools.find((t) => t.name === 'echo')!;
      assert.equal(echo.title, 'Echo');
      assert.deepEqual(echo.icons, [LOGO_ICON]);
      assert.deepEqual(echo.annotations, {
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      });
      assert.deepEqual(echo._meta, { 'com.example/category': 'basics' });
      assert.deepEqual(echo.inputSchema.required, ['text']);
      const wordCount = tools.find((t) => t.name === 'word_count')!;
      // A raw JSON Schema goes out as written.
      assert.deepEqual(wordCount.outputSchema, {
        type: 'object',
        properties: {
          words: { type: 'integer', minimum: 0 },
          characters: { type: 'integer', minimum: 0 },
          lines: { type: 'integer', minimum: 0 },
        },
        required: ['words', 'characters', 'lines'],
        additionalProperties: false,
      });
      const readme = (await session.contract.listResources()).find((r) => r.uri === 'docs://readme')!;
      assert.deepEqual(readme.annotations, {
        audience: ['user', 'assistant'],
        priority: 0.9,
        lastModified: '2025-01-01T00:00:00Z',
      });
      assert.equal(typeof readme.size, 'number');
      assert.deepEqual(readme._meta, { 'com.example/category': 'docs' });
      const summarize = (await session.contract.listPrompts()).find((p) => p.name === 'summarize_note')!;
      assert.equal(summarize.title, 'Summarize a note');
      assert.deepEqual(summarize.icons, [LOGO_ICON]);
      // Both official clients' schemas drop `title` from prompt arguments: look at the wire.
      const wire = session.tap.received.findLast((m) => Array.isArray(m.result?.prompts));
      const wireSummarize = wire.result.prompts.find((p: { name: string }) => p.name === 'summarize_note');
      assert.deepEqual(wireSummarize.arguments[0], {
        name: 'id',
        title: 'Note',
        description: 'Which note',
        required: true,
      });
      assert.deepEqual(summarize.arguments[0], { name: 'id', description: 'Which note', required: true });
    });

    test('progress notifications go out before the result and reach the caller', async () => {
      const updates: Progress[] = [];
      const from = session.tap.received.length;
      const result = await session.callWithProgress('count', { n: 3 }, (p) => updates.push(p));
      assert.deepEqual(result.content, [{ type: 'text', text: 'Counted to 3.' }]);
      const wire = session.tap.received
        .slice(from)
        .filter((m) => m.method === 'notifications/progress' || 'result' in m)
        .map((m) => (m.method ? [m.params.progress, m.params.total, m.params.message] : 'result'));
      // Progress messages arrived in 2025-03-26.
      const expected = [1, 2, 3].map((i) => [i, 3, features.annotations ? `step ${i} of 3` : undefined]);
      assert.deepEqual(wire, [...expected, 'result']);
      // Both SDKs handle notifications a microtask late but responses at once: when the notifications
      // and the response arrive in one read from the pipe, the response retires the progress handler
      // first and the SDK reports "unknown token" for the rest (an SDK race, not ours: the wire order
      // is right, as checked above).
      const delivered = updates.map((u) => [u.progress, u.total, u.message]);
      const lost = session.errors.filter((e) => /progress notification for an unknown token/.test(e.message));
      assert.equal(delivered.length + lost.length, expected.length);
      assert.deepEqual(delivered, expected.slice(0, delivered.length));
      session.errors.splice(0, session.errors.length, ...session.errors.filter((e) => !lost.includes(e)));
    });

    if (scenario.revision !== '2026-07-28') {
      test('legacy utilities: ping, and logging/setLevel filters log messages', async () => {
        assert.deepEqual(await session.ping(), {});
        const logsOf = async () => {
          const from = session.tap.received.length;
          await session.contract.callTool('count', { n: 2 });
          return session.tap.received.slice(from).filter((m) => m.method === 'notifications/message');
        };
        await session.setLoggingLevel('warning');
        assert.deepEqual(await logsOf(), []);
        await session.setLoggingLevel('debug');
        assert.deepEqual(
          (await logsOf()).map((m) => m.params),
          [1, 2].map((step) => ({ level: 'info', data: { step }, logger: 'count' })),
        );
      });
    }

    test("resource not found uses the era's code", async () => {
      await failure(session.contract.readResource('notes://nope'));
      // On the wire: the v2 client reports -32002 as its ResourceNotFoundError, whose code is -32602.
      const response = session.tap.received.findLast((m) => 'error' in m);
      assert.equal(response.error.code, scenario.revision === '2026-07-28' ? -32602 : -32002);
      assert.deepEqual(response.error.data, { uri: 'notes://nope' });
    });

    test('the server negotiated on one connection (plus the v2 probe sibling, when it probes)', () => {
      const probes = scenario.v2 && scenario.revision === '2026-07-28' ? 2 : 1;
      assert.equal(session.tap.connections, probes);
    });

    test('every frame the server sent matches the official schema of its revision', (t) => {
      for (const line of summarizeViolations(session.tap.peerViolations()))
        t.diagnostic(`official client: ${line}`);
      session.tap.assertClean();
      assert.deepEqual(session.errors, []);
    });
  });
}

describe('official v2 Client validates structured output against the outputSchema', () => {
  test('a result that breaks the schema the client holds is refused', async () => {
    const session = await connectV2({ pin: '2026-07-28' });
    try {
      const client = session.contract;
      const add = (await client.listTools()).find((t) => t.name === 'add')!;
      // Our server's result passes the client's validator (the contract checks that); with a stricter
      // definition the same result must fail, which shows the validation really runs.
      const strict = { ...add, outputSchema: { type: 'object', required: ['total'] } };
      const error = await failure(session.callWithToolDefinition!('add', { a: 1, b: 2 }, strict));
      assert.match(error.message, /total|output/i);
      session.tap.assertClean();
    } finally {
      await session.close();
      await assertExited(session.tap.pids, 'v2 output validation');
    }
  });
});

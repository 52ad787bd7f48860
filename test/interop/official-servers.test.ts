/**
 * The Switchboard Client → official SDK servers over real stdio pipes: the v1 `McpServer` (legacy
 * only) and the v2 `McpServer` behind `serveStdio` (both eras), serving the example server's content
 * (test/fixtures/official-*.ts). Auto negotiation must pick 2026-07-28 against v2 and fall back to
 * `initialize` against v1; each legacy revision the servers speak is also pinned. Every frame our
 * client sends is checked against the official schema of the negotiated revision (strict); the
 * official servers' violations are only reported.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { VersionNegotiation } from '../../src/client/client.js';
import { Client } from '../../src/extensions/client.js';
import type { Revision } from '../../src/protocol/revisions.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { FIXTURE_INSTRUCTIONS } from '../fixtures/official-common.js';
import { CONTRACT, type ContractClient, FULL_WIRE } from './contract.js';
import { assertExited } from './helpers/processes.js';
import { summarizeViolations } from './helpers/violations.js';

type Fixture = 'official-v1-server' | 'official-v2-server';

const fixturePath = (fixture: Fixture) =>
  fileURLToPath(new URL(`../fixtures/${fixture}.js`, import.meta.url));

function contractClient(client: Client): ContractClient {
  return {
    listTools: async () => (await client.listTools()).tools as never,
    callTool: (name, args) => client.callTool(name, args) as never,
    listResources: async () => (await client.listResources()).resources as never,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates as never,
    readResource: async (uri) => (await client.readResource(uri)).contents as never,
    listPrompts: async () => (await client.listPrompts()).prompts as never,
    getPrompt: (name, args) => client.getPrompt(name, args) as never,
    complete: async (ref, argument) =>
      (await client.complete({ ref: ref as never, argument })).completion.values,
  };
}

/** A Switchboard client on stdio to one fixture, every channel it opened schema-checked. */
class Session {
  readonly channels: { checked: SchemaCheckedChannel; stdio: StdioClientChannel }[] = [];
  readonly errors: Error[] = [];
  /** The methods of the requests the client sent, in order, over every channel. */
  readonly requests: string[] = [];
  readonly client: Client;

  constructor(
    private readonly fixture: Fixture,
    version: VersionNegotiation,
  ) {
    this.client = new Client(
      { name: 'switchboard-interop', version: '1.0.0' },
      // The probe's clock starts at spawn, so it also times the server's start-up: the official v2
      // SDK takes seconds to load on a busy machine, and the default 5 s would then (correctly, per
      // the spec) fall back to initialize. This test is about what is negotiated, not start-up speed.
      { version, probeTimeoutMs: 30_000, onerror: (error) => this.errors.push(error) },
    );
  }

  async connect(): Promise<void> {
    const catalog = await loadSchemaCatalog();
    // A factory, so auto negotiation could reopen the process if a server hung up on the probe.
    await this.client.connect(() => {
      const stdio = new StdioClientChannel({
        command: process.execPath,
        args: [fixturePath(this.fixture)],
        stderr: 'pipe',
      });
      const checked = new SchemaCheckedChannel(stdio, { catalog, side: 'client', label: this.fixture });
      const send = checked.send.bind(checked);
      checked.send = (frame, info) => {
        if (info?.kind === 'request') this.requests.push(info.method);
        send(frame, info);
      };
      this.channels.push({ checked, stdio });
      return checked;
    });
  }

  async close(): Promise<void> {
    await this.client.close();
    const pids = this.channels.map((c) => c.stdio.pid).filter((pid) => pid !== undefined);
    await assertExited(pids, this.fixture);
  }
}

interface Scenario {
  readonly fixture: Fixture;
  readonly version: VersionNegotiation;
  readonly expected: Revision;
}

const V1_REVISIONS: Revision[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const scenarios: Scenario[] = [
  { fixture: 'official-v1-server', version: 'auto', expected: '2025-11-25' },
  ...V1_REVISIONS.map((r) => ({ fixture: 'official-v1-server' as const, version: { pin: r }, expected: r })),
  { fixture: 'official-v2-server', version: 'auto', expected: '2026-07-28' },
  ...(['2026-07-28', ...V1_REVISIONS] as Revision[]).map((r) => ({
    fixture: 'official-v2-server' as const,
    version: { pin: r },
    expected: r,
  })),
];

const describeVersion = (v: VersionNegotiation) => (typeof v === 'string' ? v : `pin ${v.pin}`);

for (const scenario of scenarios) {
  describe(`Switchboard Client (${describeVersion(scenario.version)}) → ${scenario.fixture} over stdio`, () => {
    const session = new Session(scenario.fixture, scenario.version);
    before(() => session.connect());
    after(() => session.close());

    test(`negotiates ${scenario.expected}`, () => {
      const { client } = session;
      assert.equal(client.revision, scenario.expected);
      assert.equal(client.era, scenario.expected === '2026-07-28' ? 'modern' : 'legacy');
      assert.equal(client.serverInfo?.name, scenario.fixture.replace('-server', '-fixture'));
      assert.equal(client.instructions, FIXTURE_INSTRUCTIONS);
      // Even the auto fallback stays on one process: the official servers answer the probe.
      assert.equal(session.channels.length, 1);
      assert.equal(session.channels[0]!.checked.revision, scenario.expected);
      // auto probes with server/discover and, against a legacy server, falls back to initialize.
      const handshake = session.requests.filter((m) => m === 'server/discover' || m === 'initialize');
      const expected =
        scenario.expected === '2026-07-28'
          ? ['server/discover']
          : scenario.version === 'auto'
            ? ['server/discover', 'initialize']
            : ['initialize'];
      assert.deepEqual(handshake, expected);
    });

    if (scenario.expected !== '2026-07-28') {
      test('ping', async () => {
        await session.client.ping();
      });
    }

    // The official servers send the same results on every revision (see the reported violations).
    for (const check of CONTRACT)
      test(check.name, () => check.run(contractClient(session.client), FULL_WIRE));

    test('every frame the client sent matches the official schema of its revision', (t) => {
      for (const { checked } of session.channels) {
        const theirs = checked.violations().filter((v) => v.sender === 'server');
        for (const line of summarizeViolations(theirs)) t.diagnostic(`official server: ${line}`);
        checked.assertClean();
      }
      assert.deepEqual(session.errors, []);
    });
  });
}

describe('Switchboard Client pinned to 2026-07-28 → official-v1-server', () => {
  test('fails to negotiate, and leaves no process behind', async () => {
    const session = new Session('official-v1-server', { pin: '2026-07-28' });
    await assert.rejects(session.connect(), (error: Error & { code?: unknown }) => {
      assert.ok(error.code !== undefined, `a typed error, got ${error.message}`);
      return true;
    });
    await session.close();
    for (const { checked } of session.channels) checked.assertClean();
  });
});

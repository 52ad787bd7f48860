/**
 * `switchboard gateway` as a team's front door, as users run it (the bundled bin): API keys,
 * per-caller access rules, rate limits and the audit log, with the project's client (both eras) and
 * the official SDK v1 and v2 clients signing in with their keys; then `audit verify` on the log.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { CLI_ENV, runCli } from '../cli/run-cli.js';
import { ENVELOPE, initializeRequest } from '../http/server/helpers.js';
import { type GatewayCli, protocolFailure, startGatewayCli, UPSTREAM } from './helpers.js';

const ALICE = randomBytes(32).toString('base64url');
const BOB = randomBytes(32).toString('hex');

function writeConfig(dir: string, gateway: Record<string, unknown>): string {
  const file = join(dir, 'team.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { local: { command: process.execPath, args: [UPSTREAM] } },
      gateway: { port: 0, ...gateway },
    }),
  );
  return file;
}

const FRONT_DOOR = {
  auth: { apiKeys: { alice: '${ALICE_KEY}', bob: '${BOB_KEY}' } },
  access: [
    {
      principals: ['alice'],
      allow: ['local__*', 'gateway://local/*'],
      deny: ['local__crash', 'gateway://local/memo://secret'],
    },
    { principals: ['bob'], allow: ['local__whoami', 'local__greet'] },
  ],
  rateLimits: [{ principals: ['bob'], tools: ['local__whoami'], limit: '2/minute' }],
  audit: { file: 'audit.jsonl' },
};

function startCli(file: string, extra: string[] = []): Promise<GatewayCli> {
  return startGatewayCli(file, { ...CLI_ENV, ALICE_KEY: ALICE, BOB_KEY: BOB }, extra);
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** One raw JSON-RPC POST, as a proxy or balancer in front of the gateway sees the exchange. */
const rawPost = (url: string, headers: Record<string, string>, message: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  });

async function switchboard(url: string, key: string, era: 'auto' | 'legacy', name = 'switchboard-test') {
  const client = new Client({ name, version: '1.0.0' }, { version: era });
  await client.connect(
    new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false, headers: bearer(key) }),
  );
  return client;
}

/** The official SDK clients, signed in with `key`: v1 (legacy) and v2 (pinned to 2026-07-28). */
async function sdkV1(url: string, key: string, name: string): Promise<V1Client> {
  const client = new V1Client({ name, version: '1.0.0' });
  await client.connect(new V1Http(new URL(url), { requestInit: { headers: bearer(key) } }));
  return client;
}

async function sdkV2(url: string, key: string, name: string): Promise<V2Client> {
  const client = new V2Client(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Http(new URL(url), { requestInit: { headers: bearer(key) } }));
  return client;
}

describe('switchboard gateway: the front door', () => {
  let dir: string;
  let gateway: GatewayCli;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-door-'));
    gateway = await startCli(writeConfig(dir, FRONT_DOOR));
  });
  after(async () => {
    await gateway.stop();
  });

  test('no key: 401 with a Bearer challenge; a wrong key: 401 invalid_token', async () => {
    const post = (headers: Record<string, string>) =>
      rawPost(gateway.url, headers, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} });
    const none = await post({});
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm=/);
    const wrong = await post(bearer(randomBytes(32).toString('base64url')));
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.ok(!(await wrong.text()).includes(ALICE));
  });

  for (const era of ['auto', 'legacy'] as const) {
    test(`each caller sees and uses only what the rules allow (Switchboard client, ${era})`, async () => {
      const alice = await switchboard(gateway.url, ALICE, era);
      const bob = await switchboard(gateway.url, BOB, era);
      try {
        const aliceTools = (await alice.listTools()).tools.map((t) => t.name);
        assert.ok(
          aliceTools.includes('local__ask') && aliceTools.includes('local__whoami'),
          aliceTools.join(),
        );
        assert.ok(!aliceTools.includes('local__crash'), 'denied by the deny glob');
        assert.deepEqual(
          (await bob.listTools()).tools.map((t) => t.name),
          ['local__whoami'],
        );
        assert.deepEqual(
          (await bob.listPrompts()).prompts.map((p) => p.name),
          ['local__greet'],
        );
        assert.deepEqual((await bob.listResources()).resources, []);
        assert.ok((await alice.listResources()).resources.length > 0);
        // A denied item is answered exactly like one that does not exist, and never reaches the upstream.
        const denied = await protocolFailure(alice.callTool('local__crash', {}));
        const unknown = await protocolFailure(alice.callTool('local__nothing', {}));
        assert.equal(denied.code, unknown.code);
        assert.equal(
          denied.message.replace('local__crash', 'X'),
          unknown.message.replace('local__nothing', 'X'),
        );
        assert.match(
          String((await alice.callTool('local__whoami', {})).content[0]?.type),
          /text/,
          'the upstream is still up',
        );
        const deniedRead = await protocolFailure(bob.readResource('gateway://local/memo://one'));
        const unknownRead = await protocolFailure(bob.readResource('gateway://local/memo://none-such'));
        assert.equal(deniedRead.code, unknownRead.code);
        // A URI the rules deny is refused though the template that serves it is allowed, exactly
        // as a URI nothing serves; its neighbours under the same template are read.
        const deniedByUri = await protocolFailure(alice.readResource('gateway://local/memo://secret'));
        const unserved = await protocolFailure(alice.readResource('gateway://local/nothing://secret'));
        assert.equal(deniedByUri.code, unserved.code);
        assert.equal(
          deniedByUri.message.replace('memo://', 'X://'),
          unserved.message.replace('nothing://', 'X://'),
        );
        assert.deepEqual(
          (await alice.readResource('gateway://local/memo://other')).contents.map((c) =>
            'text' in c ? c.text : null,
          ),
          ['memo other'],
        );
        const deniedPrompt = await protocolFailure(bob.getPrompt('local__nothing_here'));
        const deniedGet = await protocolFailure(alice.getPrompt('local__nothing_here'));
        assert.equal(deniedPrompt.code, deniedGet.code);
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  }

  test('over its limit a call is refused before the upstream: 429, Retry-After, -32023 with retryAfterMs; others are not slowed', async () => {
    const bob = await switchboard(gateway.url, BOB, 'auto');
    const alice = await switchboard(gateway.url, ALICE, 'auto');
    try {
      await bob.callTool('local__whoami', {});
      await bob.callTool('local__whoami', {});
      const limited = await protocolFailure(bob.callTool('local__whoami', {}));
      assert.equal(limited.code, -32023);
      const data = limited.data as { retryAfterMs: number; limit: number };
      assert.ok(data.retryAfterMs > 0 && data.retryAfterMs <= 60_000, JSON.stringify(data));
      assert.equal(data.limit, 2);
      assert.ok((await alice.callTool('local__whoami', {})).content.length > 0, 'alice has no such rule');
      // The HTTP reply itself, as a balancer or proxy sees it.
      const raw = await rawPost(
        gateway.url,
        {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'local__whoami',
          ...bearer(BOB),
        },
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'local__whoami',
            arguments: {},
            _meta: ENVELOPE,
          },
        },
      );
      const body = (await raw.json()) as { error?: { code: number; data?: { retryAfterMs: number } } };
      assert.equal(raw.status, 429, JSON.stringify(body));
      assert.equal(body.error?.code, -32023);
      assert.equal(Number(raw.headers.get('retry-after')), Math.ceil(body.error!.data!.retryAfterMs / 1000));
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  test('the official SDK v1 and v2 clients sign in with a key and get their own lists', async () => {
    const v1 = await sdkV1(gateway.url, BOB, 'sdk-v1');
    const v2 = await sdkV2(gateway.url, ALICE, 'sdk-v2');
    try {
      assert.deepEqual(
        (await v1.listTools()).tools.map((t) => t.name),
        ['local__whoami'],
      );
      const v2Tools = (await v2.listTools()).tools.map((t) => t.name);
      assert.ok(v2Tools.includes('local__ask') && !v2Tools.includes('local__crash'), v2Tools.join());
      // bob spent his two calls: the v1 client meets the limit as an HTTP 429.
      await assert.rejects(v1.callTool({ name: 'local__whoami', arguments: {} }), /429|-32023|Rate limited/);
      const anonymous = new V1Client({ name: 'anonymous', version: '1.0.0' });
      await assert.rejects(anonymous.connect(new V1Http(new URL(gateway.url))), /401|Unauthorized/);
    } finally {
      await v1.close();
      await v2.close();
    }
  });

  test('the official SDK v1 and v2 clients meet every rule: 401 with its challenge, a denied tool answered as an unknown one, 429 with retryAfterMs', async () => {
    // 401 with a Bearer challenge, as each SDK's transport reports it.
    const v2Anonymous = new V2Client({ name: 'anonymous-v2', version: '1.0.0' });
    await assert.rejects(v2Anonymous.connect(new V2Http(new URL(gateway.url))), /401|Unauthorized/);
    const v2Wrong = new V2Client({ name: 'wrong-v2', version: '1.0.0' });
    await assert.rejects(
      v2Wrong.connect(
        new V2Http(new URL(gateway.url), {
          requestInit: { headers: bearer(randomBytes(32).toString('hex')) },
        }),
      ),
      /401|Unauthorized|invalid_token/,
    );
    const v1 = await sdkV1(gateway.url, ALICE, 'sdk-v1-rules');
    const v2 = await sdkV2(gateway.url, ALICE, 'sdk-v2-rules');
    type Outcome = { result?: unknown; code?: number; message?: string };
    const errorOf = (promise: Promise<unknown>): Promise<Outcome> =>
      promise.then(
        (result): Outcome => ({ result }),
        (error: { code?: number; message?: string }): Outcome => ({
          code: error.code,
          message: error.message,
        }),
      );
    try {
      for (const client of [v1, v2]) {
        // local__crash is denied to alice by a deny glob; local__nothing does not exist.
        const denied = await errorOf(client.callTool({ name: 'local__crash', arguments: {} }));
        const unknown = await errorOf(client.callTool({ name: 'local__nothing', arguments: {} }));
        assert.deepEqual(
          { ...denied, message: denied.message?.replace('local__crash', 'X') },
          { ...unknown, message: unknown.message?.replace('local__nothing', 'X') },
        );
        assert.ok(denied.code !== undefined || denied.result !== undefined, JSON.stringify(denied));
      }
    } finally {
      await v1.close();
      await v2.close();
    }
    // bob's limit (2 a minute) is spent by the tests before: the v2 client gets -32023 with the wait.
    const bobV2 = await sdkV2(gateway.url, BOB, 'sdk-v2-limited');
    try {
      for (let i = 0; i < 3; i++) await errorOf(bobV2.callTool({ name: 'local__whoami', arguments: {} }));
      const limited = await bobV2.callTool({ name: 'local__whoami', arguments: {} }).then(
        () => assert.fail('should be rate limited'),
        (error: { data?: { status?: number; text?: string } }) => error,
      );
      // The SDK reports the HTTP 429 with its body: the -32023 error with the wait.
      assert.equal(limited.data?.status, 429, JSON.stringify(limited));
      const body = JSON.parse(limited.data!.text!) as {
        error: { code: number; data: { retryAfterMs: number } };
      };
      assert.equal(body.error.code, -32023);
      assert.ok(body.error.data.retryAfterMs > 0 && body.error.data.retryAfterMs <= 60_000);
    } finally {
      await bobV2.close();
    }
  });

  test('the official SDK v1 client: another principal presenting a legacy session id gets the unknown-session answer', async () => {
    const owner = new V1Client({ name: 'owner', version: '1.0.0' });
    const ownerTransport = new V1Http(new URL(gateway.url), { requestInit: { headers: bearer(ALICE) } });
    await owner.connect(ownerTransport);
    const session = ownerTransport.sessionId!;
    assert.ok(session);
    const thief = new V1Client({ name: 'thief', version: '1.0.0' });
    const stolen = await thief
      .connect(
        new V1Http(new URL(gateway.url), { sessionId: session, requestInit: { headers: bearer(BOB) } }),
      )
      .then(() => thief.listTools())
      .then(
        () => 'served',
        (error: Error) => error.message,
      );
    const stranger = new V1Client({ name: 'stranger', version: '1.0.0' });
    const other = `${session.slice(0, -4)}0000`;
    const unknown = await stranger
      .connect(new V1Http(new URL(gateway.url), { sessionId: other, requestInit: { headers: bearer(BOB) } }))
      .then(() => stranger.listTools())
      .then(
        () => 'served',
        (error: Error) => error.message,
      );
    assert.notEqual(stolen, 'served');
    assert.equal(stolen.replace(session, 'ID'), unknown.replace(other, 'ID'));
    assert.ok((await owner.listTools()).tools.length > 0, "the owner's session goes on");
    await owner.close();
    await thief.close();
    await stranger.close();
  });

  test("a legacy session belongs to the principal that opened it: another's key gets the unknown-session answer", async () => {
    const open = async (key: string) => {
      const reply = await rawPost(gateway.url, bearer(key), initializeRequest(1, '2025-11-25', 'raw'));
      await reply.text();
      return reply.headers.get('mcp-session-id')!;
    };
    const list = (key: string, session: string) =>
      rawPost(
        gateway.url,
        { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', ...bearer(key) },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      );
    const session = await open(ALICE);
    assert.ok(session);
    const own = await list(ALICE, session);
    assert.equal(own.status, 200);
    await own.text();
    const stolen = await list(BOB, session);
    const other = `${session.slice(0, -4)}0000`;
    const unknown = await list(BOB, other);
    assert.equal(stolen.status, unknown.status);
    assert.notEqual(stolen.status, 200);
    assert.equal((await stolen.text()).replace(session, 'ID'), (await unknown.text()).replace(other, 'ID'));
  });

  test('the audit log: one line per request, every outcome, no argument values; verify passes, and finds a change', async () => {
    const alice = await switchboard(gateway.url, ALICE, 'auto', 'audited-client');
    await alice.callTool('local__whoami', { secret: 'do-not-log-me' });
    await alice.close();
    assert.equal(await gateway.stop(), 0);
    const file = join(dir, 'audit.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const outcomes = new Set(records.map((r) => r.outcome));
    for (const outcome of ['ok', 'denied', 'rate_limited', 'unauthenticated'])
      assert.ok(outcomes.has(outcome), outcome);
    const call = records.find((r) => r.client === 'audited-client' && r.method === 'tools/call');
    assert.ok(call, 'the call is recorded with its client name');
    assert.equal(call.principal, 'alice');
    assert.equal(call.name, 'local__whoami');
    assert.equal(call.upstream, 'local');
    assert.match(String(call.argsDigest), /^sha256:[0-9a-f]{64}$/);
    assert.equal(typeof call.durationMs, 'number');
    const text = lines.join('\n');
    assert.ok(!text.includes('do-not-log-me') && !text.includes(ALICE) && !text.includes(BOB));
    const verified = await runCli(['gateway', 'audit', 'verify', file]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, new RegExp(`${lines.length} lines, chain intact`));
    lines[2] = lines[2]!.replace(/"outcome":"[a-z_]+"/, '"outcome":"ok"').replace('"seq":3', '"seq":3 ');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const broken = await runCli(['gateway', 'audit', 'verify', file]);
    assert.equal(broken.code, 1);
    assert.match(
      broken.stderr,
      /audit\.jsonl:4: the audit chain breaks here: its "prev" is not the hash of the line before it: line 3 was changed/,
    );
    // Restart it for after().
    gateway = await startCli(writeConfig(dir, FRONT_DOOR));
  });
});

describe('switchboard gateway: listening beyond loopback', () => {
  test('without gateway.auth it refuses to start, saying how to add auth; --insecure-no-auth warns instead', async () => {
    const file = writeConfig(mkdtempSync(join(tmpdir(), 'gateway-door-')), {});
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: the refusal comes before any listening.
    const refused = await runCli(['gateway', file, '--host', '192.0.2.1']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /refusing to listen on 192\.0\.2\.1 without "auth".*"apiKeys".*--insecure-no-auth/,
    );
    const insecure = await runCli(['gateway', file, '--host', '192.0.2.1', '--insecure-no-auth']);
    assert.match(insecure.stderr, /no sign-in \(--insecure-no-auth\)/);
    assert.notEqual(insecure.code, 0, 'then it cannot listen there');
  });
});

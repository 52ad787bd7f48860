/**
 * The admin endpoint (`gateway.admin`) of the real CLI gateway: the held tools with both
 * definitions, an approval that makes the tool callable at once and is kept in the lock, a check of
 * one server from its config entry; every guard (Host, Origin, Sec-Fetch-Site, the admin token,
 * `gateway.auth` and the admin principals, JSON bodies) refusing what it must.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN_HEADER } from '../../src/gateway/admin.js';
import { toolDefinition, toolHash } from '../../src/gateway/pins.js';
import { CLI_ENV, runCli } from '../cli/run-cli.js';
import { until } from '../helpers/wait.js';
import { startGatewayCli, switchboardClient, textOf, UPSTREAM } from './helpers.js';

const TOKEN = randomBytes(32).toString('base64url');
const ALICE = randomBytes(32).toString('base64url');
const BOB = randomBytes(32).toString('base64url');
const OLD = { name: 'whoami', description: 'The old wording', inputSchema: { type: 'object' as const } };

interface Node {
  readonly url: string;
  /** The directory of its config (a relative audit file is there). */
  readonly dir: string;
  readonly lock: string;
  readonly stderr: () => string;
  stop(): Promise<unknown>;
}

/** The CLI gateway over the upstream fixture, with a lock that pinned whoami with OLD's definition. */
async function startGateway(gateway: Record<string, unknown>): Promise<Node> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-admin-'));
  const config = join(dir, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        local: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'local' } },
      },
      gateway,
    }),
  );
  const lock = join(dir, 'tools.lock');
  writeFileSync(
    lock,
    JSON.stringify({
      version: 2,
      tools: { local__whoami: { hash: toolHash(OLD), definition: toolDefinition(OLD) } },
    }),
  );
  const node = await startGatewayCli(
    config,
    { ...CLI_ENV, ADMIN_TOKEN: TOKEN, ALICE_KEY: ALICE, BOB_KEY: BOB },
    ['--port', '0', '--lock', lock],
  );
  return { url: node.url, dir, lock, stderr: node.stderr, stop: node.stop };
}

/** A request with exactly these headers (fetch would not send a forged Host). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const json = { 'content-type': 'application/json' };

describe('the admin endpoint with an admin token (no gateway.auth)', () => {
  let node: Node;
  let admin: (path: string) => string;
  const withToken = { [ADMIN_TOKEN_HEADER]: TOKEN };
  before(async () => {
    node = await startGateway({ admin: { token: '${ADMIN_TOKEN}' } });
    admin = (path) => new URL(path, node.url).href;
  });
  after(() => node?.stop());

  test('lists the held tool with its pinned and new definitions; an approval makes it callable and is in the lock', async () => {
    const { client } = await switchboardClient(node.url, 'admin');
    try {
      assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'local__whoami'), 'held');
      const listed = await fetch(admin('/admin/pins'), { headers: withToken });
      assert.equal(listed.status, 200);
      const { lock, held } = (await listed.json()) as {
        lock: string;
        held: Array<{
          kind: string;
          name: string;
          pinned: { hash: string; definition: unknown };
          found: { hash: string; definition: { description: string } };
        }>;
      };
      assert.equal(lock, node.lock);
      assert.equal(held.length, 1);
      assert.equal(held[0]!.kind, 'tool');
      assert.equal(held[0]!.name, 'local__whoami');
      assert.deepEqual(held[0]!.pinned, { hash: toolHash(OLD), definition: toolDefinition(OLD) });
      assert.equal(held[0]!.found.definition.description, 'Says which process answers.');
      assert.match(held[0]!.found.hash, /^sha256:[0-9a-f]{64}$/);

      const notJson = await fetch(admin('/admin/pins/approve'), {
        method: 'POST',
        headers: { ...withToken, 'content-type': 'text/plain' },
        body: JSON.stringify({ name: 'local__whoami' }),
      });
      assert.equal(notJson.status, 415, 'a form or beacon cannot approve');
      const approved = await fetch(admin('/admin/pins/approve'), {
        method: 'POST',
        headers: { ...withToken, ...json },
        body: JSON.stringify({ name: 'local__whoami' }),
      });
      assert.equal(approved.status, 200);
      assert.deepEqual(await approved.json(), {
        approved: [{ kind: 'tool', name: 'local__whoami', hash: held[0]!.found.hash }],
      });
      // Callable through the gateway as soon as the approval answered (and listed to a new client:
      // this one may hold the earlier list in its cache until the list_changed reaches it).
      assert.match(textOf(await client.callTool('local__whoami', {})), /^local pid \d+$/);
      const { client: fresh } = await switchboardClient(node.url, 'admin-after');
      assert.ok((await fresh.listTools()).tools.some((t) => t.name === 'local__whoami'));
      await fresh.close();
      const pinned = JSON.parse(readFileSync(node.lock, 'utf8')).tools.local__whoami;
      assert.deepEqual(pinned, { hash: held[0]!.found.hash, definition: held[0]!.found.definition });
      assert.match(node.stderr(), /"message":"admin: approved","principal":null,"name":"local__whoami"/);

      const again = await fetch(admin('/admin/pins/approve'), {
        method: 'POST',
        headers: { ...withToken, ...json },
        body: JSON.stringify({ name: 'local__whoami' }),
      });
      assert.equal(again.status, 404);
      assert.match(
        ((await again.json()) as { error: string }).error,
        /local__whoami is not waiting for approval/,
      );
      assert.deepEqual(await (await fetch(admin('/admin/pins'), { headers: withToken })).json(), {
        lock: node.lock,
        held: [],
      });
    } finally {
      await client.close();
    }
  });

  test("checks one server from its config entry and answers the checker's result", async () => {
    const checked = await fetch(admin('/admin/check'), {
      method: 'POST',
      headers: { ...withToken, ...json },
      body: JSON.stringify({ server: 'local' }),
    });
    assert.equal(checked.status, 200);
    const result = (await checked.json()) as Record<string, unknown>;
    assert.equal(result.name, 'local');
    assert.equal(result.transport, 'stdio');
    assert.equal(result.error, undefined, String(result.error));
    assert.equal(typeof result.score, 'number');
    assert.ok((result.score as number) > 0);
    assert.ok(Array.isArray((result.surface as { tools: unknown[] }).tools));
    assert.equal(result.report, undefined, 'the result as history keeps it');
    const unknown = await fetch(admin('/admin/check'), {
      method: 'POST',
      headers: { ...withToken, ...json },
      body: JSON.stringify({ server: 'nope' }),
    });
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /no server \\"nope\\"/);
  });

  test('refuses a missing or wrong token, another Host, another Origin, a cross-site fetch', async () => {
    const port = new URL(node.url).port;
    const pins = admin('/admin/pins');
    const none = await raw(pins);
    assert.equal(none.status, 401);
    assert.match(none.body, new RegExp(`needs the admin token in ${ADMIN_TOKEN_HEADER}`));
    assert.equal((await raw(pins, { headers: { [ADMIN_TOKEN_HEADER]: `${TOKEN}x` } })).status, 401);
    const rebound = await raw(pins, { headers: { ...withToken, host: `evil.example:${port}` } });
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /DNS rebinding/);
    const page = await raw(pins, { headers: { ...withToken, origin: 'https://evil.example' } });
    assert.equal(page.status, 403);
    const crossSite = await raw(pins, { headers: { ...withToken, 'sec-fetch-site': 'cross-site' } });
    assert.equal(crossSite.status, 403);
    assert.equal((await raw(admin('/admin/nothing'), { headers: withToken })).status, 404);
  });
});

describe('the admin endpoint with gateway.auth', () => {
  let node: Node;
  before(async () => {
    node = await startGateway({
      auth: { apiKeys: { alice: '${ALICE_KEY}', bob: '${BOB_KEY}' } },
      admin: { principals: ['alice'] },
      audit: { file: 'audit.jsonl' },
    });
  });
  after(() => node?.stop());

  test('only a signed-in admin principal gets in: 401 without credentials, 403 for a non-admin', async () => {
    const pins = new URL('/admin/pins', node.url).href;
    const anonymous = await fetch(pins);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
    const bob = await fetch(pins, { headers: { authorization: `Bearer ${BOB}` } });
    assert.equal(bob.status, 403);
    assert.match(((await bob.json()) as { error: string }).error, /bob is not an admin of this gateway/);
    const alice = await fetch(pins, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(alice.status, 200);
    const { held } = (await alice.json()) as { held: Array<{ name: string }> };
    assert.deepEqual(
      held.map((h) => h.name),
      ['local__whoami'],
    );
    const approvedByBob = await fetch(new URL('/admin/pins/approve', node.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${BOB}`, ...json },
      body: JSON.stringify({ name: 'local__whoami' }),
    });
    assert.equal(approvedByBob.status, 403);
    const approved = await fetch(new URL('/admin/pins/approve', node.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, ...json },
      body: JSON.stringify({ name: 'local__whoami' }),
    });
    assert.equal(approved.status, 200);
    assert.match(node.stderr(), /"message":"admin: approved","principal":"alice"/);
    // Each of those requests is a line of the audit chain, written within a turn of the event loop.
    const file = join(node.dir, 'audit.jsonl');
    const admins = () =>
      (existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n') : [])
        .filter((line) => line.includes('"method":"GET /admin/') || line.includes('"method":"POST /admin/'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .map((r) => [r.method, r.principal, r.name, r.outcome]);
    await until(() => admins().length >= 5, 'five admin lines in the audit log');
    assert.deepEqual(admins(), [
      ['GET /admin/pins', null, null, 'unauthenticated'],
      ['GET /admin/pins', 'bob', null, 'denied'],
      ['GET /admin/pins', 'alice', null, 'ok'],
      ['POST /admin/pins/approve', 'bob', null, 'denied'],
      ['POST /admin/pins/approve', 'alice', 'local__whoami', 'ok'],
    ]);
    assert.equal((await runCli(['gateway', 'audit', 'verify', file])).code, 0);
  });
});

describe('a gateway without gateway.admin', () => {
  let node: Node;
  before(async () => {
    node = await startGateway({});
  });
  after(() => node?.stop());

  test('has no admin endpoint, and says how to add one', async () => {
    const answer = await fetch(new URL('/admin/pins', node.url));
    assert.equal(answer.status, 404);
    assert.match(((await answer.json()) as { error: string }).error, /add "admin" to "gateway"/);
  });
});

/**
 * Real clients sign in to an `auth.oauth` gateway through their own OAuth flows, against the real
 * authorization server (oidc-provider, examples/auth/dev-authorization-server.ts), nothing injected:
 * the gateway's 401 names its protected-resource metadata, which names the authorization server;
 * the client discovers it, registers itself (RFC 7591), signs the user in with PKCE (S256) for the
 * gateway as resource, gets the token and calls through the gateway, where the principal is the
 * token's subject and `gateway.access` is applied per principal.
 * - The project's CLI (`switchboard call` / `tools` meeting the 401), its browser `curl -sL` (with
 *   `--url-query login_hint=bob`, the user who signs in is bob).
 * - The official SDK v2 client with its own `OAuthClientProvider` (discovery, DCR, PKCE,
 *   `finishAuth`), both eras; a second principal is denied a tool; two more, whose tokens carry
 *   `groups` and `roles` claims, get what the `group:` rules allow.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  StreamableHTTPClientTransport,
  UnauthorizedError,
  Client as V2Client,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { headlessSignIn } from '../../examples/auth/headless-sign-in.js';
import { freePort } from '../../examples/cluster/services.js';
import { MemoryProvider, SDK_REDIRECT } from '../auth/sdk-oauth-provider.js';
import { CLI_ENV, runCli } from '../cli/run-cli.js';
import { until } from '../helpers/wait.js';
import { startGatewayCli, UPSTREAM } from './helpers.js';

interface AuditLine {
  principal: string | null;
  client: string | null;
  method: string;
  name?: string;
  outcome: string;
  session: string | null;
}

/** What the authorization server saw: registrations, authorization requests, token grants. */
interface Seen {
  registered: string[];
  authorized: Array<Record<string, string>>;
  granted: Array<Record<string, string>>;
}

describe('signing in to an auth.oauth gateway: the CLI and the official SDK v2 client, own OAuth flows', () => {
  let as: DevAuthorizationServer;
  let gatewayUrl: string;
  let dir: string;
  let stop: () => Promise<unknown>;
  const seen: Seen = { registered: [], authorized: [], granted: [] };

  const audit = (): AuditLine[] =>
    readFileSync(join(dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditLine);
  /** The audit line of the call of `tool` by `client`, once the gateway has written it. */
  const callOf = async (client: string, tool: string): Promise<AuditLine> => {
    let line: AuditLine | undefined;
    await until(() => {
      line = audit().find((l) => l.client === client && l.method === 'tools/call' && l.name === tool);
      return line !== undefined;
    }, `the audit line of ${client}'s ${tool} call`);
    return line!;
  };

  before(async () => {
    // What the directory says of two more people: carol is in the ops group, dave has the auditor role.
    as = await startDevAuthorizationServer({
      scopes: ['mcp'],
      tokenClaims: { carol: { groups: ['ops'] }, dave: { roles: ['auditor'] } },
    });
    as.provider.on('registration_create.success', (_ctx, client) => {
      seen.registered.push(String(client.clientName ?? client.clientId));
    });
    as.provider.on('authorization.success', (ctx) => {
      seen.authorized.push({ ...(ctx.oidc.params as Record<string, string>) });
    });
    as.provider.on('grant.success', (ctx) => {
      seen.granted.push({ ...(ctx.oidc.params as Record<string, string>) });
    });
    gatewayUrl = `http://127.0.0.1:${await freePort()}/mcp`;
    as.addResource(gatewayUrl, { scopes: ['mcp'] });
    dir = mkdtempSync(join(tmpdir(), 'gateway-sign-in-'));
    const config = join(dir, 'team.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { local: { command: process.execPath, args: [UPSTREAM] } },
        gateway: {
          port: Number(new URL(gatewayUrl).port),
          auth: {
            oauth: { issuer: as.issuer, audience: gatewayUrl, requiredScopes: ['mcp'] },
          },
          access: [
            { principals: ['dev-user'], allow: ['local__*'], deny: ['local__crash'] },
            { principals: ['bob'], allow: ['local__whoami'] },
            { principals: ['group:ops'], allow: ['local__whoami', 'local__touch'] },
            { principals: ['group:auditor'], allow: ['local__whoami', 'local__greet'] },
          ],
          audit: { file: 'audit.jsonl' },
        },
      }),
    );
    stop = (await startGatewayCli(config, CLI_ENV)).stop;
  });
  after(async () => {
    await stop?.();
    await as?.close();
  });

  describe('the project CLI', () => {
    const signedIn = (config: string, browser: string) => ({
      ...CLI_ENV,
      XDG_CONFIG_HOME: config,
      BROWSER: browser,
    });

    test('a command meeting the 401 signs in (metadata, discovery, DCR, PKCE, token), then calls as the subject', async () => {
      const config = mkdtempSync(join(tmpdir(), 'gateway-sign-in-cli-'));
      const env = signedIn(config, 'curl -sL');
      const registered = seen.registered.length;
      const authorized = seen.authorized.length;
      const run = await runCli(['call', gatewayUrl, 'local__whoami'], { env });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^unlabelled pid \d+\n$/);
      assert.match(run.stderr, /signing in with curl \(from \$BROWSER\)/);

      // The chain was the real one: the CLI registered itself, asked for the gateway with PKCE S256
      // and the scope the gateway's metadata offers, and redeemed the code with its verifier.
      assert.deepEqual(seen.registered.slice(registered), ['Switchboard CLI']);
      const request = seen.authorized.slice(authorized);
      assert.equal(request.length, 1);
      assert.equal(request[0]!.resource, gatewayUrl);
      assert.equal(request[0]!.code_challenge_method, 'S256');
      assert.equal(request[0]!.scope?.split(' ').includes('mcp'), true, request[0]!.scope);
      const redeemed = seen.granted.find((g) => g.grant_type === 'authorization_code' && g.code_verifier);
      assert.equal(redeemed?.resource, gatewayUrl);

      // The stored token is the gateway's (its audience) and names the user; it is never printed.
      const stored = JSON.parse(readFileSync(join(config, 'switchboard', 'tokens.json'), 'utf8'));
      const token = stored.tokens[gatewayUrl][as.issuer].access_token as string;
      assert.ok(!run.stdout.includes(token) && !run.stderr.includes(token), 'the token is never printed');
      const claims = decodeJwt(token);
      assert.equal(claims.sub, 'dev-user');
      assert.equal(claims.aud, gatewayUrl);

      // The gateway's principal is the token's subject; its rules apply to it.
      const call = await callOf('switchboard-cli', 'local__whoami');
      assert.equal(call.principal, 'dev-user');
      assert.equal(call.session, null, 'spoken in 2026-07-28 (no session)');
      // (The call spoke 2026-07-28; this list, the legacy era: a session of dev-user's.)
      const tools = await runCli(['tools', gatewayUrl, '--json', '--legacy'], {
        env: { ...env, BROWSER: 'false' },
      });
      assert.equal(tools.code, 0, tools.stderr);
      const names = (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.ok(names.includes('local__touch'), names.join(' '));
      assert.ok(!names.includes('local__crash'), 'dev-user is denied crash');
      assert.doesNotMatch(tools.stderr, /signing in/, 'the stored token is used: no second sign-in');
      const lists = audit().filter((l) => l.principal === 'dev-user' && l.method === 'tools/list');
      assert.notEqual(lists.at(-1)!.session, null, 'a legacy session, opened by dev-user');

      // A token the gateway refuses (here: replaced in the file) is refreshed for the gateway with
      // the stored refresh token, by a new process, without the browser.
      stored.tokens[gatewayUrl][as.issuer].access_token = 'refused-by-the-gateway';
      writeFileSync(join(config, 'switchboard', 'tokens.json'), JSON.stringify(stored));
      const granted = seen.granted.length;
      const again = await runCli(['call', gatewayUrl, 'local__whoami'], {
        env: { ...env, BROWSER: 'false' },
      });
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /signing in/);
      assert.deepEqual(
        seen.granted.slice(granted).map((g) => [g.grant_type, g.resource]),
        [['refresh_token', gatewayUrl]],
      );
    });

    test('a person slower at the browser than the era probe may wait: the CLI still speaks 2026-07-28', async () => {
      // The browser takes twice the probe's time (--timeout, 2.5 s) before it goes to the sign-in
      // page: the person reading it. The time at the browser is the user's, not the gateway's: the
      // server/discover probe must not give up on it and fall back to the legacy handshake.
      const env = {
        ...signedIn(
          mkdtempSync(join(tmpdir(), 'gateway-sign-in-slow-')),
          'sh -c "sleep 5; exec curl -sL \\"$1\\"" sh',
        ),
        XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'gateway-sign-in-slow-cache-')),
      };
      const run = await runCli(['call', gatewayUrl, 'local__whoami', '--timeout', '2500', '--verbose'], {
        env,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /signing in with sh \(from \$BROWSER\)/);
      assert.match(run.stderr, /protocol 2026-07-28 \(modern era\)/);
    });

    test('another person signing in (login_hint=bob) is bob at the gateway, with only what bob may use', async () => {
      const config = mkdtempSync(join(tmpdir(), 'gateway-sign-in-bob-'));
      const env = signedIn(config, 'curl -sL --url-query login_hint=bob');
      const login = await runCli(['login', gatewayUrl], { env });
      assert.equal(login.code, 0, login.stderr);
      const stored = JSON.parse(readFileSync(join(config, 'switchboard', 'tokens.json'), 'utf8'));
      assert.equal(decodeJwt(stored.tokens[gatewayUrl][as.issuer].access_token as string).sub, 'bob');

      const noBrowser = { ...env, BROWSER: 'false' };
      const tools = await runCli(['tools', gatewayUrl, '--json'], { env: noBrowser });
      assert.equal(tools.code, 0, tools.stderr);
      assert.deepEqual(
        (JSON.parse(tools.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name),
        ['local__whoami'],
      );
      // The CLI looks the name up in bob's list first: the denied tool is not there.
      const denied = await runCli(['call', gatewayUrl, 'local__touch'], { env: noBrowser });
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /the server has no tool "local__touch"\. Its tools: local__whoami/);
      const unknown = await runCli(['call', gatewayUrl, 'local__no_such_tool'], { env: noBrowser });
      assert.equal(
        denied.stderr.replaceAll('local__touch', 'X'),
        unknown.stderr.replaceAll('local__no_such_tool', 'X'),
        'a denied tool is answered as an unknown one',
      );
      const allowed = await runCli(['call', gatewayUrl, 'local__whoami'], { env: noBrowser });
      assert.equal(allowed.code, 0, allowed.stderr);
      const lines = audit().filter((l) => l.principal === 'bob' && l.method === 'tools/call');
      assert.deepEqual(
        lines.map((l) => [l.name, l.outcome]),
        [['local__whoami', 'ok']],
      );
    });
  });

  describe('the official SDK v2 client with its own OAuth provider', () => {
    /** Connects with `provider`, signing in through it first when the gateway asks (as `who`). */
    async function signIn(
      provider: MemoryProvider,
      mode: 'auto' | 'legacy',
      who?: string,
    ): Promise<V2Client> {
      const options = { versionNegotiation: { mode } };
      const first = new V2Client({ name: provider.clientName, version: '1.0.0' }, options);
      await assert.rejects(
        first.connect(new StreamableHTTPClientTransport(new URL(gatewayUrl), { authProvider: provider })),
        (error) => error instanceof UnauthorizedError,
      );
      const authorize = new URL(provider.authorizationUrl!);
      assert.equal(
        authorize.origin,
        as.issuer,
        "sent to the authorization server the gateway's metadata names",
      );
      assert.equal(authorize.searchParams.get('resource'), gatewayUrl);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      // The person at the browser signs in as `who`.
      if (who) authorize.searchParams.set('login_hint', who);
      const callback = await headlessSignIn(authorize, SDK_REDIRECT);
      const transport = new StreamableHTTPClientTransport(new URL(gatewayUrl), { authProvider: provider });
      await transport.finishAuth(callback.searchParams);
      const client = new V2Client({ name: provider.clientName, version: '1.0.0' }, options);
      await client.connect(transport);
      assert.equal(client.getNegotiatedProtocolVersion() === '2026-07-28', mode === 'auto');
      return client;
    }
    const textOf = (result: unknown) =>
      ((result as { content: { type: string; text?: string }[] }).content[0]?.text ?? '').toString();
    const errorOf = async (call: Promise<unknown>): Promise<string> => {
      try {
        const result = (await call) as { isError?: boolean; content?: { text?: string }[] };
        assert.equal(result.isError, true, JSON.stringify(result));
        return result.content?.[0]?.text ?? '';
      } catch (error) {
        return (error as Error).message;
      }
    };

    for (const mode of ['auto', 'legacy'] as const) {
      test(`signs in and calls a tool as the token's subject (${mode === 'auto' ? '2026-07-28' : 'legacy'})`, async () => {
        const provider = new MemoryProvider(`sdk-v2-${mode}`);
        const client = await signIn(provider, mode);
        try {
          assert.match(textOf(await client.callTool({ name: 'local__touch', arguments: {} })), /^touched$/);
          assert.equal(decodeJwt(provider.tokens()!.access_token).sub, 'dev-user');
          assert.equal((await callOf(`sdk-v2-${mode}`, 'local__touch')).principal, 'dev-user');
        } finally {
          await client.close();
        }
      });
    }

    // A `group:` rule matches the token's `groups` and `roles` claims, as the authorization server issued them.
    for (const [who, claim, allowed, prompts] of [
      ['carol', 'groups', ['local__touch', 'local__whoami'], []],
      ['dave', 'roles', ['local__whoami'], ['local__greet']],
    ] as const) {
      test(`${who}, signed in with ${claim} in the token, gets what the group: rule allows`, async () => {
        const provider = new MemoryProvider(`sdk-v2-${who}`);
        const client = await signIn(provider, 'auto', who);
        try {
          const claims = decodeJwt(provider.tokens()!.access_token);
          assert.equal(claims.sub, who);
          assert.ok(Array.isArray(claims[claim]), `the token carries ${claim}`);
          const names = (await client.listTools()).tools.map((t) => t.name).sort();
          assert.deepEqual(names, [...allowed]);
          assert.deepEqual(
            (await client.listPrompts()).prompts.map((p) => p.name),
            [...prompts],
          );
          const call = await client.callTool({ name: allowed[0], arguments: {} });
          assert.notEqual(call.isError, true, JSON.stringify(call));
          const denied = await errorOf(client.callTool({ name: 'local__crash', arguments: {} }));
          assert.match(denied, /local__crash/);
          assert.equal((await callOf(`sdk-v2-${who}`, allowed[0])).principal, who);
          assert.equal((await callOf(`sdk-v2-${who}`, 'local__crash')).outcome, 'denied');
        } finally {
          await client.close();
        }
      });
    }

    test('a second principal (bob) signs in the same way and is denied a tool by gateway.access', async () => {
      const provider = new MemoryProvider('sdk-v2-bob');
      const client = await signIn(provider, 'auto', 'bob');
      try {
        assert.equal(decodeJwt(provider.tokens()!.access_token).sub, 'bob');
        assert.deepEqual(
          (await client.listTools()).tools.map((t) => t.name),
          ['local__whoami'],
        );
        assert.match(textOf(await client.callTool({ name: 'local__whoami', arguments: {} })), /pid \d+/);
        const denied = await errorOf(client.callTool({ name: 'local__touch', arguments: {} }));
        const unknown = await errorOf(client.callTool({ name: 'local__nothing', arguments: {} }));
        assert.equal(
          denied.replaceAll('local__touch', 'X'),
          unknown.replaceAll('local__nothing', 'X'),
          'answered as an unknown tool',
        );
        assert.equal((await callOf('sdk-v2-bob', 'local__touch')).outcome, 'denied');
        assert.equal((await callOf('sdk-v2-bob', 'local__touch')).principal, 'bob');
      } finally {
        await client.close();
      }
    });
  });
});

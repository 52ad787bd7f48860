/**
 * "Never log a token; redact them in errors": a whole sign-in, calls, a refresh, a step-up and the
 * failures around them (a refused token, an authorization server that cannot be reached, a wrong
 * client secret, a revoked refresh token), with every logger of client and server set to the
 * console and the console and stderr captured, every error thrown inspected in depth; then the CLI
 * (login, a command after a refresh, logout, with --verbose). No access token, refresh token,
 * authorization code or client secret appears in any of it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { headlessSignIn } from '../../examples/auth/headless-sign-in.js';
import { OAuthClient } from '../../src/auth/client/oauth-client.js';
import { MemoryTokenStore } from '../../src/auth/client/store.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { CLI_ENV, runCli } from '../cli/run-cli.js';
import { modernHeaders, modernRequest, post } from '../http/server/helpers.js';
import { type ProtectedServer, startProtected } from './helpers.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const WEBAPP = { client_id: 'webapp', client_secret: 'webapp-secret-9f3a7c1e5b2d8f4a6c0e1b3d5f7a9c2e' };

/** Everything written to the console or stderr while `run` runs. */
async function capture(run: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const levels = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const originals = levels.map((level) => console[level]);
  const write = process.stderr.write;
  for (const level of levels)
    console[level] = (...args: unknown[]) => lines.push(inspect(args, { depth: 8 }));
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await run();
  } finally {
    levels.forEach((level, i) => {
      console[level] = originals[i]!;
    });
    process.stderr.write = write;
  }
  return lines.join('\n');
}

function assertNoSecret(haystack: string, secrets: ReadonlySet<string>, where: string): void {
  for (const secret of secrets) {
    assert.ok(!haystack.includes(secret), `${where} contains a secret (${secret.slice(0, 6)}…)`);
  }
}

describe('no token, code or client secret in any log line or error', () => {
  let as: DevAuthorizationServer;
  let server: ProtectedServer;
  let unreachable: ProtectedServer;
  let elsewhere: ProtectedServer;
  const secrets = new Set<string>([WEBAPP.client_secret]);
  let careless = false;

  before(async () => {
    as = await startDevAuthorizationServer({
      scopes: ['mcp', 'files:write'],
      clients: [
        {
          ...WEBAPP,
          application_type: 'native',
          token_endpoint_auth_method: 'client_secret_basic',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [REDIRECT],
        },
      ],
    });
    const mcp = new Server({ name: 'protected', version: '1.0.0' }, { logger: console });
    mcp.registerTool('whoami', {}, (_args, ctx) => {
      if (careless) console.log('handler sees', ctx.auth); // what a careless handler would do
      return `${ctx.auth?.subject}`;
    });
    mcp.registerTool('write', { scopes: ['files:write'] }, () => 'written');
    mcp.registerTool('fail', {}, () => {
      throw new Error('the tool failed');
    });
    const options = (onerror: (error: Error) => void) => ({ logger: console, onerror });
    server = await startProtected(
      mcp,
      () => ({ authorizationServers: [as.issuer], scopesSupported: ['mcp'], onerror: console.error }),
      options(console.error),
    );
    // Its keys cannot be fetched: tokens get 503 and onerror hears why.
    unreachable = await startProtected(
      new Server({ name: 'keyless', version: '1.0.0' }, { logger: console }),
      () => ({
        authorizationServers: [as.issuer],
        jwt: { jwksUri: 'http://127.0.0.1:9/jwks' },
        onerror: console.error,
      }),
      options(console.error),
    );
    // Another server of the same authorization server: a token for `server` is not for it.
    elsewhere = await startProtected(
      new Server({ name: 'elsewhere', version: '1.0.0' }, { logger: console }),
      () => ({ authorizationServers: [as.issuer], onerror: console.error }),
      options(console.error),
    );
    as.addResource(server.url, { scopes: ['mcp', 'files:write'] });
  });
  after(async () => {
    await server.close();
    await unreachable.close();
    await elsewhere.close();
    await as.close();
  });

  test('a library sign-in, calls, refresh, step-up and failures', async () => {
    const store = new MemoryTokenStore();
    const errors: unknown[] = [];
    /** Every token the authorization server hands out, read off its responses. */
    const oauthFetch = async (input: string, init?: RequestInit) => {
      const response = await fetch(input, init);
      if (input.endsWith('/token') && response.ok) {
        const body = (await response.clone().json()) as Record<string, unknown>;
        for (const key of ['access_token', 'refresh_token', 'id_token']) {
          if (typeof body[key] === 'string') secrets.add(body[key] as string);
        }
      }
      return response;
    };
    const authorize = async (url: URL) => {
      const callback = await headlessSignIn(url, REDIRECT);
      secrets.add(callback.searchParams.get('code')!);
      return callback;
    };
    careless = true;
    const logged = await capture(async () => {
      const oauth = new OAuthClient({
        redirectUri: REDIRECT,
        authorize,
        client: WEBAPP,
        store,
        fetch: oauthFetch,
      });
      const client = new Client(
        { name: 'test', version: '1.0.0' },
        { logger: console, onerror: console.error },
      );
      await client.connect(
        new StreamableHttpClientChannel(server.url, { fetch: oauth.fetch(nodeFetch), logger: console }),
      );
      assert.equal((await client.callTool('whoami')).content[0]?.type, 'text');
      await client.callTool('fail').catch((error: unknown) => errors.push(error));
      // Refresh before expiry.
      const tokens = (await store.getTokens(as.issuer, server.url))!;
      await store.setTokens(as.issuer, server.url, { ...tokens, expires_at: Math.floor(Date.now() / 1000) });
      await client.callTool('whoami');
      // Step-up.
      assert.equal((await client.callTool('write')).content[0]?.type, 'text');
      const current = (await store.getTokens(as.issuer, server.url))!;
      // A token refused by a server it was not minted for, and by one that cannot check it.
      for (const target of [unreachable.url, elsewhere.url]) {
        const reply = await post(target, modernRequest(1, 'tools/call', { name: 'whoami', arguments: {} }), {
          ...modernHeaders('tools/call', 'whoami'),
          authorization: `Bearer ${current.access_token}`,
        });
        errors.push(
          `${reply.status} ${inspect(reply.headers)} ${JSON.stringify(reply.json ?? reply.messages)}`,
        );
      }
      // A wrong client secret; a refresh token the authorization server no longer knows.
      const wrong = new OAuthClient({
        redirectUri: REDIRECT,
        authorize,
        client: { ...WEBAPP, client_secret: `${WEBAPP.client_secret}-wrong` },
      });
      secrets.add(`${WEBAPP.client_secret}-wrong`);
      await assert.rejects(wrong.signIn(server.url), (error: Error) => {
        errors.push(error);
        return /invalid_client/.test(error.message);
      });
      const revoked = await fetch(`${as.issuer}/token/revocation`, {
        method: 'POST',
        headers: { authorization: `Basic ${btoa(`${WEBAPP.client_id}:${WEBAPP.client_secret}`)}` },
        body: new URLSearchParams({ token: current.refresh_token!, token_type_hint: 'refresh_token' }),
      });
      assert.equal(revoked.status, 200);
      await store.setTokens(as.issuer, server.url, { ...current, expires_at: Math.floor(Date.now() / 1000) });
      const stale = new OAuthClient({
        redirectUri: REDIRECT,
        authorize: () => Promise.reject(new Error('no user here')),
        client: WEBAPP,
        store,
      });
      await new Client({ name: 'stale', version: '1.0.0' }, { logger: console })
        .connect(
          new StreamableHttpClientChannel(server.url, { fetch: stale.fetch(nodeFetch), logger: console }),
        )
        .catch((error: Error) => {
          errors.push(error);
          assert.match(
            error.message,
            /Could not sign in to .*: The user did not come back from .*: no user here\./,
          );
        });
      await client.close();
    });
    careless = false;
    assert.ok(secrets.size >= 6, `tokens were issued and recorded (${secrets.size})`);
    assert.ok(errors.length >= 4, 'the failures happened');
    assertNoSecret(logged, secrets, 'the console or stderr');
    for (const error of errors)
      assertNoSecret(inspect(error, { depth: 10 }), secrets, `an error: ${inspect(error)}`);
  });

  test('the CLI: login, a command after a refresh, logout, with --verbose', async () => {
    const env: NodeJS.ProcessEnv = { ...CLI_ENV, BROWSER: 'curl -sL' };
    const file = join(env.XDG_CONFIG_HOME!, 'switchboard', 'tokens.json');
    const tokensOf = () => {
      const stored = JSON.parse(readFileSync(file, 'utf8'));
      const entry = stored.tokens[server.url]?.[as.issuer];
      for (const key of ['access_token', 'refresh_token']) if (entry?.[key]) secrets.add(entry[key]);
      for (const client of Object.values(stored.clients) as { client_secret?: string }[]) {
        if (client.client_secret) secrets.add(client.client_secret);
      }
      return stored;
    };
    const output: string[] = [];
    const run = async (args: string[]) => {
      const result = await runCli(args, { env });
      output.push(result.stdout, result.stderr);
      assert.equal(result.code, 0, result.stderr);
    };
    await run(['login', server.url]);
    const stored = tokensOf();
    stored.tokens[server.url][as.issuer].expires_at = Math.floor(Date.now() / 1000);
    writeFileSync(file, JSON.stringify(stored));
    await run(['call', '--verbose', server.url, 'whoami']);
    const refreshed = tokensOf();
    assert.notEqual(
      refreshed.tokens[server.url][as.issuer].access_token,
      stored.tokens[server.url][as.issuer].access_token,
    );
    await run(['tools', '--verbose', server.url]);
    await run(['logout', server.url]);
    assertNoSecret(output.join('\n'), secrets, 'the CLI output');
  });
});

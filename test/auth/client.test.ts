/**
 * `OAuthClient` end to end: a Switchboard Client signs in to a Switchboard server protected by
 * `bearer()`, through the real development authorization server (oidc-provider): discovery from
 * the 401, dynamic registration, authorization code with PKCE S256 and the resource indicator,
 * RFC 9207 `iss`, refresh (before expiry, and once on 401), step-up on 403, client credentials.
 * Both eras. Every message the client sends is checked against its revision's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { headlessSignIn } from '../../examples/auth/headless-sign-in.js';
import { OAuthClient, type OAuthClientOptions } from '../../src/auth/client/oauth-client.js';
import { MemoryTokenStore } from '../../src/auth/client/store.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { type ProtectedServer, ROBOT, ROBOT_REGISTRATION, startProtected } from './helpers.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

function makeServer(): Server {
  const server = new Server({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.scopes?.join(' ')}`);
  server.registerTool('write', { scopes: ['files:write'] }, () => 'written');
  return server;
}

const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;

describe('OAuthClient against a protected Switchboard server and oidc-provider', () => {
  let as: DevAuthorizationServer;
  let server: ProtectedServer;
  const signIns: URL[] = [];

  const oauthClient = (options: Partial<OAuthClientOptions> = {}) =>
    new OAuthClient({
      redirectUri: REDIRECT,
      authorize: (url) => {
        signIns.push(url);
        return headlessSignIn(url, REDIRECT);
      },
      ...options,
    });

  async function connect(auth: OAuthClient, version?: 'legacy'): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' }, version ? { version } : {});
    await client.connect(new StreamableHttpClientChannel(server.url, { fetch: auth.fetch(nodeFetch) }));
    return client;
  }

  before(async () => {
    as = await startDevAuthorizationServer({
      scopes: ['mcp', 'files:write'],
      clients: [ROBOT_REGISTRATION],
    });
    server = await startProtected(makeServer(), () => ({
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp'],
    }));
    as.addResource(server.url, { scopes: ['mcp', 'files:write'] });
  });
  after(async () => {
    await server.close();
    await as.close();
  });

  for (const era of [undefined, 'legacy'] as const) {
    test(`signs in on the first 401 and calls (${era ?? 'modern'} era)`, async () => {
      const auth = oauthClient();
      signIns.length = 0;
      const client = await connect(auth, era);
      assert.equal(text(await client.callTool('whoami')), 'dev-user mcp');
      assert.equal(signIns.length, 1, 'one sign-in');
      const url = signIns[0]!;
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(url.searchParams.get('resource'), server.url);
      // The challenge's scope, and offline_access: the authorization server lists it (SEP-2207).
      assert.equal(url.searchParams.get('scope'), 'mcp offline_access');
      assert.ok(url.searchParams.get('state'));
      await client.close();
    });
  }

  test('step-up: a 403 insufficient_scope signs in again with the scope, then the call passes', async () => {
    const auth = oauthClient();
    signIns.length = 0;
    const client = await connect(auth);
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['whoami'],
    );
    assert.equal(text(await client.callTool('write')), 'written');
    assert.equal(signIns.length, 2);
    assert.deepEqual(signIns[1]!.searchParams.get('scope')?.split(' ').sort(), [
      'files:write',
      'mcp',
      'offline_access',
    ]);
    await client.close();
  });

  test('refresh: an expiring token is refreshed before use, a refused one once, without a new sign-in', async () => {
    const store = new MemoryTokenStore();
    const auth = oauthClient({ store });
    signIns.length = 0;
    const client = await connect(auth);
    const first = (await store.getTokens(as.issuer, server.url))!;
    assert.ok(first.refresh_token, 'a refresh token was issued');
    await store.setTokens(as.issuer, server.url, { ...first, expires_at: Math.floor(Date.now() / 1000) + 5 });
    assert.equal(text(await client.callTool('whoami')), 'dev-user mcp');
    const second = (await store.getTokens(as.issuer, server.url))!;
    assert.notEqual(second.access_token, first.access_token, 'refreshed before expiry');
    // A token the server refuses (here: garbage), not yet expired: one refresh, then the call.
    await store.setTokens(as.issuer, server.url, { ...second, access_token: 'not-a-token' });
    assert.equal(text(await client.callTool('whoami')), 'dev-user mcp');
    assert.equal(signIns.length, 1, 'no second sign-in');
    await client.close();
  });

  test('holdTimeouts: a user slower at the browser than the era probe; the probe waits, then has its time', async () => {
    let holding = 0;
    const heldAtTheBrowser: number[] = [];
    const auth = oauthClient({
      authorize: async (url) => {
        heldAtTheBrowser.push(holding);
        // The person reads the page for three times the probe's timeout (the time at the browser
        // is what is tested; the probe's own second, after it, is a wide margin for one loopback call).
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return headlessSignIn(url, REDIRECT);
      },
    });
    const client = new Client({ name: 'test', version: '1.0.0' }, { probeTimeoutMs: 1000 });
    await client.connect(
      new StreamableHttpClientChannel(server.url, {
        rememberEra: false,
        fetch: auth.fetch(nodeFetch, {
          holdTimeouts: () => {
            holding++;
            const release = client.holdTimeouts();
            return () => {
              holding--;
              release();
            };
          },
        }),
      }),
    );
    assert.deepEqual(heldAtTheBrowser, [1], 'held while the user was at the browser');
    assert.equal(holding, 0, 'released once signed in');
    assert.equal(client.era, 'modern', 'the probe was not given up on');
    assert.equal(text(await client.callTool('whoami')), 'dev-user mcp');
    await client.close();
  });

  test('client credentials: a machine client signs in without a user', async () => {
    const auth = new OAuthClient({ grant: 'client_credentials', client: ROBOT, scope: 'mcp files:write' });
    const client = await connect(auth);
    assert.equal(text(await client.callTool('write')), 'written');
    await client.close();
  });

  test('a JWT-bearer client is refused at construction without its client or its assertion', () => {
    assert.throws(
      () => new OAuthClient({ grant: 'jwt_bearer', assertion: () => 'x' }),
      /JWT-bearer grant needs `client`/,
    );
    assert.throws(() => new OAuthClient({ grant: 'jwt_bearer', client: ROBOT }), /needs `assertion`/);
  });

  test('a client that cannot register gets an error that says what to configure', async () => {
    const noDcr = await startDevAuthorizationServer({ scopes: ['mcp'], registration: false });
    const other = await startProtected(makeServer(), () => ({ authorizationServers: [noDcr.issuer] }));
    try {
      const client = new Client({ name: 'test', version: '1.0.0' });
      await assert.rejects(
        client.connect(new StreamableHttpClientChannel(other.url, { fetch: oauthClient().fetch(nodeFetch) })),
        /no dynamic client registration.*pass its credentials as OAuthClient's `client` option/,
      );
    } finally {
      await other.close();
      await noDcr.close();
    }
  });
});

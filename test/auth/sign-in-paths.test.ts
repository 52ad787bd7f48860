/**
 * `OAuthClient` ↔ a Switchboard server protected by `bearer()` ↔ the real authorization server
 * (oidc-provider in this process, examples/auth/dev-authorization-server.ts), along each path the
 * issue names: registration by Client ID Metadata Document and by DCR, a pre-registered
 * `private_key_jwt` client (authorization code, refresh and client credentials), an authorization
 * server without PKCE S256 refused, an expired token refused and refreshed, a token for another
 * server refused, step-up and session binding in both eras, and Protected Resource Metadata found
 * at the path-inserted and at the root well-known URI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { headlessSignIn } from '../../examples/auth/headless-sign-in.js';
import { OAuthClient, type OAuthClientOptions } from '../../src/auth/client/oauth-client.js';
import { MemoryTokenStore } from '../../src/auth/client/store.js';
import { parseWwwAuthenticate } from '../../src/auth/www-authenticate.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { nodeFetch } from '../../src/node/fetch.js';
import type { FetchLike } from '../../src/transports/http/client/fetch-like.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { modernHeaders, modernRequest, post, sessionHeaders } from '../http/server/helpers.js';
import { type ProtectedServer, ROBOT, ROBOT_REGISTRATION, startProtected } from './helpers.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const CIMD_URL = 'https://app.example/switchboard-client.json';
const ERAS = [undefined, 'legacy'] as const;
const eraName = (era: (typeof ERAS)[number]) => era ?? '2026-07-28';

function makeServer(): Server {
  const server = new Server({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.clientId}`);
  server.registerTool('write', { scopes: ['files:write'] }, () => 'written');
  return server;
}

/** A 2026-07-28 `tools/call whoami` with `token`, outside any client. */
const callWith = (url: string, token: string) =>
  post(url, modernRequest(1, 'tools/call', { name: 'whoami', arguments: {} }), {
    ...modernHeaders('tools/call', 'whoami'),
    authorization: `Bearer ${token}`,
  });

const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;

/** What went over the wire: every OAuth request's URL, every MCP response's status. */
class Recorder {
  readonly oauthUrls: string[] = [];
  readonly mcpStatuses: number[] = [];
  readonly oauthFetch = (input: string, init?: RequestInit) => {
    this.oauthUrls.push(input);
    return fetch(input, init);
  };
  readonly mcpFetch: FetchLike = async (url, init) => {
    const response = await nodeFetch(url, init);
    this.mcpStatuses.push(response.status);
    return response;
  };
}

describe('OAuthClient sign-in paths against oidc-provider', () => {
  let as: DevAuthorizationServer;
  let server: ProtectedServer;
  let other: ProtectedServer;
  let clientKey: jose.GenerateKeyPairResult;
  const cimdServed: string[] = [];

  const userClient = (options: Partial<OAuthClientOptions> = {}) =>
    new OAuthClient({ redirectUri: REDIRECT, authorize: (url) => headlessSignIn(url, REDIRECT), ...options });

  async function connect(
    auth: OAuthClient,
    era?: 'legacy',
    inner: FetchLike = nodeFetch,
    url = server.url,
  ): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' }, era ? { version: era } : {});
    await client.connect(new StreamableHttpClientChannel(url, { fetch: auth.fetch(inner) }));
    return client;
  }

  before(async () => {
    clientKey = await jose.generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await jose.exportJWK(clientKey.publicKey)), kid: 'client-key-1', alg: 'ES256' };
    as = await startDevAuthorizationServer({
      scopes: ['mcp', 'files:write'],
      clients: [
        ROBOT_REGISTRATION,
        {
          client_id: 'keyed',
          application_type: 'native',
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'ES256',
          jwks: { keys: [publicJwk as never] },
          grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
          response_types: ['code'],
          redirect_uris: [REDIRECT],
        },
      ],
      // The client's metadata document, as its https URL would serve it.
      clientMetadataFetch: async (url) => {
        cimdServed.push(url);
        if (url !== CIMD_URL) return new Response('not found', { status: 404 });
        return Response.json({
          client_id: CIMD_URL,
          client_name: 'Switchboard test client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        });
      },
    });
    server = await startProtected(makeServer(), () => ({
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp'],
    }));
    other = await startProtected(makeServer(), () => ({
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp'],
    }));
    as.addResource(server.url, { scopes: ['mcp', 'files:write'] });
    as.addResource(other.url, { scopes: ['mcp'] });
  });
  after(async () => {
    await server.close();
    await other.close();
    await as.close();
  });

  test('Client ID Metadata Document: the URL is the client id, nothing is registered', async () => {
    const recorder = new Recorder();
    const store = new MemoryTokenStore();
    const auth = userClient({ clientMetadataUrl: CIMD_URL, store, fetch: recorder.oauthFetch });
    const client = await connect(auth);
    assert.equal(text(await client.callTool('whoami')), `dev-user ${CIMD_URL}`);
    assert.ok(cimdServed.includes(CIMD_URL), 'the authorization server fetched the document');
    assert.ok(!recorder.oauthUrls.some((u) => u.endsWith('/reg')), 'no dynamic registration');
    assert.equal(await store.getClient(as.issuer), undefined, 'no registered client to keep');
    await client.close();
  });

  test('Dynamic Client Registration (RFC 7591) when there is no metadata document URL', async () => {
    const recorder = new Recorder();
    const store = new MemoryTokenStore();
    const client = await connect(userClient({ store, fetch: recorder.oauthFetch }));
    const registered = await store.getClient(as.issuer);
    assert.ok(registered?.client_id, 'the registration is kept');
    assert.ok(recorder.oauthUrls.includes(`${as.issuer}/reg`), 'registered at the registration endpoint');
    assert.ok(
      await as.provider.Client.find(registered.client_id),
      'the authorization server knows the client',
    );
    assert.equal(text(await client.callTool('whoami')), `dev-user ${registered.client_id}`);
    await client.close();
  });

  test('private_key_jwt: authorization code, refresh and client credentials with a signed assertion', async () => {
    const recorder = new Recorder();
    const store = new MemoryTokenStore();
    const keyed = { client_id: 'keyed', private_key: { key: clientKey.privateKey, kid: 'client-key-1' } };
    const client = await connect(userClient({ client: keyed, store, fetch: recorder.oauthFetch }));
    assert.equal(text(await client.callTool('whoami')), 'dev-user keyed');
    const tokens = (await store.getTokens(as.issuer, server.url))!;
    assert.ok(tokens.refresh_token);
    // Force a refresh: the refresh grant authenticates with a fresh assertion too.
    await store.setTokens(as.issuer, server.url, { ...tokens, expires_at: Math.floor(Date.now() / 1000) });
    assert.equal(text(await client.callTool('whoami')), 'dev-user keyed');
    assert.notEqual((await store.getTokens(as.issuer, server.url))!.access_token, tokens.access_token);
    await client.close();

    const machine = new OAuthClient({ grant: 'client_credentials', client: keyed, scope: 'mcp' });
    const robot = await connect(machine);
    assert.equal(text(await robot.callTool('whoami')), 'keyed keyed', 'the client is the subject');
    await robot.close();
  });

  test('client credentials with a client secret: the machine client is the principal', async () => {
    const machine = new OAuthClient({ grant: 'client_credentials', client: ROBOT, scope: 'mcp files:write' });
    const client = await connect(machine);
    assert.equal(text(await client.callTool('whoami')), 'robot robot', 'the client is the subject');
    assert.equal(text(await client.callTool('write')), 'written');
    await client.close();
  });

  test('an authorization server that does not list PKCE S256 is refused before any sign-in', async () => {
    let authorized = 0;
    const withoutS256 = async (input: string, init?: RequestInit) => {
      const response = await fetch(input, init);
      if (!input.includes('/.well-known/')) return response;
      const body = (await response.json()) as Record<string, unknown>;
      delete body.code_challenge_methods_supported;
      return Response.json(body, { status: response.status });
    };
    const auth = userClient({
      fetch: withoutS256,
      authorize: (url) => {
        authorized++;
        return headlessSignIn(url, REDIRECT);
      },
    });
    await assert.rejects(connect(auth), /does not list PKCE S256.*refusing to sign in without PKCE/);
    assert.equal(authorized, 0, 'the user was never sent to the authorization server');
  });

  test('an expired token is refused by the server; the client refreshes it and calls again', async (t) => {
    // The clock of this process (oidc-provider's, bearer()'s, the client's) moves past the expiry.
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const store = new MemoryTokenStore();
    const recorder = new Recorder();
    const client = await connect(userClient({ store }), undefined, recorder.mcpFetch);
    const issued = (await store.getTokens(as.issuer, server.url))!;
    t.mock.timers.tick((3600 + 120) * 1000);
    const expired = await callWith(server.url, issued.access_token);
    assert.equal(expired.status, 401);
    const [challenge] = parseWwwAuthenticate(expired.headers.get('www-authenticate'));
    assert.equal(challenge?.params.error, 'invalid_token');
    assert.match(challenge?.params.error_description ?? '', /exp/);
    // A client that was not told the expiry (no expires_in) meets the 401, refreshes, retries.
    const { expires_at: _, ...unknownExpiry } = issued;
    await store.setTokens(as.issuer, server.url, unknownExpiry);
    recorder.mcpStatuses.length = 0;
    assert.equal(
      text(await client.callTool('whoami')),
      `dev-user ${(await store.getClient(as.issuer))?.client_id}`,
    );
    assert.deepEqual(recorder.mcpStatuses, [401, 200], 'refused once, then accepted');
    const refreshed = (await store.getTokens(as.issuer, server.url))!;
    assert.notEqual(refreshed.access_token, issued.access_token);
    assert.equal(refreshed.refresh_token !== undefined, true);
    await client.close();
  });

  test('a token the authorization server minted for another server is refused; the client signs in for this one', async () => {
    const store = new MemoryTokenStore();
    const signIns: URL[] = [];
    const auth = userClient({
      store,
      authorize: (url) => {
        signIns.push(url);
        return headlessSignIn(url, REDIRECT);
      },
    });
    const first = await connect(auth, undefined, nodeFetch, other.url);
    await first.close();
    const forOther = (await store.getTokens(as.issuer, other.url))!;
    const raw = await callWith(server.url, forOther.access_token);
    assert.equal(raw.status, 401);
    assert.match(
      parseWwwAuthenticate(raw.headers.get('www-authenticate'))[0]?.params.error_description ?? '',
      /aud/,
    );
    // The same token, stored (wrongly) under this server: refused, and the client signs in anew.
    await store.setTokens(as.issuer, server.url, forOther);
    const recorder = new Recorder();
    const client = await connect(auth, undefined, recorder.mcpFetch);
    assert.match(text(await client.callTool('whoami')) ?? '', /^dev-user /);
    assert.equal(recorder.mcpStatuses[0], 401);
    assert.equal(signIns.at(-1)?.searchParams.get('resource'), server.url);
    const mine = (await store.getTokens(as.issuer, server.url))!;
    assert.deepEqual(jose.decodeJwt(mine.access_token).aud, server.url);
    await client.close();
  });

  for (const era of ERAS) {
    test(`step-up on 403 insufficient_scope (${eraName(era)})`, async () => {
      const recorder = new Recorder();
      const store = new MemoryTokenStore();
      const client = await connect(userClient({ store }), era, recorder.mcpFetch);
      assert.equal(text(await client.callTool('write')), 'written');
      assert.ok(recorder.mcpStatuses.includes(403), 'the server asked for the scope');
      const granted = (await store.getTokens(as.issuer, server.url))?.scope?.split(' ') ?? [];
      assert.ok(granted.includes('files:write') && granted.includes('mcp'), granted.join(' '));
      await client.close();
    });
  }

  test('2026-07-28: each request stands alone, with whoever its token names', async () => {
    const user = await connect(userClient());
    const robot = await connect(
      new OAuthClient({ grant: 'client_credentials', client: ROBOT, scope: 'mcp' }),
    );
    assert.match(text(await user.callTool('whoami')) ?? '', /^dev-user /);
    assert.equal(text(await robot.callTool('whoami')), 'robot robot');
    await user.close();
    await robot.close();
  });

  for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`a ${revision} session refuses another principal's token, and none, as if it did not exist`, async () => {
      const store = new MemoryTokenStore();
      const user = await connect(userClient({ store }), 'legacy');
      const robotAuth = new OAuthClient({ grant: 'client_credentials', client: ROBOT, scope: 'mcp' });
      const robotToken = await robotAuth.signIn(server.url);
      // The user's session, opened through the client at this revision.
      const open = await post(
        server.url,
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        },
        {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${(await store.getTokens(as.issuer, server.url))!.access_token}`,
        },
      );
      assert.equal(open.status, 200);
      const sessionId = open.headers.get('mcp-session-id')!;
      const inSession = (id: string, token?: string) =>
        post(
          server.url,
          { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
          { ...sessionHeaders(id, revision), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        );
      const userToken = (await store.getTokens(as.issuer, server.url))!.access_token;
      assert.equal((await inSession(sessionId, userToken)).status, 200);
      const hijack = await inSession(sessionId, robotToken);
      const unknownId = sessionId.replace(/./g, '0');
      const unknown = await inSession(unknownId, robotToken);
      assert.equal(hijack.status, 404);
      assert.equal(unknown.status, 404);
      assert.equal(
        JSON.stringify(hijack.json).replaceAll(sessionId, 'ID'),
        JSON.stringify(unknown.json).replaceAll(unknownId, 'ID'),
        'the same answer as for a session that does not exist',
      );
      const anonymous = await inSession(sessionId);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('mcp-session-id'), null);
      assert.equal((await inSession(sessionId, userToken)).status, 200, 'the session is still the user’s');
      await user.close();
    });
  }

  for (const form of ['path-inserted', 'root'] as const) {
    test(`Protected Resource Metadata at the ${form} well-known URI, without resource_metadata in the challenge`, async () => {
      const pathInserted = `${server.origin}/.well-known/oauth-protected-resource/mcp`;
      const root = `${server.origin}/.well-known/oauth-protected-resource`;
      const asked: string[] = [];
      // The server's challenge names no metadata URL; for `root`, the path-inserted form is absent.
      const bare: FetchLike = async (url, init) => {
        const response = await nodeFetch(url, init);
        const header = response.headers.get('www-authenticate');
        if (!header) return response;
        const stripped = header.replace(/,? *resource_metadata="[^"]*"/, '');
        return {
          status: response.status,
          statusText: response.statusText,
          body: response.body,
          text: () => response.text(),
          headers: {
            get: (name) =>
              name.toLowerCase() === 'www-authenticate' ? stripped : response.headers.get(name),
          },
        };
      };
      const oauthFetch = (input: string, init?: RequestInit) => {
        if (input.includes('/.well-known/oauth-protected-resource')) asked.push(input);
        if (form === 'root' && input === pathInserted)
          return Promise.resolve(new Response('', { status: 404 }));
        return fetch(input, init);
      };
      const client = await connect(userClient({ fetch: oauthFetch }), undefined, bare);
      assert.match(text(await client.callTool('whoami')) ?? '', /^dev-user /);
      assert.deepEqual(asked, form === 'root' ? [pathInserted, root] : [pathInserted]);
      await client.close();
    });
  }
});

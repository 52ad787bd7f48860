/**
 * DPoP (RFC 9449, SEP-1932) end to end: `OAuthClient` gets a DPoP-bound token from the real
 * authorization server (oidc-provider binds it: `cnf.jkt`) and presents it to a Switchboard server
 * protected by `bearer({ dpop })`, both eras, refresh included. The resource server's refusals are
 * driven by hand-made proofs: a stolen bound token as Bearer, a proof of another key, a replayed
 * proof, a proof for another method, URL or token; and a Bearer-only server keeps getting Bearer
 * tokens from the same client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
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
import { modernHeaders, modernRequest, post } from '../http/server/helpers.js';
import { type ProtectedServer, startProtected } from './helpers.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

function makeServer(): Server {
  const server = new Server({ name: 'dpop', version: '1.0.0' });
  server.registerTool(
    'whoami',
    {},
    (_args, ctx) => `${ctx.auth?.subject} ${String(ctx.auth?.extra?.dpopKey)}`,
  );
  return server;
}

const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;

/** A DPoP proof (RFC 9449 §4.2) made by hand, with what a test wants changed. */
async function proof(
  keys: jose.GenerateKeyPairResult,
  claims: { htm?: string; htu: string; token: string; iat?: number; jti?: string },
): Promise<string> {
  const ath = jose.base64url.encode(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(claims.token))),
  );
  return new jose.SignJWT({
    htm: claims.htm ?? 'POST',
    htu: claims.htu,
    ath,
    jti: claims.jti ?? crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await jose.exportJWK(keys.publicKey) })
    .setIssuedAt(claims.iat)
    .sign(keys.privateKey);
}

describe('DPoP: OAuthClient, bearer({ dpop }) and oidc-provider', () => {
  let as: DevAuthorizationServer;
  let server: ProtectedServer;
  let bearerOnly: ProtectedServer;
  let required: ProtectedServer;
  const keys = crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);

  const oauthClient = async (store = new MemoryTokenStore()) =>
    new OAuthClient({
      redirectUri: REDIRECT,
      authorize: (url) => headlessSignIn(url, REDIRECT),
      store,
      dpopKey: await keys,
    });

  async function connect(url: string, auth: OAuthClient, version?: 'legacy'): Promise<Client> {
    const client = new Client({ name: 'test', version: '1.0.0' }, version ? { version } : {});
    await client.connect(new StreamableHttpClientChannel(url, { fetch: auth.fetch(nodeFetch) }));
    return client;
  }

  /** A DPoP-bound token and the key it is bound to, for raw requests. */
  let bound: { token: string; keys: jose.GenerateKeyPairResult };

  before(async () => {
    as = await startDevAuthorizationServer({ scopes: ['mcp'] });
    const options = (dpop: boolean | { required: true }) => () => ({
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp'],
      dpop,
    });
    server = await startProtected(makeServer(), options(true));
    bearerOnly = await startProtected(makeServer(), options(false));
    required = await startProtected(makeServer(), options({ required: true }));
    for (const s of [server, bearerOnly, required]) as.addResource(s.url, { scopes: ['mcp'] });
    // The raw-request tests' token: an OAuthClient with a key the test can sign with.
    const raw = await jose.generateKeyPair('ES256', { extractable: false });
    const store = new MemoryTokenStore();
    const auth = new OAuthClient({
      redirectUri: REDIRECT,
      authorize: (url) => headlessSignIn(url, REDIRECT),
      store,
      dpopKey: raw as never,
    });
    await auth.signIn(server.url, { dpop: true });
    bound = { token: (await store.getTokens(as.issuer, server.url))!.access_token, keys: raw };
  });
  after(async () => {
    await Promise.all([server.close(), bearerOnly.close(), required.close()]);
    await as.close();
  });

  for (const era of [undefined, 'legacy'] as const) {
    test(`signs in with DPoP and calls with proofs (${era ?? 'modern'} era)`, async () => {
      const store = new MemoryTokenStore();
      const client = await connect(server.url, await oauthClient(store), era);
      const tokens = (await store.getTokens(as.issuer, server.url))!;
      assert.equal(tokens.token_type, 'dpop');
      assert.ok(tokens.dpop_jkt);
      const claims = jose.decodeJwt(tokens.access_token) as { cnf?: { jkt?: string } };
      assert.equal(claims.cnf?.jkt, tokens.dpop_jkt, 'the authorization server bound the token to our key');
      // The handler sees the key the proof was made with.
      assert.equal(text(await client.callTool('whoami')), `dev-user ${tokens.dpop_jkt}`);
      await client.close();
    });
  }

  test('a DPoP-bound grant refreshes with a proof of the same key', async () => {
    const store = new MemoryTokenStore();
    const client = await connect(server.url, await oauthClient(store));
    const first = (await store.getTokens(as.issuer, server.url))!;
    assert.ok(first.refresh_token);
    await store.setTokens(as.issuer, server.url, { ...first, expires_at: Math.floor(Date.now() / 1000) + 5 });
    assert.match(text(await client.callTool('whoami'))!, /^dev-user /);
    const second = (await store.getTokens(as.issuer, server.url))!;
    assert.notEqual(second.access_token, first.access_token, 'refreshed');
    assert.equal(second.dpop_jkt, first.dpop_jkt);
    await client.close();
  });

  test('a server that takes only Bearer tokens gets Bearer tokens from the same client', async () => {
    const store = new MemoryTokenStore();
    const client = await connect(bearerOnly.url, await oauthClient(store));
    const tokens = (await store.getTokens(as.issuer, bearerOnly.url))!;
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.dpop_jkt, undefined);
    assert.equal(text(await client.callTool('whoami')), 'dev-user undefined');
    await client.close();
  });

  test('metadata and challenges name DPoP; a server that requires it refuses Bearer', async () => {
    const response = await fetch(`${required.origin}/.well-known/oauth-protected-resource/mcp`);
    const metadata = (await response.json()) as Record<string, any>;
    assert.equal(metadata.dpop_bound_access_tokens_required, true);
    assert.ok(metadata.dpop_signing_alg_values_supported.includes('ES256'));
    const none = await post(server.url, modernRequest(1, 'tools/list'), modernHeaders('tools/list'));
    const challenge = none.headers.get('www-authenticate')!;
    assert.match(challenge, /^Bearer .*resource_metadata=.*, DPoP algs="ES256 [^"]*".*resource_metadata=/);
    const bearerToken = await (await oauthClient()).signIn(bearerOnly.url);
    const refused = await post(required.url, modernRequest(1, 'tools/list'), {
      ...modernHeaders('tools/list'),
      authorization: `Bearer ${bearerToken}`,
    });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /^DPoP algs=/);
  });

  test('the resource server refuses stolen tokens, foreign keys, replays and proofs for another request', async () => {
    const request = modernRequest(1, 'tools/list');
    const send = (authorization: string, dpop?: string) =>
      post(server.url, request, {
        ...modernHeaders('tools/list'),
        authorization,
        ...(dpop ? { dpop } : {}),
      });
    const refusal = async (reply: Promise<{ status: number; headers: Headers }>, pattern: RegExp) => {
      const { status, headers } = await reply;
      assert.equal(status, 401);
      assert.match(headers.get('www-authenticate')!, pattern);
    };
    const { token, keys: mine } = bound;
    const good = await proof(mine, { htu: server.url, token });
    assert.equal((await send(`DPoP ${token}`, good)).status, 200, 'a proof of the bound key passes');
    await refusal(send(`DPoP ${token}`, good), /DPoP .*error="invalid_dpop_proof".*replay/);
    await refusal(send(`Bearer ${token}`), /Bearer error="invalid_token".*bound to a DPoP key/);
    await refusal(send(`DPoP ${token}`), /error="invalid_dpop_proof".*no DPoP proof/);
    const other = await jose.generateKeyPair('ES256');
    await refusal(
      send(`DPoP ${token}`, await proof(other, { htu: server.url, token })),
      /error="invalid_token".*another key/,
    );
    await refusal(
      send(`DPoP ${token}`, await proof(mine, { htu: server.url, token, htm: 'GET' })),
      /invalid_dpop_proof.*is for GET/,
    );
    await refusal(
      send(`DPoP ${token}`, await proof(mine, { htu: `${server.origin}/other`, token })),
      /invalid_dpop_proof.*another URL/,
    );
    await refusal(
      send(`DPoP ${token}`, await proof(mine, { htu: server.url, token: 'another-token' })),
      /invalid_dpop_proof.*another access token/,
    );
    await refusal(
      send(
        `DPoP ${token}`,
        await proof(mine, { htu: server.url, token, iat: Math.floor(Date.now() / 1000) - 600 }),
      ),
      /invalid_dpop_proof.*iat/,
    );
  });
});

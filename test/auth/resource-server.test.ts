/**
 * `bearer()`: a Switchboard HTTP server as an OAuth protected resource, checked with raw HTTP in
 * both eras. Tokens are minted by a local signing authority (test/auth/key-issuer.ts), so each rule
 * meets exactly the token that breaks it: wrong audience, expired, unknown issuer, unpublished key,
 * rotated keys, missing scopes. Every message the server sends is checked against its schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseWwwAuthenticate } from '../../src/auth/www-authenticate.js';
import { Server } from '../../src/extensions/server.js';
import {
  assertError,
  type Exchange,
  modernHeaders,
  modernRequest,
  post,
  sessionHeaders,
} from '../http/server/helpers.js';
import { WireCheck } from '../http/server/wire.js';
import { openSession, type ProtectedServer, startProtected } from './helpers.js';
import { KeyIssuer } from './key-issuer.js';

function makeServer(): Server {
  const server = new Server({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) =>
    JSON.stringify({
      subject: ctx.auth?.subject,
      clientId: ctx.auth?.clientId,
      issuer: ctx.auth?.issuer,
      scopes: ctx.auth?.scopes,
      serialized: JSON.stringify(ctx.auth),
      hasToken: typeof ctx.auth?.token === 'string',
    }),
  );
  server.registerTool('write', { scopes: ['files:write'] }, () => 'written');
  server.registerTool('admin', { scopes: ['files:admin'] }, () => 'admin');
  server.registerPrompt('secret-prompt', { scopes: ['prompts:secret'] }, () => 'hush');
  server.registerResource('vault', 'vault://one', { scopes: ['vault:read'] }, () => 'gold');
  return server;
}

const bearerHeaders = (token: string | undefined, method: string, name?: string) => ({
  ...modernHeaders(method, name),
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

const call = (url: string, token: string | undefined, name: string, wire?: WireCheck) =>
  post(
    url,
    modernRequest(1, 'tools/call', { name, arguments: {} }),
    bearerHeaders(token, 'tools/call', name),
    wire,
  );

const textOf = (reply: Exchange) => reply.json?.result?.content?.[0]?.text as string;

function challenge(reply: Exchange) {
  const [first, ...rest] = parseWwwAuthenticate(reply.headers.get('www-authenticate'));
  assert.equal(rest.length, 0);
  assert.equal(first?.scheme, 'bearer');
  return first!.params;
}

describe('bearer(): a protected resource', () => {
  let issuer: KeyIssuer;
  let protectedServer: ProtectedServer;
  let url: string;
  let wire: WireCheck;
  let alice: string;

  before(async () => {
    issuer = await KeyIssuer.start();
    protectedServer = await startProtected(makeServer(), () => ({
      authorizationServers: [issuer.issuer],
      scopesSupported: ['mcp'],
      impliedScopes: { 'files:admin': ['files:write'] },
      methodScopes: { 'prompts/list': ['prompts:list'] },
      // New keys are fetched as soon as a token names one (the default waits 30 s between fetches).
      jwt: { jwksCooldownMs: 0 },
    }));
    url = protectedServer.url;
    wire = await WireCheck.create();
    alice = await issuer.token({ sub: 'alice', client_id: 'app-1', aud: url, scope: 'mcp' });
  });
  after(async () => {
    await protectedServer.close();
    await issuer.close();
    wire.assertClean();
  });

  test('Protected Resource Metadata is served at the path-inserted and the root well-known URIs', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(protectedServer.origin + path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await response.json(), {
        resource: url,
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp'],
      });
    }
  });

  test('no token: 401 with the metadata URL and the scope to ask for, a JSON-RPC error body', async () => {
    const reply = await call(url, undefined, 'whoami');
    assertError(reply, 401, -32600, /access token/);
    assert.deepEqual(challenge(reply), {
      scope: 'mcp',
      resource_metadata: `${protectedServer.origin}/.well-known/oauth-protected-resource/mcp`,
    });
  });

  test('a valid token reaches the handler as ctx.auth; the token is there but never serialized', async () => {
    const reply = await call(url, alice, 'whoami', wire);
    assert.equal(reply.status, 200);
    const seen = JSON.parse(textOf(reply));
    assert.equal(seen.subject, 'alice');
    assert.equal(seen.clientId, 'app-1');
    assert.equal(seen.issuer, issuer.issuer);
    assert.deepEqual(seen.scopes, ['mcp']);
    assert.equal(seen.hasToken, true);
    assert.ok(!seen.serialized.includes(alice), 'JSON.stringify(ctx.auth) leaves the token out');
  });

  const refused = async (token: string, reason: RegExp) => {
    const reply = await call(url, token, 'whoami');
    assertError(reply, 401, -32600, reason);
    const params = challenge(reply);
    assert.equal(params.error, 'invalid_token');
    assert.match(params.error_description ?? '', reason);
    assert.ok(!JSON.stringify(reply.json).includes(token), 'the refusal does not echo the token');
  };

  test('a token minted for another server (RFC 8707 audience) is refused', async () => {
    await refused(await issuer.token({ sub: 'alice', aud: 'http://127.0.0.1:1/mcp' }), /another resource/);
    await refused(await issuer.token({ sub: 'alice' }), /another resource/);
  });

  test('an expired token is refused; one expired within the clock tolerance is accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(await issuer.token({ sub: 'alice', aud: url, exp: now - 120 }), /expired/);
    const recent = await issuer.token({ sub: 'alice', aud: url, exp: now - 5, scope: 'mcp' });
    assert.equal((await call(url, recent, 'whoami')).status, 200);
  });

  test('a token from an issuer not in the allow-list, or signed with an unpublished key, is refused', async () => {
    await refused(await issuer.token({ sub: 'alice', aud: url, iss: 'http://127.0.0.1:2' }), /not issued by/);
    await refused(await issuer.token({ sub: 'alice', aud: url }, { unpublished: true }), /signature/);
    await refused('not-a-jwt', /not a JWT/);
  });

  test('a malformed Authorization header is a 400 invalid_request', async () => {
    const reply = await post(url, modernRequest(1, 'tools/list'), {
      ...modernHeaders('tools/list'),
      authorization: 'Bearer two tokens',
    });
    assertError(reply, 400, -32600);
    assert.equal(challenge(reply).error, 'invalid_request');
  });

  test('keys rotate: a token signed with a newly published key is accepted after one JWKS fetch', async () => {
    const before = issuer.jwksRequests;
    await issuer.rotate('key-2', true);
    const rotated = await issuer.token({ sub: 'alice', aud: url, scope: 'mcp' });
    assert.equal((await call(url, rotated, 'whoami')).status, 200);
    assert.equal(issuer.jwksRequests, before + 1, 'an unknown key id refetches the JWKS once');
    assert.equal((await call(url, rotated, 'whoami')).status, 200);
    assert.equal(issuer.jwksRequests, before + 1, 'then it is cached');
  });

  test('scopes per tool: listed only for callers that hold them; a call without them is a 403 step-up', async () => {
    const list = async (token: string) => {
      const reply = await post(url, modernRequest(2, 'tools/list'), bearerHeaders(token, 'tools/list'), wire);
      return (reply.json.result.tools as { name: string }[]).map((t) => t.name);
    };
    assert.deepEqual(await list(alice), ['whoami']);
    const reply = await call(url, alice, 'write');
    assertError(reply, 403, -32600, /files:write/);
    const params = challenge(reply);
    assert.equal(params.error, 'insufficient_scope');
    assert.equal(params.scope, 'files:write');
    assert.equal(
      params.resource_metadata,
      `${protectedServer.origin}/.well-known/oauth-protected-resource/mcp`,
    );

    const writer = await issuer.token({ sub: 'alice', aud: url, scope: 'mcp files:write' });
    assert.deepEqual(await list(writer), ['whoami', 'write']);
    assert.equal(textOf(await call(url, writer, 'write', wire)), 'written');
    // A broader scope grants the narrower ones it implies.
    const admin = await issuer.token({ sub: 'alice', aud: url, scope: 'files:admin' });
    assert.deepEqual(await list(admin), ['admin', 'whoami', 'write']);
    assert.equal(textOf(await call(url, admin, 'write')), 'written');
  });

  test('scopes per prompt, resource and method', async () => {
    const prompt = await post(
      url,
      modernRequest(3, 'prompts/get', { name: 'secret-prompt' }),
      bearerHeaders(alice, 'prompts/get', 'secret-prompt'),
    );
    assert.equal(prompt.status, 403);
    assert.equal(challenge(prompt).scope, 'prompts:secret');
    const read = await post(
      url,
      modernRequest(4, 'resources/read', { uri: 'vault://one' }),
      bearerHeaders(alice, 'resources/read', 'vault://one'),
    );
    assert.equal(read.status, 403);
    assert.equal(challenge(read).scope, 'vault:read');
    const prompts = await post(url, modernRequest(5, 'prompts/list'), bearerHeaders(alice, 'prompts/list'));
    assert.equal(prompts.status, 403);
    assert.equal(challenge(prompts).scope, 'prompts:list');
    const reader = await issuer.token({ sub: 'alice', aud: url, scope: 'vault:read' });
    const ok = await post(
      url,
      modernRequest(6, 'resources/read', { uri: 'vault://one' }),
      bearerHeaders(reader, 'resources/read', 'vault://one'),
      wire,
    );
    assert.equal(ok.json.result.contents[0].text, 'gold');
  });

  test('legacy sessions are bound to the principal that opened them', async () => {
    const revision = '2025-11-25';
    const open = await openSession(url, alice, revision);
    assert.equal(open.status, 200);
    const sessionId = open.headers.get('mcp-session-id')!;
    const inSession = (token: string | undefined, id: number) =>
      post(
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        { ...sessionHeaders(sessionId, revision), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      );
    assert.equal((await inSession(alice, 1)).status, 200);
    // Alice's next token (refreshed) is still Alice.
    const refreshed = await issuer.token({ sub: 'alice', client_id: 'app-1', aud: url, scope: 'mcp' });
    assert.equal((await inSession(refreshed, 2)).status, 200);
    // Mallory holds a valid token of her own and Alice's session id: the session does not exist for her.
    const mallory = await issuer.token({ sub: 'mallory', client_id: 'app-1', aud: url, scope: 'mcp' });
    const hijack = await inSession(mallory, 3);
    const unknown = await post(
      url,
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { ...sessionHeaders('0'.repeat(32), revision), authorization: `Bearer ${mallory}` },
    );
    assert.equal(hijack.status, 404);
    assert.equal(unknown.status, 404);
    assert.equal(
      hijack.json.error.message.replace(sessionId, 'ID'),
      unknown.json.error.message.replace('0'.repeat(32), 'ID'),
      'the answer is the same as for a session that does not exist',
    );
    // Without a token: 401 before any session is looked up.
    assert.equal((await inSession(undefined, 5)).status, 401);
    const del = await fetch(url, {
      method: 'DELETE',
      headers: { ...sessionHeaders(sessionId, revision), authorization: `Bearer ${mallory}` },
    });
    assert.equal(del.status, 404, 'another principal cannot end the session either');
    assert.equal((await inSession(alice, 6)).status, 200);
  });

  test('HTTP+SSE sessions are bound the same way', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${protectedServer.origin}/sse`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${alice}` },
      signal: controller.signal,
    });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text)![1]!;
    const mallory = await issuer.token({ sub: 'mallory', aud: url, scope: 'mcp' });
    const message = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const hijack = await post(`${protectedServer.origin}${endpoint}`, message, {
      'content-type': 'application/json',
      authorization: `Bearer ${mallory}`,
    });
    assert.equal(hijack.status, 404);
    const own = await post(`${protectedServer.origin}${endpoint}`, message, {
      'content-type': 'application/json',
      authorization: `Bearer ${alice}`,
    });
    assert.equal(own.status, 202);
    controller.abort();
  });
});

describe('bearer(): when the keys cannot be fetched', () => {
  /**
   * A protected server over an issuer that `spoil` breaks: alice's call gets 503 (try again), not
   * 401 (sign in again), and onerror hears why once; then `after` runs.
   */
  async function unavailable(
    spoil: (issuer: KeyIssuer) => void,
    after: (issuer: KeyIssuer, retry: () => Promise<Exchange>) => Promise<void>,
  ) {
    const issuer = await KeyIssuer.start();
    spoil(issuer);
    const errors: Error[] = [];
    const server = await startProtected(makeServer(), () => ({
      authorizationServers: [issuer.issuer],
      onerror: (error) => errors.push(error),
    }));
    try {
      const token = await issuer.token({ sub: 'alice', aud: server.url });
      const retry = () => call(server.url, token, 'whoami');
      assertError(await retry(), 503, -32603, /could not be checked/);
      assert.equal(errors.length, 1);
      await after(issuer, retry);
    } finally {
      await server.close();
      await issuer.close();
    }
  }

  for (const document of ['metadata', 'jwks'] as const) {
    test(`an endless ${document} document is read up to 1 MiB only, and the request gets 503`, () =>
      // Issue 25: a 150 MiB JWKS was read whole (+762 MiB RSS) before its size was compared.
      unavailable(
        (issuer) => {
          issuer.endless = document;
        },
        async (issuer) => {
          assert.equal(await issuer.endlessSent.cut, true, 'the reader hung up');
          // What was sent beyond the cap is what sat in socket buffers when the reader stopped.
          assert.ok(issuer.endlessSent.bytes < 32 * 1024 * 1024, `${issuer.endlessSent.bytes} bytes sent`);
        },
      ));
  }

  test('the request gets 503 (try again), not 401 (sign in again), and onerror hears why', () =>
    unavailable(
      (issuer) => {
        issuer.available = false;
      },
      async (issuer, retry) => {
        issuer.available = true;
        // A failed key fetch is not remembered.
        assert.equal((await retry()).status, 200);
      },
    ));
});

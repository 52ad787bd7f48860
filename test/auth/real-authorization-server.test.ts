/**
 * `bearer()` against a real authorization server: oidc-provider (OpenID Certified) in this process
 * on 127.0.0.1 (examples/auth/dev-authorization-server.ts), minting tokens through its own
 * endpoints: dynamic registration + authorization code with PKCE and a resource indicator, client
 * credentials, opaque tokens checked by introspection. Both eras.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { parseWwwAuthenticate } from '../../src/auth/www-authenticate.js';
import { Server } from '../../src/extensions/server.js';
import { type Exchange, modernHeaders, modernRequest, post, sessionHeaders } from '../http/server/helpers.js';
import { WireCheck } from '../http/server/wire.js';
import { openSession, type ProtectedServer, startProtected } from './helpers.js';
import { authorizationCode, clientCredentials } from './real-as.js';

const ROBOT = { id: 'robot', secret: 'robot-secret-robot-secret-robot-secret' };
const INTROSPECTOR = { id: 'resource-server', secret: 'rs-secret-rs-secret-rs-secret-rs-secret' };

function makeServer(): Server {
  const server = new Server({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) =>
    JSON.stringify({ subject: ctx.auth?.subject, clientId: ctx.auth?.clientId, issuer: ctx.auth?.issuer }),
  );
  server.registerTool('write', { scopes: ['files:write'] }, () => 'written');
  return server;
}

const call = (url: string, token: string, name: string, wire?: WireCheck) =>
  post(
    url,
    modernRequest(1, 'tools/call', { name, arguments: {} }),
    { ...modernHeaders('tools/call', name), authorization: `Bearer ${token}` },
    wire,
  );

const whoami = (reply: Exchange) => JSON.parse(reply.json?.result?.content?.[0]?.text as string);

describe('bearer() with tokens from a real authorization server (oidc-provider)', () => {
  let as: DevAuthorizationServer;
  let jwtServer: ProtectedServer;
  let opaqueServer: ProtectedServer;
  let wire: WireCheck;

  before(async () => {
    as = await startDevAuthorizationServer({
      scopes: ['mcp', 'files:write'],
      clients: [
        {
          client_id: ROBOT.id,
          client_secret: ROBOT.secret,
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: [],
          response_types: [],
          scope: 'mcp files:write',
        },
        {
          client_id: INTROSPECTOR.id,
          client_secret: INTROSPECTOR.secret,
          grant_types: [],
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: [],
          response_types: [],
        },
      ],
    });
    jwtServer = await startProtected(makeServer(), () => ({
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp'],
    }));
    opaqueServer = await startProtected(makeServer(), () => ({
      authorizationServers: [as.issuer],
      introspection: { clientId: INTROSPECTOR.id, clientSecret: INTROSPECTOR.secret },
    }));
    as.addResource(jwtServer.url, { scopes: ['mcp', 'files:write'] });
    as.addResource(opaqueServer.url, { scopes: ['mcp', 'files:write'], format: 'opaque' });
    wire = await WireCheck.create();
  });
  after(async () => {
    await jwtServer.close();
    await opaqueServer.close();
    await as.close();
    wire.assertClean();
  });

  test('a user signs in (DCR, code + PKCE, resource indicator): the JWT is accepted, ctx.auth names the user', async () => {
    const tokens = await authorizationCode(as.issuer, jwtServer.url, 'mcp');
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.access_token.split('.').length, 3, 'a JWT access token');
    const reply = await call(jwtServer.url, tokens.access_token, 'whoami', wire);
    assert.equal(reply.status, 200);
    assert.equal(whoami(reply).subject, 'dev-user');
    assert.equal(whoami(reply).issuer, as.issuer);
  });

  test('a token the authorization server minted for another resource is refused (RFC 8707 audience)', async () => {
    const other = 'http://127.0.0.1:9/other-mcp';
    as.addResource(other, { scopes: ['mcp'] });
    const tokens = await authorizationCode(as.issuer, other, 'mcp');
    const reply = await call(jwtServer.url, tokens.access_token, 'whoami');
    assert.equal(reply.status, 401);
    const [challenge] = parseWwwAuthenticate(reply.headers.get('www-authenticate'));
    assert.equal(challenge?.params.error, 'invalid_token');
    assert.match(challenge?.params.error_description ?? '', /aud/);
  });

  test('step-up: 403 names the scope, a token with it (asked for again) is accepted', async () => {
    const narrow = await authorizationCode(as.issuer, jwtServer.url, 'mcp');
    const refused = await call(jwtServer.url, narrow.access_token, 'write');
    assert.equal(refused.status, 403);
    const [challenge] = parseWwwAuthenticate(refused.headers.get('www-authenticate'));
    assert.equal(challenge?.params.error, 'insufficient_scope');
    assert.equal(challenge?.params.scope, 'files:write');
    const wider = await authorizationCode(as.issuer, jwtServer.url, `mcp ${challenge?.params.scope}`);
    const reply = await call(jwtServer.url, wider.access_token, 'write', wire);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.result.content[0].text, 'written');
  });

  test('client credentials (machine to machine): the client is the principal', async () => {
    const tokens = await clientCredentials(as.issuer, ROBOT, jwtServer.url, 'mcp files:write');
    const reply = await call(jwtServer.url, tokens.access_token, 'whoami', wire);
    assert.equal(reply.status, 200);
    assert.equal(whoami(reply).clientId, ROBOT.id);
    assert.equal((await call(jwtServer.url, tokens.access_token, 'write')).status, 200);
  });

  test('opaque tokens are checked by introspection (RFC 7662); unknown ones and JWTs it cannot introspect are refused', async () => {
    const tokens = await authorizationCode(as.issuer, opaqueServer.url, 'mcp');
    assert.notEqual(tokens.access_token.split('.').length, 3, 'an opaque access token');
    const reply = await call(opaqueServer.url, tokens.access_token, 'whoami', wire);
    assert.equal(reply.status, 200);
    assert.equal(whoami(reply).subject, 'dev-user');
    // A token never issued: introspection says inactive.
    const forged = await call(opaqueServer.url, `${tokens.access_token}x`, 'whoami');
    assert.equal(forged.status, 401);
    // oidc-provider does not introspect JWTs (unsupported_token_type): refused, not a 503.
    const jwt = await authorizationCode(as.issuer, jwtServer.url, 'mcp');
    assert.equal((await call(opaqueServer.url, jwt.access_token, 'whoami')).status, 401);
  });

  test('a legacy session opened by the user refuses the robot, with a token of its own', async () => {
    const revision = '2025-06-18';
    const user = (await authorizationCode(as.issuer, jwtServer.url, 'mcp')).access_token;
    const robot = (await clientCredentials(as.issuer, ROBOT, jwtServer.url, 'mcp')).access_token;
    const open = await openSession(jwtServer.url, user, revision);
    assert.equal(open.status, 200);
    const sessionId = open.headers.get('mcp-session-id')!;
    const inSession = (token: string) =>
      post(
        jwtServer.url,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        { ...sessionHeaders(sessionId, revision), authorization: `Bearer ${token}` },
      );
    assert.equal((await inSession(user)).status, 200);
    assert.equal((await inSession(robot)).status, 404);
  });
});

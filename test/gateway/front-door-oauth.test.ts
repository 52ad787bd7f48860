/**
 * `switchboard gateway` with OAuth at its front door and token exchange behind it, against a real
 * authorization server (oidc-provider, examples/auth/dev-authorization-server.ts) that registers the
 * RFC 8693 grant: a user signs in for the gateway (authorization code with PKCE and the gateway as
 * resource), the gateway checks that token as a protected resource, and calls a protected upstream
 * with a token exchanged for that user (never the user's own), cached per caller.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { freePort } from '../../examples/cluster/services.js';
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { type ProtectedServer, startProtected } from '../auth/helpers.js';
import { authorizationCode, clientCredentials } from '../auth/real-as.js';
import { CLI_ENV } from '../cli/run-cli.js';
import { startGatewayCli } from './helpers.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const GATEWAY_CLIENT = { id: 'gateway', secret: randomBytes(24).toString('hex') };
const INTROSPECTOR = { id: 'upstream', secret: randomBytes(24).toString('hex') };
const ROBOT = { id: 'robot', secret: randomBytes(24).toString('hex') };
const KEY = randomBytes(32).toString('base64url');

const confidential = (client: { id: string; secret: string }, grantTypes: string[]) => ({
  client_id: client.id,
  client_secret: client.secret,
  grant_types: grantTypes,
  token_endpoint_auth_method: 'client_secret_basic' as const,
  redirect_uris: [],
  response_types: [],
  scope: 'mcp',
});

describe('switchboard gateway: OAuth front door, token exchange upstream (real authorization server)', () => {
  let as: DevAuthorizationServer;
  let upstream: ProtectedServer;
  let gatewayUrl: string;
  let stop: () => Promise<unknown>;
  /** What the authorization server exchanged: the subject tokens it got, the tokens it issued. */
  const exchanged: Array<{ subject: string; issued: string }> = [];

  /** A Switchboard client of the gateway that sends `bearer` (a user's access token, or an API key). */
  async function signedInClient(bearer: string, name: string, options: ClientOptions = {}) {
    const client = new Client({ name, version: '1.0.0' }, options);
    await client.connect(
      new StreamableHttpClientChannel(gatewayUrl, {
        fetch: nodeFetch,
        rememberEra: false,
        headers: { authorization: `Bearer ${bearer}` },
      }),
    );
    return client;
  }

  before(async () => {
    as = await startDevAuthorizationServer({
      scopes: ['mcp'],
      clients: [
        confidential(GATEWAY_CLIENT, [TOKEN_EXCHANGE]),
        confidential(INTROSPECTOR, []),
        confidential(ROBOT, ['client_credentials']),
      ],
    });
    gatewayUrl = `http://127.0.0.1:${await freePort()}/mcp`;
    const keys = createRemoteJWKSet(new URL(`${as.issuer}/jwks`));
    // RFC 8693 at the authorization server: a token for the gateway in, one for the upstream out.
    as.provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const params = ctx.oidc.params as Record<string, string>;
        assert.equal(params.subject_token_type, ACCESS_TOKEN);
        const { payload } = await jwtVerify(params.subject_token!, keys, {
          issuer: as.issuer,
          audience: gatewayUrl,
        });
        const token = new ctx.oidc.provider.AccessToken({
          accountId: String(payload.sub),
          client: ctx.oidc.client!,
          scope: 'mcp',
          gty: 'token_exchange',
        } as never);
        token.resourceServer = {
          audience: params.resource,
          scope: 'mcp',
          accessTokenFormat: 'opaque',
          accessTokenTTL: 600,
          identifier: () => params.resource,
        } as never;
        const issued = await token.save();
        exchanged.push({ subject: params.subject_token!, issued });
        ctx.body = {
          access_token: issued,
          issued_token_type: ACCESS_TOKEN,
          token_type: 'Bearer',
          expires_in: 600,
          scope: 'mcp',
        };
      },
      ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
    );
    const server = new Server({ name: 'protected-upstream', version: '1.0.0' });
    server.registerTool('whoami', {}, (_args, ctx) =>
      JSON.stringify({ subject: ctx.auth?.subject, clientId: ctx.auth?.clientId, token: ctx.auth?.token }),
    );
    // A task runs for its caller: its polls must reach the upstream as that caller too.
    server.registerTool('later', { execution: { taskSupport: 'optional' } }, (_args, ctx) =>
      JSON.stringify({ subject: ctx.auth?.subject }),
    );
    upstream = await startProtected(server, () => ({
      authorizationServers: [as.issuer],
      introspection: { clientId: INTROSPECTOR.id, clientSecret: INTROSPECTOR.secret },
    }));
    as.addResource(upstream.url, { scopes: ['mcp'], format: 'opaque' });
    as.addResource(gatewayUrl, { scopes: ['mcp'] });
    // The gateway's own session (its catalog) goes with its own token.
    const catalog = await clientCredentials(as.issuer, ROBOT, upstream.url, 'mcp');
    const dir = mkdtempSync(join(tmpdir(), 'gateway-oauth-'));
    const config = join(dir, 'team.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          up: {
            url: upstream.url,
            headers: { Authorization: 'Bearer ${CATALOG_TOKEN}' },
            upstreamAuth: {
              tokenExchange: {
                issuer: as.issuer,
                clientId: GATEWAY_CLIENT.id,
                clientSecret: '${EXCHANGE_SECRET}',
              },
            },
          },
        },
        gateway: {
          port: Number(new URL(gatewayUrl).port),
          auth: { apiKeys: { ci: '${CI_KEY}' }, oauth: { issuer: as.issuer, audience: gatewayUrl } },
          access: [{ principals: ['scope:mcp', 'ci'], allow: ['up__*'] }],
        },
      }),
    );
    const gateway = await startGatewayCli(config, {
      ...CLI_ENV,
      CATALOG_TOKEN: catalog.access_token,
      EXCHANGE_SECRET: GATEWAY_CLIENT.secret,
      CI_KEY: KEY,
    });
    assert.match(gateway.stderr(), /up {2}up {2}http/);
    stop = gateway.stop;
  });
  after(async () => {
    await stop?.();
    await upstream?.close();
    await as?.close();
  });

  test('no token: 401 naming the protected-resource metadata, which names the authorization server', async () => {
    const reply = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}',
    });
    assert.equal(reply.status, 401);
    const challenge = reply.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.ok(metadataUrl, challenge);
    const metadata = (await (await fetch(metadataUrl)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    assert.equal(metadata.resource, gatewayUrl);
    assert.deepEqual(metadata.authorization_servers, [as.issuer]);
  });

  test("a signed-in user's calls reach the upstream with a token exchanged for them, exchanged once per caller", async () => {
    const user = await authorizationCode(as.issuer, gatewayUrl, 'mcp');
    const client = await signedInClient(user.access_token, 'signed-in');
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['up__later', 'up__whoami'],
      );
      const before = exchanged.length;
      const whoami = async () =>
        JSON.parse(
          (await client.callTool('up__whoami', {})).content
            .map((c) => (c.type === 'text' ? c.text : ''))
            .join(''),
        );
      const first = await whoami();
      assert.deepEqual(await whoami(), first, 'the second call goes with the same token');
      assert.equal(first.subject, 'dev-user', 'the upstream sees the user');
      assert.equal(first.clientId, GATEWAY_CLIENT.id, 'through the gateway');
      assert.notEqual(first.token, user.access_token, 'never the user token itself');
      assert.equal(exchanged.length, before + 1, 'two calls, one exchange: cached per caller');
      assert.equal(exchanged.at(-1)!.subject, user.access_token);
      assert.equal(exchanged.at(-1)!.issued, first.token);
    } finally {
      await client.close();
    }
  });

  test("a signed-in user's task is polled upstream with the token exchanged for them", async () => {
    const user = await authorizationCode(as.issuer, gatewayUrl, 'mcp');
    const client = await signedInClient(user.access_token, 'signed-in-tasks', { tasks: true });
    try {
      const task = await client.callToolAsTask('up__later', {});
      assert.match(task.taskId!, /^up__/);
      // The upstream keeps the task for the user it ran for (the exchanged token's subject): a poll
      // with the gateway's own token would find no such task.
      const result = await task.result();
      assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), { subject: 'dev-user' });
      assert.equal((await task.refresh()).status, 'completed');
    } finally {
      await client.close();
    }
  });

  test('the official SDK v2 client with a token, and an API key holder, beside it', async () => {
    const user = await authorizationCode(as.issuer, gatewayUrl, 'mcp');
    const v2 = new V2Client(
      { name: 'sdk-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await v2.connect(
      new V2Http(new URL(gatewayUrl), {
        requestInit: { headers: { authorization: `Bearer ${user.access_token}` } },
      }),
    );
    try {
      const result = (await v2.callTool({ name: 'up__whoami', arguments: {} })) as {
        content: Array<{ text: string }>;
      };
      assert.equal(JSON.parse(result.content[0]!.text).subject, 'dev-user');
    } finally {
      await v2.close();
    }
    // An API key holder has no token to exchange: the server that needs one says so.
    const ci = await signedInClient(KEY, 'ci');
    try {
      await assert.rejects(ci.callTool('up__whoami', {}), /signed in without an OAuth token/);
    } finally {
      await ci.close();
    }
  });
});

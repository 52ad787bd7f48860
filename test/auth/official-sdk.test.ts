/**
 * Authorization across implementations, through the real authorization server (oidc-provider):
 * the official SDK v2 client (`@modelcontextprotocol/client`, its own OAuth flow: discovery, DCR,
 * PKCE, `finishAuth`) signs in to a Switchboard server protected by `bearer()`; and Switchboard's
 * `OAuthClient` signs in to an official SDK v2 server protected by the SDK's own pieces
 * (`requireBearerAuth`, `oauthMetadataResponse`, a tool's `scopeChallenge`). Both eras each way.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  StreamableHTTPClientTransport,
  UnauthorizedError,
  Client as V2Client,
} from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  oauthMetadataResponse,
  requireBearerAuth,
  requireScopes,
} from '@modelcontextprotocol/server';
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
import { type ProtectedServer, startProtected } from './helpers.js';
import { MemoryProvider, SDK_REDIRECT } from './sdk-oauth-provider.js';

const text = (result: { content: unknown }) => (result.content as { type: string; text?: string }[])[0]?.text;

describe('authorization with the official SDK v2, through oidc-provider', () => {
  let as: DevAuthorizationServer;

  before(async () => {
    as = await startDevAuthorizationServer({ scopes: ['mcp', 'files:write'] });
  });
  after(() => as.close());

  describe('the official v2 client signs in to a Switchboard server', () => {
    let server: ProtectedServer;
    before(async () => {
      const mcp = new Server({ name: 'switchboard-protected', version: '1.0.0' });
      mcp.registerTool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject} ${ctx.auth?.scopes?.join(' ')}`);
      server = await startProtected(mcp, () => ({
        authorizationServers: [as.issuer],
        scopesSupported: ['mcp'],
      }));
      as.addResource(server.url, { scopes: ['mcp', 'files:write'] });
    });
    after(() => server.close());

    for (const mode of ['auto', 'legacy'] as const) {
      test(`discovery, DCR, PKCE, finishAuth, then calls (${mode === 'auto' ? '2026-07-28' : 'legacy'})`, async () => {
        const provider = new MemoryProvider();
        const options = { versionNegotiation: { mode } };
        const first = new V2Client({ name: 'official-v2', version: '1.0.0' }, options);
        await assert.rejects(
          first.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider })),
          (error) => error instanceof UnauthorizedError,
        );
        const authorize = provider.authorizationUrl!;
        assert.equal(authorize.origin, as.issuer, 'sent to the authorization server the metadata names');
        assert.equal(authorize.searchParams.get('resource'), server.url);
        assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
        const callback = await headlessSignIn(authorize, SDK_REDIRECT);
        const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
        await transport.finishAuth(callback.searchParams);
        const client = new V2Client({ name: 'official-v2', version: '1.0.0' }, options);
        await client.connect(transport);
        assert.equal(client.getNegotiatedProtocolVersion() === '2026-07-28', mode === 'auto');
        assert.equal(text(await client.callTool({ name: 'whoami', arguments: {} })), 'dev-user mcp');
        await client.close();
      });
    }
  });

  describe("Switchboard's client signs in to an official v2 server", () => {
    let url: string;
    let close: () => Promise<void>;
    let refusals: number;

    before(async () => {
      const http = createServer();
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      as.addResource(url, { scopes: ['mcp', 'files:write'] });
      const metadata = (await (
        await fetch(`${as.issuer}/.well-known/openid-configuration`)
      ).json()) as OAuthMetadata & { jwks_uri: string };
      const keys = jose.createRemoteJWKSet(new URL(metadata.jwks_uri));
      // The SDK leaves token checking to the application: a JWT verifier with jose.
      const gate = requireBearerAuth({
        verifier: {
          async verifyAccessToken(token) {
            try {
              const { payload } = await jose.jwtVerify(token, keys, { issuer: as.issuer, audience: url });
              return {
                token,
                clientId: String(payload.client_id),
                scopes: String(payload.scope ?? '')
                  .split(' ')
                  .filter(Boolean),
                expiresAt: payload.exp,
                resource: new URL(url),
                extra: { subject: payload.sub },
              };
            } catch (error) {
              throw new OAuthError(OAuthErrorCode.InvalidToken, (error as Error).message);
            }
          },
        },
        requiredScopes: ['mcp'],
        expectedResource: new URL(url),
        resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
      });
      const handler = createMcpHandler(
        () => {
          const mcp = new McpServer({ name: 'official-v2-protected', version: '1.0.0' });
          mcp.registerTool('whoami', { description: 'Who signed in' }, (ctx) => ({
            content: [{ type: 'text', text: `${ctx.http?.authInfo?.extra?.subject}` }],
          }));
          mcp.registerTool(
            'write',
            { description: 'Needs files:write', scopeChallenge: requireScopes('mcp', 'files:write') },
            () => ({ content: [{ type: 'text', text: 'written' }] }),
          );
          return mcp;
        },
        { onerror: () => undefined },
      );
      const node = toNodeHandler({
        fetch: async (request) => {
          const document = oauthMetadataResponse(request, {
            oauthMetadata: metadata,
            resourceServerUrl: new URL(url),
            scopesSupported: ['mcp'],
            dangerouslyAllowInsecureIssuerUrl: true,
          });
          if (document) return document;
          const auth = await gate(request);
          if (auth instanceof Response) {
            refusals++;
            return auth;
          }
          return handler.fetch(request, { authInfo: auth });
        },
      });
      http.on('request', (req, res) => void node(req, res));
      close = async () => {
        await handler.close();
        http.closeAllConnections();
        await new Promise((resolve) => http.close(resolve));
      };
    });
    after(() => close());

    for (const era of [undefined, 'legacy'] as const) {
      test(`sign-in on the SDK's 401, step-up on its 403 (${era ?? '2026-07-28'})`, async () => {
        refusals = 0;
        const signIns: URL[] = [];
        const store = new MemoryTokenStore();
        const oauth = new OAuthClient({
          redirectUri: SDK_REDIRECT,
          store,
          authorize: (authorizationUrl) => {
            signIns.push(authorizationUrl);
            return headlessSignIn(authorizationUrl, SDK_REDIRECT);
          },
        });
        const client = new Client({ name: 'switchboard', version: '1.0.0' }, era ? { version: era } : {});
        await client.connect(new StreamableHttpClientChannel(url, { fetch: oauth.fetch(nodeFetch) }));
        assert.equal(text(await client.callTool('whoami')), 'dev-user');
        assert.equal(signIns[0]?.searchParams.get('resource'), url);
        assert.equal(
          signIns[0]?.searchParams.get('scope')?.split(' ')[0],
          'mcp',
          "the SDK's scopes_supported",
        );
        assert.equal(text(await client.callTool('write')), 'written');
        assert.equal(signIns.length, 2, 'one sign-in, one step-up');
        assert.ok((await store.getTokens(as.issuer, url))?.scope?.split(' ').includes('files:write'));
        assert.ok(refusals >= 1, "the SDK's gate refused the first request");
        await client.close();
      });
    }
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, createHttpHandler, Server } from 'switchboard';
import { bearer } from 'switchboard/auth';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { toNodeListener } from 'switchboard/node';
import { startDevAuthorizationServer } from '../auth/dev-authorization-server.js';

// The authorization server: here the development one (oidc-provider on 127.0.0.1), in production
// yours (Keycloak, Auth0, Entra ID...). A machine client is registered for the demonstration.
const robot = { id: 'robot', secret: 'a-long-random-secret-for-the-robot' };
const as = await startDevAuthorizationServer({
  scopes: ['mcp', 'files:write'],
  clients: [
    {
      client_id: robot.id,
      client_secret: robot.secret,
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [],
      response_types: [],
    },
  ],
});

const server = new Server({ name: 'files', version: '1.0.0' });
server.registerTool(
  'whoami',
  {},
  (_args, ctx) => `${ctx.auth?.clientId} holds ${ctx.auth?.scopes?.join(' ')}`,
);
// Only callers whose token holds files:write see this tool or may call it.
server.registerTool('write', { scopes: ['files:write'] }, () => 'written');

// The resource URI must be known to bearer(): listen first, then build the handler.
const http = createServer();
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const resource = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
const handler = createHttpHandler(server, {
  auth: bearer({ resource, authorizationServers: [as.issuer], scopesSupported: ['mcp'] }),
});
http.on('request', toNodeListener(handler));
as.addResource(resource, { scopes: ['mcp', 'files:write'] });

// Without a token: 401, and where to find the authorization server.
const refused = await fetch(resource, { method: 'POST', body: '{}' });
const challenge = refused.headers.get('www-authenticate')?.replace(/127\.0\.0\.1:\d+/, 'HOST');
console.log(refused.status, challenge);

// The robot gets a token for this resource (RFC 8707) with the client credentials grant.
async function token(scope: string): Promise<string> {
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${robot.id}:${robot.secret}`)}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;
for (const scope of ['mcp', 'mcp files:write']) {
  const client = new Client({ name: 'robot', version: '1.0.0' });
  await client.connect(new StreamableHttpClientChannel(resource, { bearerToken: await token(scope) }));
  const { tools } = await client.listTools();
  console.log(`scope "${scope}": sees ${tools.map((t) => t.name).join(', ')}`);
  console.log(`  whoami: ${text(await client.callTool('whoami'))}`);
  const write = await client.callTool('write').then(text, (error: Error) => error.message.split(':')[0]);
  console.log(`  write: ${write}`);
  await client.close();
}

await handler.close();
http.close();
await as.close();

// Output:
// 401 Bearer scope="mcp", resource_metadata="http://HOST/.well-known/oauth-protected-resource/mcp"
// scope "mcp": sees whoami
//   whoami: robot holds mcp
//   write: Forbidden
// scope "mcp files:write": sees whoami, write
//   whoami: robot holds mcp files:write
//   write: written

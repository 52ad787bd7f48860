import { Client, Server } from 'switchboard';
import { OAuthClient } from 'switchboard/auth';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch } from 'switchboard/node';
import { startDevAuthorizationServer } from '../auth/dev-authorization-server.js';
import { headlessSignIn } from '../auth/headless-sign-in.js';
import { serveProtected } from '../auth/protected-server.js';

// The files server is a client of its own: it is registered with the authorization server.
const filesServer = { client_id: 'files-server', client_secret: 'a-long-random-secret-of-the-files-server' };
const as = await startDevAuthorizationServer({
  scopes: ['mcp'],
  clients: [
    {
      ...filesServer,
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [],
      response_types: [],
    },
  ],
});

// An API the files server calls: here another protected MCP server.
const storage = new Server({ name: 'storage', version: '1.0.0' });
storage.registerTool('save', {}, (_args, ctx) => `saved for ${ctx.auth?.clientId}`);
const storageAt = await serveProtected(storage, as.issuer, ['mcp']);
as.addResource(storageAt.resource, { scopes: ['mcp'] });

// The files server calls it with a token of its own (client credentials), never with the token
// its caller sent it: that token was minted for the files server, and the storage refuses it.
const own = new OAuthClient({ grant: 'client_credentials', client: filesServer, scope: 'mcp' });
const text = (result: { content: { type: string; text?: string }[] }) => result.content[0]?.text;
const files = new Server({ name: 'files', version: '1.0.0' });
files.registerTool('upload', {}, async (_args, ctx) => {
  const upstream = new Client({ name: 'files-server', version: '1.0.0' });
  await upstream.connect(
    new StreamableHttpClientChannel(storageAt.resource, { fetch: own.fetch(nodeFetch) }),
  );
  try {
    return `${ctx.auth?.subject} uploaded; storage: ${text(await upstream.callTool('save'))}`;
  } finally {
    await upstream.close();
  }
});
const filesAt = await serveProtected(files, as.issuer, ['mcp']);
as.addResource(filesAt.resource, { scopes: ['mcp'] });

// A user signs in to the files server and calls it.
const redirectUri = 'http://127.0.0.1:8976/callback';
const user = new OAuthClient({ redirectUri, authorize: (url) => headlessSignIn(url, redirectUri) });
const client = new Client({ name: 'app', version: '1.0.0' });
await client.connect(new StreamableHttpClientChannel(filesAt.resource, { fetch: user.fetch(nodeFetch) }));
console.log(text(await client.callTool('upload')));

// What passthrough would meet: the user's token, presented to the storage, is refused.
const passthrough = await fetch(storageAt.resource, {
  method: 'POST',
  headers: { authorization: `Bearer ${await user.accessToken(filesAt.resource)}` },
  body: '{}',
});
console.log('the user token at the storage:', passthrough.status);

await client.close();
await filesAt.close();
await storageAt.close();
await as.close();

// Output:
// dev-user uploaded; storage: saved for files-server
// the user token at the storage: 401

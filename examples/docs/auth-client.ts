import { Client, Server } from 'switchboard';
import { MemoryTokenStore, OAuthClient } from 'switchboard/auth';
import { StreamableHttpClientChannel } from 'switchboard/http';
import { nodeFetch } from 'switchboard/node';
import { startDevAuthorizationServer } from '../auth/dev-authorization-server.js';
import { headlessSignIn } from '../auth/headless-sign-in.js';
import { serveProtected } from '../auth/protected-server.js';

// A protected server and its authorization server (see "Protecting a server").
const as = await startDevAuthorizationServer({ scopes: ['mcp', 'files:write'] });
const server = new Server({ name: 'files', version: '1.0.0' });
server.registerTool('whoami', {}, (_args, ctx) => `${ctx.auth?.subject}`);
server.registerTool('write', { scopes: ['files:write'] }, () => 'written');
const { resource, close } = await serveProtected(server, as.issuer, ['mcp']);
as.addResource(resource, { scopes: ['mcp', 'files:write'] });

// The client side. `authorize` shows the user the authorization server's page and resolves with
// the URL it redirects to: a real app opens a browser and listens on the redirect URI (the CLI
// does); the development server consents at once, so following its redirects is enough here.
const redirectUri = 'http://127.0.0.1:8976/callback';
const store = new MemoryTokenStore(); // or your own TokenStore (a database, the OS keychain...)
const oauth = new OAuthClient({
  redirectUri,
  authorize: (url) => {
    console.log(`sign in: ${url.origin === as.issuer ? 'the authorization server' : url.origin}`);
    return headlessSignIn(url, redirectUri);
  },
  store,
});

const client = new Client({ name: 'files-client', version: '1.0.0' });
await client.connect(new StreamableHttpClientChannel(resource, { fetch: oauth.fetch(nodeFetch) }));
console.log('whoami:', (await client.callTool('whoami')).content);
// write needs files:write: the server answers 403, the client signs in again for it (step-up).
console.log('write:', (await client.callTool('write')).content);
console.log('granted:', (await store.getTokens(as.issuer, resource))?.scope);

await client.close();
await close();
await as.close();

// Output:
// sign in: the authorization server
// whoami: [ { type: 'text', text: 'dev-user' } ]
// sign in: the authorization server
// write: [ { type: 'text', text: 'written' } ]
// granted: mcp files:write

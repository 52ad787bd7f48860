/**
 * `npm run --silent auth:demo -- --port N`: the example server (examples/server.ts) protected by
 * `bearer()` at http://127.0.0.1:N/mcp, and the development authorization server it trusts
 * (oidc-provider on another loopback port, consenting at once). Prints both URLs and how to sign
 * in; Ctrl-C stops both.
 */
import { createHttpHandler } from 'switchboard';
import { bearer } from 'switchboard/auth';
import { serve } from 'switchboard/node';
import { createExampleServer } from '../server.js';
import { startDevAuthorizationServer } from './dev-authorization-server.js';

const at = process.argv.indexOf('--port');
const port = at === -1 ? Number.NaN : Number(process.argv[at + 1]);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(
    'usage: npm run --silent auth:demo -- --port <n>   (the MCP endpoint is http://127.0.0.1:<n>/mcp)',
  );
  process.exit(2);
}

const resource = `http://127.0.0.1:${port}/mcp`;
const scopes = ['mcp'];
const as = await startDevAuthorizationServer({ resources: { [resource]: { scopes } } });
const handler = createHttpHandler(createExampleServer(), {
  auth: bearer({ resource, authorizationServers: [as.issuer], scopesSupported: scopes }),
});
let running: Awaited<ReturnType<typeof serve>>;
try {
  running = await serve(handler, { port, host: '127.0.0.1' });
} catch (error) {
  await as.close();
  console.error(`auth:demo: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
  process.exit(1);
}

console.log(`Protected MCP server:   ${running.url}
Authorization server:   ${as.issuer} (oidc-provider; user dev-user, consents to everything)

Sign in and list the tools (a browser, or curl following the redirects):
  BROWSER="curl -sL" npx switchboard tools ${running.url}
or sign in once and keep the tokens:
  npx switchboard login ${running.url}
Ctrl-C stops both servers.`);

const stop = () => {
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  void Promise.all([running.close(), as.close()]).then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

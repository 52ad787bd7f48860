/**
 * A protected HTTP upstream: `switchboard gateway` signs in through the user's browser (`$BROWSER`,
 * here `curl -sL` against the development authorization server, which consents at once), keeps the
 * tokens in the user's token file as `switchboard login` does, and serves the upstream's tools.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { type ProtectedServer, startProtected } from '../auth/helpers.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { textOf } from './helpers.js';

let as: DevAuthorizationServer;
let server: ProtectedServer;

before(async () => {
  as = await startDevAuthorizationServer({ scopes: ['mcp'] });
  const mcp = new Server({ name: 'protected', version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'Who signed in.' }, (_args, ctx) => `${ctx.auth?.subject}`);
  server = await startProtected(mcp, () => ({ authorizationServers: [as.issuer], scopesSupported: ['mcp'] }));
  as.addResource(server.url, { scopes: ['mcp'] });
});
after(async () => {
  await server.close();
  await as.close();
});

test('an upstream that answers 401 is signed in to through $BROWSER; its tools are served', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-oauth-'));
  const file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { secure: { url: server.url } } }));
  const channel = new StdioClientChannel({
    command: process.execPath,
    args: [CLI, 'gateway', '--stdio', file],
    env: { XDG_CACHE_HOME: CLI_ENV.XDG_CACHE_HOME, XDG_CONFIG_HOME: dir, BROWSER: 'curl -sL' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(channel);
  try {
    assert.equal(textOf(await client.callTool('secure__whoami')), 'dev-user');
    assert.match(channel.stderrTail(), /signing in with curl \(from \$BROWSER\)/);
    const stored = JSON.parse(readFileSync(join(dir, 'switchboard', 'tokens.json'), 'utf8'));
    const token = stored.tokens[server.url][as.issuer].access_token as string;
    assert.ok(token.length > 20);
    assert.ok(!channel.stderrTail().includes(token), 'the token is never logged');
  } finally {
    await client.close();
  }
});

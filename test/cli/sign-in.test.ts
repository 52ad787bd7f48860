/**
 * The CLI signs in as a user would, with `BROWSER="curl -sL"` as the browser: against a Switchboard
 * server protected by `bearer()` and the development authorization server (oidc-provider), which
 * consents at once. `login` stores the tokens (owner-only), other commands use them, a command
 * meeting a 401 signs in first, `logout` forgets them; no token is ever printed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type DevAuthorizationServer,
  startDevAuthorizationServer,
} from '../../examples/auth/dev-authorization-server.js';
import { Server } from '../../src/extensions/server.js';
import { type ProtectedServer, startProtected } from '../auth/helpers.js';
import { CLI_ENV, runCli } from './run-cli.js';

describe('switchboard login / logout, and sign-in on 401', () => {
  let as: DevAuthorizationServer;
  let server: ProtectedServer;
  const config = mkdtempSync(join(tmpdir(), 'switchboard-sign-in-'));
  const env = { ...CLI_ENV, XDG_CONFIG_HOME: config, BROWSER: 'curl -sL' };
  const tokenFile = join(config, 'switchboard', 'tokens.json');

  before(async () => {
    as = await startDevAuthorizationServer({ scopes: ['mcp'] });
    const mcp = new Server({ name: 'protected', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Who signed in.' }, (_args, ctx) => `${ctx.auth?.subject}`);
    server = await startProtected(mcp, () => ({
      authorizationServers: [as.issuer],
      scopesSupported: ['mcp'],
    }));
    as.addResource(server.url, { scopes: ['mcp'] });
  });
  after(async () => {
    await server.close();
    await as.close();
  });

  test('a command meeting a 401 signs in through $BROWSER, then runs', async () => {
    const run = await runCli(['call', server.url, 'whoami'], { env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'dev-user\n');
    assert.match(run.stderr, /signing in with curl \(from \$BROWSER\)/);
    const stored = JSON.parse(readFileSync(tokenFile, 'utf8'));
    const token = stored.tokens[server.url][as.issuer].access_token as string;
    assert.ok(token.length > 20);
    assert.ok(!run.stderr.includes(token) && !run.stdout.includes(token), 'the token is never printed');
    if (process.platform !== 'win32') assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    // The next command uses the stored token: no browser.
    const again = await runCli(['call', server.url, 'whoami'], { env: { ...env, BROWSER: 'false' } });
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /signing in/);
  });

  test('logout forgets the tokens; login signs in again', async () => {
    const out = await runCli(['logout', server.url], { env });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(readFileSync(tokenFile, 'utf8')).tokens[server.url], undefined);
    const login = await runCli(['login', server.url], { env });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /^Signed in to .*tokens\.json\.\n$/);
    assert.ok(JSON.parse(readFileSync(tokenFile, 'utf8')).tokens[server.url][as.issuer].access_token);
  });

  test('a target that is not an http(s) URL is a usage error', async () => {
    const usage = await runCli(['login', 'not-a-url'], { env });
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /login takes one http:\/\/ or https:\/\/ server URL/);
  });
});

/**
 * The gateway's health paths and lifecycle as `switchboard gateway CONFIG` serves them (the bundled
 * bin, real processes, real loopback HTTP): `/healthz`, `/readyz` and `/metrics` behind the MCP
 * endpoint's Host/Origin rules, and an upstream's stderr tail served masked.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { UPSTREAM } from './helpers.js';

/** A GET with the headers given (Host included, which fetch will not set), answered as status and text. */
function get(origin: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `switchboard gateway` on a config of `servers`, on any port; resolves once `ready` matches its stderr. */
async function runGateway(servers: Record<string, unknown>, ready: RegExp, options: object = {}) {
  const file = join(mkdtempSync(join(tmpdir(), 'gateway-health-')), 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers, gateway: options }));
  const child = spawnOwned(process.execPath, [CLI, 'gateway', file, '--port', '0'], { env: CLI_ENV });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match && ready.test(stderr)) resolve(match[1]!);
    });
    child.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    },
  };
}

/** A stdio "server" that prints a key on stderr and exits before answering anything. */
const LEAKY = [
  '-e',
  'console.error("starting with API_KEY=sk-live-4f9a8b7c6d5e and token: abc123"); process.exit(3)',
];

describe('switchboard gateway: the health paths', () => {
  test('3. /healthz, /readyz and /metrics refuse a foreign Host or Origin as /mcp does; a stderr tail is served masked', async () => {
    const gateway = await runGateway(
      {
        leaky: { command: process.execPath, args: LEAKY },
        local: { command: process.execPath, args: [UPSTREAM] },
      },
      /serving 2 servers at \S+\n(?:.*\n){2}/,
    );
    try {
      const port = new URL(gateway.origin).port;
      for (const path of ['/mcp', '/healthz', '/readyz', '/metrics', '/elsewhere']) {
        const rebound = await get(gateway.origin, path, { host: `attacker.example:${port}` });
        assert.equal(rebound.status, 403, `${path} with a foreign Host: ${rebound.body}`);
        assert.match(rebound.body, /DNS rebinding/);
        const crossOrigin = await get(gateway.origin, path, { origin: 'https://attacker.example' });
        assert.equal(crossOrigin.status, 403, `${path} with a foreign Origin: ${crossOrigin.body}`);
        assert.match(crossOrigin.body, /Origin \\"https:\/\/attacker.example\\" is not allowed/);
      }
      // The gateway's own origin and other loopback pages (local tools) may read them.
      assert.equal((await get(gateway.origin, '/healthz', { origin: gateway.origin })).status, 200);
      assert.equal((await get(gateway.origin, '/metrics')).status, 200);

      const readyz = await get(gateway.origin, '/readyz');
      const leaky = (
        JSON.parse(readyz.body) as { upstreams: Array<{ name: string; lastError?: string }> }
      ).upstreams.find((u) => u.name === 'leaky');
      assert.match(leaky?.lastError ?? '', /API_KEY=\[REDACTED\] and token: \[REDACTED\]/, readyz.body);
      assert.doesNotMatch(readyz.body, /sk-live|abc123/);
      assert.doesNotMatch(gateway.stderr(), /sk-live|abc123/, 'the logs mask it too');
    } finally {
      await gateway.stop();
    }
  });
});

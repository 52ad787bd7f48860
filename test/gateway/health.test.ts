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
import { protocolFailure } from '../helpers/rejects.js';
import { until } from '../helpers/wait.js';
import { assertExited } from '../interop/helpers/processes.js';
import { gatewayOver, noChildren, pidOf, switchboardClient, textOf, UPSTREAM } from './helpers.js';

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
async function runGateway(
  servers: Record<string, unknown>,
  ready: RegExp,
  options: object = {},
  withinMs = 60_000,
) {
  const file = join(mkdtempSync(join(tmpdir(), 'gateway-health-')), 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers, gateway: options }));
  const child = spawnOwned(process.execPath, [CLI, 'gateway', file, '--port', '0'], { env: CLI_ENV });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A guard against a gateway that never gets there, wide for a loaded machine.
    const late = setTimeout(
      () => reject(new Error(`no ${ready} within ${withinMs} ms: ${stderr}`)),
      withinMs,
    );
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /at (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match && ready.test(stderr)) {
        clearTimeout(late);
        resolve(match[1]!);
      }
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

  test('4. an upstream that never answers initialize: the gateway listens at once, serves the healthy one, /readyz names it', async () => {
    // `hung` would hold a gateway that waits for it for two minutes: it must not.
    const never = { connectTimeoutMs: 120_000, timeoutMs: 120_000 };
    const gateway = await runGateway(
      {
        hung: { command: process.execPath, args: ['-e', 'process.stdin.resume()'], ...never },
        local: { command: process.execPath, args: [UPSTREAM] },
      },
      /listening at \S+, starting 2 servers\n/,
      {},
      30_000,
    );
    try {
      type Ready = { ready: boolean; notUp: Array<{ name: string; state: string; why: string }> };
      const readyz = async () => {
        const answer = await get(gateway.origin, '/readyz');
        return { status: answer.status, body: JSON.parse(answer.body) as Ready };
      };
      // The healthy one comes up while the hung one is still starting.
      await until(async () => !(await readyz()).body.notUp.some((u) => u.name === 'local'), 'local up');
      const { status, body } = await readyz();
      assert.equal(status, 503, 'not ready while an eager upstream is still on its first try');
      assert.deepEqual(body.notUp, [
        { name: 'hung', state: 'starting', why: 'connecting (for at most 120000 ms)' },
      ]);
      const { client } = await switchboardClient(gateway.url, 'early', 'legacy');
      assert.match(textOf(await client.callTool('local__whoami')), /pid \d+/);
      await client.close();
    } finally {
      // Stopped while `hung` is still connecting: it exits cleanly, its process with it.
      await gateway.stop();
    }
  });
});

describe('the gateway: a bounded connect time', () => {
  test('4. an upstream that does not connect within connectTimeoutMs fails, its process is stopped, the gateway is ready without it', async () => {
    const started = await gatewayOver({
      hung: {
        command: process.execPath,
        args: ['-e', 'process.stdin.resume()'],
        connectTimeoutMs: 300,
        timeoutMs: 120_000,
      },
      local: { command: process.execPath, args: [UPSTREAM] },
    });
    try {
      const hung = started.gateway.health().find((h) => h.name === 'hung')!;
      assert.match(
        hung.lastError ?? '',
        /"hung" did not finish connecting within 300 ms \(connectTimeoutMs\)/,
      );
      const { ready, notUp } = started.gateway.readiness();
      assert.equal(ready, true, 'every eager upstream was tried');
      assert.deepEqual(
        notUp.map((u) => u.name),
        ['hung'],
      );
      assert.equal(started.gateway.health().find((h) => h.name === 'local')?.state, 'up');
    } finally {
      await started.close();
    }
    await noChildren('after an upstream that did not connect in time');
  });
});

describe('the gateway: legacy clients’ upstream sessions', () => {
  test('5. at most maxSessionsPerUpstream sessions per upstream: beyond it an error naming the upstream and the cap', async () => {
    const started = await gatewayOver(
      { local: { command: process.execPath, args: [UPSTREAM] } },
      { maxSessionsPerUpstream: 2 },
    );
    try {
      const clients = await Promise.all(
        ['a', 'b', 'c'].map((name) => switchboardClient(started.url, name, 'legacy')),
      );
      const [a, b, c] = clients.map((opened) => opened.client);
      const pids = [pidOf(await a!.callTool('local__whoami')), pidOf(await b!.callTool('local__whoami'))];
      const refused = await protocolFailure(() => c!.callTool('local__whoami'));
      assert.match(
        refused.message,
        /Upstream "local" already has 2 sessions open for clients, its cap \(maxSessions 2\)/,
      );
      assert.deepEqual(refused.data, { upstream: 'local', maxSessions: 2 });
      // One client leaves: its session (and process) end, and the third gets one.
      await a!.close();
      await assertExited([pids[0]!], 'the session of the client that left');
      await until(() => started.gateway.health()[0]?.sessions === 1, 'the session released');
      assert.match(textOf(await c!.callTool('local__whoami')), /pid \d+/);
      await Promise.all([b!.close(), c!.close()]);
    } finally {
      await started.close();
    }
    await noChildren('after the capped sessions');
  });

  test('5. an idle upstream session is closed after upstreamSessionIdleMs and reopened at the next call', async () => {
    const started = await gatewayOver(
      { local: { command: process.execPath, args: [UPSTREAM] } },
      { upstreamSessionIdleMs: 200 },
    );
    try {
      const { client } = await switchboardClient(started.url, 'idler', 'legacy');
      const first = pidOf(await client.callTool('local__whoami'));
      // Its process ends while the client's own session with the gateway stays.
      await assertExited([first], 'the idle upstream session');
      await until(() => started.gateway.health()[0]?.sessions === 0, 'no session counted');
      const second = pidOf(await client.callTool('local__whoami'));
      assert.notEqual(second, first);
      await client.close();
    } finally {
      await started.close();
    }
    await noChildren('after the idle sessions');
  });
});

/**
 * `switchboard gateway CONFIG` as a user runs it: the bundled bin, a config file with two stdio
 * upstreams, an HTTP client, then SIGTERM; and `--stdio` spawned by a client.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { assertExited } from '../interop/helpers/processes.js';

const UPSTREAM = fileURLToPath(new URL('../fixtures/gateway-upstream.js', import.meta.url));
const OFFICIAL_V1 = fileURLToPath(new URL('../fixtures/gateway-official-v1.js', import.meta.url));
const pidOf = (result: CallToolResult): number =>
  Number(/pid (\d+)/.exec(result.content[0]?.type === 'text' ? result.content[0].text : '')?.[1]);

function writeConfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gateway-cli-')), 'mcp.jsonc');
  writeFileSync(
    file,
    `{
  // two stdio servers, one built with Switchboard and one with the official v1 SDK
  "mcpServers": {
    "local": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(UPSTREAM)}], "env": { "UPSTREAM_LABEL": "\${LABEL:-from-default}" } },
    "official": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(OFFICIAL_V1)}] },
  },
}`,
  );
  return file;
}

describe('switchboard gateway', () => {
  test('CONFIG --port 0: prints what it serves, serves both upstreams, /healthz and /readyz, stops on SIGTERM', async () => {
    const child = spawnOwned(process.execPath, [CLI, 'gateway', writeConfig(), '--port', '0'], {
      env: CLI_ENV,
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /serving 2 servers at (\S+)\n(?:.*\n){2}/.exec(stderr);
          if (match) resolve(match[1]!);
        });
        child.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
      });
      assert.match(stderr, /^ {2}local {5}up {2}stdio {2}6 tools, 1 prompt, 3 resources \(2026-07-28\)$/m);
      assert.match(
        stderr,
        /^ {2}official {2}up {2}stdio {2}2 tools, 0 prompts, 0 resources \(2025-11-25\)$/m,
      );
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

      const origin = new URL(url).origin;
      assert.deepEqual(await (await fetch(`${origin}/healthz`)).json(), { status: 'up' });
      const ready = await fetch(`${origin}/readyz`);
      assert.equal(ready.status, 200);
      const readiness = (await ready.json()) as {
        ready: boolean;
        upstreams: Array<{ name: string; state: string }>;
      };
      assert.deepEqual(
        readiness.upstreams.map((u) => [u.name, u.state]),
        [
          ['local', 'up'],
          ['official', 'up'],
        ],
      );

      const client = new Client({ name: 'cli-test', version: '1.0.0' }, { version: 'legacy' });
      await client.connect(new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false }));
      const who = await client.callTool('local__whoami');
      assert.match(who.content[0]?.type === 'text' ? who.content[0].text : '', /^from-default pid/);
      const { tools } = await client.listTools();
      const search = tools.find((tool) => tool.name.startsWith('official__notes_search'))!;
      const found = await client.callTool(search.name, { query: 'x' });
      assert.deepEqual(found.content, [{ type: 'text', text: 'found x' }]);
      const metrics = await fetch(`${origin}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);
      const exposition = await metrics.text();
      assert.match(
        exposition,
        /^switchboard_gateway_upstream_requests_total\{upstream="local",method="tools\/call"\} 1$/m,
      );
      assert.match(exposition, /^switchboard_gateway_upstream_up\{upstream="official",state="up"\} 1$/m);
      assert.match(exposition, /^process_cpu_user_seconds_total /m);
      const pid = pidOf(who);
      await client.close();
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      await assertExited([pid], 'gateway upstream after SIGTERM');
    } finally {
      child.kill('SIGKILL');
    }
  });
  test('a gateway killed with SIGKILL leaves no upstream behind (their stdin closes)', async () => {
    const channel = new StdioClientChannel({
      command: process.execPath,
      args: [CLI, 'gateway', '--stdio', writeConfig()],
      env: { XDG_CACHE_HOME: CLI_ENV.XDG_CACHE_HOME },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'kill-test', version: '1.0.0' }, { version: 'legacy' });
    await client.connect(channel);
    const upstream = pidOf(await client.callTool('local__whoami'));
    process.kill(channel.pid!, 'SIGKILL');
    await assertExited([upstream], 'upstream of a killed gateway');
    await client.close().catch(() => undefined);
  });

  test('--stdio: a client spawns the gateway; its upstreams end with it', async () => {
    const channel = new StdioClientChannel({
      command: process.execPath,
      args: [CLI, 'gateway', '--stdio', writeConfig()],
      env: { XDG_CACHE_HOME: CLI_ENV.XDG_CACHE_HOME, LABEL: 'spawned' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(channel);
    const who = await client.callTool('local__whoami');
    assert.match(who.content[0]?.type === 'text' ? who.content[0].text : '', /^spawned pid/);
    const gatewayPid = channel.pid!;
    await client.close();
    assert.deepEqual(channel.exitStatus, { code: 0, signal: null }, channel.stderrTail());
    await assertExited([gatewayPid, pidOf(who)], 'stdio gateway and its upstream');
  });
});

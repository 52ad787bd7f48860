/**
 * Changing the config while the gateway runs (`reconfigure`, `--watch`): only the servers whose
 * entries changed restart, clients stay connected and get list_changed, a bad edit is not applied.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { assertExited } from '../interop/helpers/processes.js';
import { configOf, pidOf, startGateway, switchboardClient, textOf, UPSTREAM } from './helpers.js';

const server = (label: string) => ({
  command: process.execPath,
  args: [UPSTREAM],
  env: { UPSTREAM_LABEL: label },
});

describe('changing the config of a running gateway', () => {
  test('reconfigure: adds, restarts and removes only what changed; clients stay and get list_changed', async () => {
    const started = await startGateway({ a: server('A') });
    try {
      const legacy = await switchboardClient(started.url, 'dan', 'legacy');
      const modern = await switchboardClient(started.url, 'eve');
      const catalogA = pidOf(await modern.client.callTool('a__whoami'));
      let changes = 0;
      legacy.client.on('notifications/tools/list_changed', () => changes++);

      assert.deepEqual(await started.gateway.reconfigure(configOf({ a: server('A'), b: server('B') })), {
        added: ['b'],
        removed: [],
        restarted: [],
      });
      const names = (await legacy.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('b__whoami'), names.join(', '));
      assert.equal(pidOf(await modern.client.callTool('a__whoami')), catalogA, 'a was left alone');
      const catalogB = pidOf(await modern.client.callTool('b__whoami'));

      assert.deepEqual(await started.gateway.reconfigure(configOf({ a: server('A2') })), {
        added: [],
        removed: ['b'],
        restarted: ['a'],
      });
      assert.match(textOf(await modern.client.callTool('a__whoami')), /^A2 pid/);
      assert.ok(!(await legacy.client.listTools()).tools.some((t) => t.name.startsWith('b__')));
      await assertExited([catalogA, catalogB], 'the restarted and the removed upstream');
      assert.ok(changes >= 2, `list_changed ${changes} times`);
      await legacy.client.close();
      await modern.client.close();
    } finally {
      await started.close();
    }
  });

  test('--watch applies an edited file and reports a bad edit without applying it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-watch-')), 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: server('A') } }));
    const child = spawnOwned(process.execPath, [CLI, 'gateway', '--watch', '--port', '0', file], {
      env: CLI_ENV,
    });
    let stderr = '';
    const seen = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (match) {
            child.stderr.off('data', check);
            resolve(match);
          }
        };
        child.stderr.on('data', check);
        child.once('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
        check();
      });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const url = (await seen(/serving 1 server at (\S+)\n/))[1]!;
      const client = new Client({ name: 'watch-test', version: '1.0.0' }, { version: 'legacy' });
      await client.connect(new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false }));
      writeFileSync(file, JSON.stringify({ mcpServers: { a: server('A'), b: server('B') } }));
      await seen(/"message":"config applied","added":\["b"\]/);
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'b__whoami'));

      writeFileSync(file, '{ "mcpServers": { "a": { "command": 3 } } }');
      // The log line is JSON: the message's quotes are escaped.
      await seen(/config not applied: .*mcp\.json:1:37: \\"command\\" must be a string, not number/);
      assert.match(textOf(await client.callTool('b__whoami')), /^B pid/);
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
  });
});

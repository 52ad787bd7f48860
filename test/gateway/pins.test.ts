/**
 * Tool pinning: the lock file pins each tool's definition the first time; a tool whose definition
 * changes is hidden until `switchboard gateway approve` pins the new one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ToolPins, toolHash } from '../../src/gateway/pins.js';
import { runCli } from '../cli/run-cli.js';
import { startGateway, switchboardClient, UPSTREAM } from './helpers.js';

const tool = (description: string) => ({ name: 't', description, inputSchema: { type: 'object' as const } });

describe('tool pinning', () => {
  test('ToolPins: pins on first sight, holds a changed definition, approve pins the new one', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-pins-')), 'tools.lock');
    const pins = ToolPins.load(file);
    assert.equal(pins.admit('a__t', tool('one')), true);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
      version: 1,
      tools: { a__t: toolHash(tool('one')) },
    });
    assert.equal(pins.admit('a__t', tool('one')), true);
    // Key order does not matter; a changed description does.
    assert.equal(
      toolHash({ inputSchema: { type: 'object' }, description: 'one', name: 't' }),
      toolHash(tool('one')),
    );
    assert.equal(pins.admit('a__t', tool('two')), false);
    assert.deepEqual(pins.pending(), [
      { name: 'a__t', pinned: toolHash(tool('one')), found: toolHash(tool('two')) },
    ]);
    assert.deepEqual(ToolPins.load(file).admit('a__t', tool('two')), false, 'the pin is in the file');
    assert.deepEqual(
      pins.approve().map((p) => p.name),
      ['a__t'],
    );
    assert.equal(ToolPins.load(file).admit('a__t', tool('two')), true);

    writeFileSync(file, '{ "tools": [] }');
    assert.throws(() => ToolPins.load(file), /not a version 1 lock/);
  });

  test('a tool whose definition changed is hidden from clients until approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-pinned-'));
    const lock = join(dir, 'tools.lock');
    const servers = (description: string) => ({
      local: { command: process.execPath, args: [UPSTREAM], env: { WHOAMI_DESCRIPTION: description } },
    });
    const names = async (description: string) => {
      const started = await startGateway(servers(description), {}, { lock });
      try {
        const { client } = await switchboardClient(started.url, 'pin');
        const { tools } = await client.listTools();
        await client.close();
        return { names: tools.map((t) => t.name), held: started.gateway.pins!.pending().map((p) => p.name) };
      } finally {
        await started.close();
      }
    };
    const first = await names('Says which process answers.');
    assert.ok(first.names.includes('local__whoami'));
    const changed = await names('Now it also deletes your files.');
    assert.ok(!changed.names.includes('local__whoami'), changed.names.join(', '));
    assert.ok(changed.names.includes('local__ask'), 'the other tools stay');
    assert.deepEqual(changed.held, ['local__whoami']);

    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: servers('Now it also deletes your files.') }));
    const approved = await runCli(['gateway', 'approve', '--lock', lock, config]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /^approved local__whoami \(sha256:[0-9a-f]{64}\)\n$/);
    const after = await names('Now it also deletes your files.');
    assert.ok(after.names.includes('local__whoami'));
    assert.deepEqual(after.held, []);
  });
});

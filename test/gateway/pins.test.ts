/**
 * Tool pinning: the lock file pins each tool's definition the first time; a tool whose definition
 * changes is hidden until `switchboard gateway approve` pins the new one; skills are pinned alike
 * (test/gateway/skills.test.ts runs it through the gateway).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { SkillEntry } from '../../src/extensions/skills/types.js';
import { skillDefinition, skillHash, ToolPins, toolDefinition, toolHash } from '../../src/gateway/pins.js';
import { runCli } from '../cli/run-cli.js';
import { startGateway, switchboardClient, UPSTREAM } from './helpers.js';

const tool = (description: string) => ({ name: 't', description, inputSchema: { type: 'object' as const } });

describe('tool pinning', () => {
  test('ToolPins: pins on first sight, holds a changed definition, approve pins the new one', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-pins-')), 'tools.lock');
    const pins = ToolPins.load(file);
    assert.equal(pins.admit('a__t', tool('one')), true);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
      version: 2,
      tools: {
        a__t: {
          hash: toolHash(tool('one')),
          definition: { description: 'one', inputSchema: { type: 'object' } },
        },
      },
    });
    assert.equal(pins.admit('a__t', tool('one')), true);
    // Key order does not matter; a changed description does.
    assert.equal(
      toolHash({ inputSchema: { type: 'object' }, description: 'one', name: 't' }),
      toolHash(tool('one')),
    );
    assert.equal(pins.admit('a__t', tool('two')), false);
    assert.deepEqual(pins.pending(), [
      {
        kind: 'tool',
        name: 'a__t',
        pinned: toolHash(tool('one')),
        found: toolHash(tool('two')),
        pinnedDefinition: toolDefinition(tool('one')),
        foundDefinition: { description: 'two', inputSchema: { type: 'object' } },
      },
    ]);
    assert.deepEqual(ToolPins.load(file).admit('a__t', tool('two')), false, 'the pin is in the file');
    assert.deepEqual(
      pins.approve().map((p) => p.name),
      ['a__t'],
    );
    assert.equal(ToolPins.load(file).admit('a__t', tool('two')), true);

    const lock = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(lock.tools.a__t.definition.description, 'two', 'the approved definition is kept');

    writeFileSync(file, '{ "tools": [] }');
    assert.throws(() => ToolPins.load(file), /not a version 1 or 2 lock/);
    writeFileSync(file, '{ "version": 2, "tools": { "a__t": "sha256:0" } }');
    assert.throws(() => ToolPins.load(file), /pins "a__t" without a "hash"/);
  });

  test('a version 1 lock (hashes only) is read, and written as version 2 with the definitions', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-pins-')), 'tools.lock');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        tools: { a__same: toolHash(tool('one')), a__moved: toolHash(tool('one')) },
      }),
    );
    const pins = ToolPins.load(file);
    assert.equal(pins.admit('a__same', tool('one')), true);
    // The unchanged tool's definition is learnt and written; the lock is now version 2.
    const written = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(written.version, 2);
    assert.deepEqual(written.tools.a__same, {
      hash: toolHash(tool('one')),
      definition: toolDefinition(tool('one')),
    });
    // Held: its old definition is the one learnt from a__same (the same hash), its new one is known.
    assert.equal(pins.admit('a__moved', tool('two')), false);
    const [held] = pins.pending();
    assert.deepEqual(held?.pinnedDefinition, toolDefinition(tool('one')));
    assert.deepEqual(held?.foundDefinition, toolDefinition(tool('two')));

    // A pin whose definition was never seen: held with the new definition only.
    writeFileSync(file, JSON.stringify({ version: 1, tools: { a__t: `sha256:${'0'.repeat(64)}` } }));
    const old = ToolPins.load(file);
    assert.equal(old.admit('a__t', tool('one')), false);
    assert.equal(old.pending()[0]?.pinnedDefinition, undefined);
    assert.deepEqual(old.pending()[0]?.foundDefinition, toolDefinition(tool('one')));
    assert.deepEqual(
      JSON.parse(readFileSync(file, 'utf8')).tools,
      { a__t: `sha256:${'0'.repeat(64)}` },
      'nothing written yet',
    );
    old.approve();
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).tools.a__t, {
      hash: toolHash(tool('one')),
      definition: toolDefinition(tool('one')),
    });

    // A definition that is not what its hash is over is dropped on reading (its hash still pins).
    writeFileSync(
      file,
      JSON.stringify({
        version: 2,
        tools: { a__t: { hash: toolHash(tool('one')), definition: { description: 'lie' } } },
      }),
    );
    const forged = ToolPins.load(file);
    assert.equal(forged.admit('a__t', tool('two')), false);
    assert.equal(forged.pending()[0]?.pinnedDefinition, undefined);
  });

  test('skills are pinned by SKILL.md URI over their frontmatter and every file digest and size', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gateway-pins-')), 'tools.lock');
    const digest = (c: string) => `sha256:${c.repeat(64)}`;
    const entry = (body: string, order: 'asc' | 'desc' = 'asc'): SkillEntry => {
      const resources = [
        { uri: 'skill://a/s/SKILL.md', digest: digest(body), size: 10 },
        { uri: 'skill://a/s/ref.md', digest: digest('0'), size: 3 },
      ];
      return {
        uri: 'skill://a/s/SKILL.md',
        frontmatter: { name: 's', description: 'Does it.' },
        resources: order === 'asc' ? resources : resources.reverse(),
      };
    };
    assert.equal(skillHash(entry('1')), skillHash(entry('1', 'desc')), 'file order does not matter');
    assert.notEqual(skillHash(entry('1')), skillHash(entry('2')));
    assert.notEqual(
      skillHash(entry('1')),
      skillHash({ ...entry('1'), frontmatter: { name: 's', description: 'Does more.' } }),
    );
    const pins = ToolPins.load(file);
    assert.equal(pins.admitSkill('skill://a/s/SKILL.md', entry('1')), true);
    assert.equal(pins.admit('a__t', tool('one')), true);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')).skills['skill://a/s/SKILL.md'], {
      hash: skillHash(entry('1')),
      definition: skillDefinition(entry('1')),
    });
    assert.equal(ToolPins.load(file).admitSkill('skill://a/s/SKILL.md', entry('2')), false);
    assert.equal(pins.admitSkill('skill://a/s/SKILL.md', entry('2')), false);
    assert.deepEqual(
      pins.pending().map((p) => [p.kind, p.name]),
      [['skill', 'skill://a/s/SKILL.md']],
    );
    pins.approve(['skill://a/s/SKILL.md']);
    assert.equal(ToolPins.load(file).admitSkill('skill://a/s/SKILL.md', entry('2')), true);
    assert.equal(ToolPins.load(file).admit('a__t', tool('one')), true, 'the tool pin stays');
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, 'utf8')).tools), ['a__t']);
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

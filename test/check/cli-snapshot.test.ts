/**
 * `switchboard check --snapshot` records a server's surface and `--against` reports what changed
 * since: a tool whose definition changed is flagged (exit 1), a read-only tool's different answer
 * is reported without failing, and a file that is no snapshot is refused (exit 2).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../cli/run-cli.js';
import { scratch, server } from './cli-target.js';

const dir = scratch();
const pinned = join(dir, 'server.snapshot.json');
const check = (...args: string[]) => runCli(['check', '--quiet', '--revision', '2026-07-28', ...args]);

describe('switchboard check: snapshots', () => {
  test('--snapshot records tools, resources, templates, prompts and read-only samples', async () => {
    const run = await check('--snapshot', pinned, server());
    assert.equal(run.code, 0, run.stderr);
    const snapshot = JSON.parse(readFileSync(pinned, 'utf8'));
    assert.equal(snapshot.format, 'switchboard-check-snapshot/1');
    assert.equal(snapshot.revision, '2026-07-28');
    assert.deepEqual(snapshot.server, { name: 'check-fixture', version: '1.0.0' });
    const echo = snapshot.tools.find((t: { name: string }) => t.name === 'echo');
    assert.equal(echo.description, 'Repeats its text.');
    assert.deepEqual(echo.annotations, { readOnlyHint: true });
    assert.ok(echo.inputSchema.properties.text, 'the input schema is recorded');
    assert.deepEqual(
      snapshot.resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate),
      ['notes://{id}'],
    );
    assert.deepEqual(
      snapshot.prompts.map((p: { name: string }) => p.name),
      ['summarize'],
    );
    assert.ok(snapshot.resources.length > 0);
    assert.deepEqual(Object.keys(snapshot.samples.echo).sort(), ['arguments', 'result']);
    assert.ok(snapshot.samples.echo.result.structuredContent, 'the sample keeps the structured result');
  });

  test('--against: unchanged exits 0; a changed tool exits 1 and names the field', async () => {
    const same = await check('--against', pinned, server());
    assert.equal(same.code, 0, same.stderr);
    assert.match(same.stdout, /^Surface: unchanged since /m);

    const json = join(dir, 'drift.json');
    const drift = await check('--against', pinned, '--json', json, server('later-revision-field'));
    assert.equal(drift.code, 1, drift.stdout);
    assert.match(drift.stdout, /^ {2}tool "echo" changed \(title\)$/m);
    assert.match(drift.stderr, /surface changed since .*: 2 change\(s\)/);
    assert.deepEqual(JSON.parse(readFileSync(json, 'utf8')).changes, [
      { kind: 'tool', name: 'echo', change: 'changed', fields: ['title'] },
      { kind: 'tool', name: 'shout', change: 'changed', fields: ['title'] },
    ]);
  });

  test('--against: removed, added and re-described items are listed; a different sample alone does not fail', async () => {
    const snapshot = JSON.parse(readFileSync(pinned, 'utf8'));
    snapshot.prompts[0].name = 'summarise';
    snapshot.tools[0].description = 'Says its text back.';
    const edited = join(dir, 'edited.json');
    writeFileSync(edited, JSON.stringify(snapshot));
    const run = await check('--against', edited, server());
    assert.equal(run.code, 1);
    assert.match(run.stdout, /tool "echo" changed \(description\)/);
    assert.match(run.stdout, /prompt "summarise" removed/);
    assert.match(run.stdout, /prompt "summarize" added/);

    const sampleOnly = JSON.parse(readFileSync(pinned, 'utf8'));
    sampleOnly.samples.echo.result.structuredContent = { echo: 'something else' };
    writeFileSync(edited, JSON.stringify(sampleOnly));
    const sample = await check('--against', edited, server());
    assert.equal(sample.code, 0, sample.stderr);
    assert.match(sample.stdout, /sample "echo" changed \(structuredContent\)/);
  });

  test('--against a file that is no snapshot: exit 2, saying what is wrong', async () => {
    const bogus = join(dir, 'bogus.json');
    writeFileSync(bogus, '{"tools": []}');
    const run = await check('--against', bogus, server());
    assert.equal(run.code, 2);
    assert.match(run.stderr, /is not a switchboard check snapshot/);
  });
});

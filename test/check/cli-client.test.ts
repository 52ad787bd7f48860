/** `switchboard check --client` as a user runs it: the report and exit status, and the command lines it refuses. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../cli/run-cli.js';
import { scratch } from './cli-target.js';

const RAW = fileURLToPath(new URL('../fixtures/check-client-raw.js', import.meta.url));
const raw = (bug?: string) =>
  [process.execPath, RAW, ...(bug ? [bug] : [])].map((w) => JSON.stringify(w)).join(' ');
const dir = scratch();

describe('switchboard check --client', () => {
  test('a correct client: exit 0 and a JSON report of client rules; a MUST broken: exit 1', async () => {
    const json = join(dir, 'client.json');
    const clean = await runCli(['check', '--quiet', '--json', json, '--client', raw()]);
    assert.equal(clean.code, 0, clean.stderr + clean.stdout);
    assert.match(clean.stdout, /\(client over http\)/);
    assert.match(
      clean.stdout,
      /^ {2}expired-session: \d+ HTTP request\(s\); the client exited with code 0$/m,
    );
    const report = JSON.parse(readFileSync(json, 'utf8'));
    assert.equal(report.role, 'client');
    assert.equal(report.summary.failed, 0);
    assert.ok(report.checks.every((c: { id: string }) => c.id.startsWith('client.')));

    const broken = await runCli(['check', '--quiet', '--client', raw('no-initialized')]);
    assert.equal(broken.code, 1);
    assert.match(
      broken.stdout,
      /FAIL client\.initialized \[MUST\] in [\d, -]+\n {2}after initialize, the client sent [\s\S]*?tools\/list/,
    );
  });
  test('exit 2: a client that never connects, and options that concern a server', async () => {
    const silent = await runCli(['check', '--quiet', '--client', `${JSON.stringify(process.execPath)} -e 0`]);
    assert.equal(silent.code, 2);
    assert.match(silent.stderr, /sent nothing to any scripted server/);
    const mixed = await runCli(['check', '--client', raw(), '--call-tools']);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /--call-tools: for a server check only, not with --client/);
    const url = await runCli(['check', '--client', 'http://127.0.0.1:1/mcp']);
    assert.equal(url.code, 2);
    assert.match(url.stderr, /--client takes the command that runs the client/);
  });
});

/** The `switchboard check` command as a user runs it (the bundled bin): the readable report and the JSON, JUnit and HTML files, a MUST failure's exit 1 and --expected-failures. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../cli/run-cli.js';
import { scratch, server } from './cli-target.js';

const dir = scratch();

describe('switchboard check: reports', () => {
  test('a clean server: exit 0, a readable report, and JSON, JUnit and HTML files', async () => {
    const json = join(dir, 'report.json');
    const junit = join(dir, 'report.xml');
    const html = join(dir, 'report.html');
    const run = await runCli([
      'check',
      '--revision',
      '2025-11-25',
      '--json',
      json,
      '--junit',
      junit,
      '--html',
      html,
      server(),
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Score 100\/100: \d+ passed, 0 failed, 0 warning\(s\)/m);
    assert.match(run.stderr, /switchboard check: 2025-11-25: tools/);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    assert.deepEqual(Object.keys(report.summary).sort(), [
      'advice',
      'failed',
      'passed',
      'score',
      'skipped',
      'warnings',
    ]);
    assert.equal(report.summary.score, 100);
    for (const check of report.checks) {
      assert.deepEqual(
        ['id', 'level', 'status', 'message'].filter((k) => typeof check[k] !== 'string'),
        [],
        JSON.stringify(check),
      );
    }
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    assert.match(xml, /<testcase classname="2025-11-25.tools" name="tools.invalid-arguments \[MUST\]"\/>/);
    const page = readFileSync(html, 'utf8');
    assert.match(page, /<p class="score">100\/100<\/p>/);
    assert.doesNotMatch(page, /<script|https?:\/\/(?!modelcontextprotocol\.io)/);
  });
  test('a MUST failure: exit 1, the failure named with its evidence; --expected-failures forgives it', async () => {
    const junit = join(dir, 'failed.xml');
    const run = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-06-18',
      '--junit',
      junit,
      server('no-input-validation'),
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stdout,
      /FAIL tools\.invalid-arguments \[MUST\] in 2025-06-18\n {2}tools\/call "echo" with \{\}/,
    );
    // The finding says what to change and quotes the spec, linked in its own revision's tree.
    assert.match(run.stdout, /\n {2}Change: The server validates tool inputs/);
    assert.match(run.stdout, /\n {2}Spec: "Servers MUST: - Validate all tool inputs"/);
    assert.match(run.stdout, /specification\/2025-06-18\/server\/tools#security-considerations/);
    // Every line but the first (the target, whole) is kept to 100 columns (stdout is no terminal).
    for (const line of run.stdout.split('\n').slice(1)) assert.ok(line.length <= 100, line);
    assert.match(readFileSync(junit, 'utf8'), /<failure message="tools\/call &quot;echo&quot;/);

    const expected = join(dir, 'expected.txt');
    writeFileSync(expected, '# known bug, fixed next release\n2025-06-18:tools.invalid-arguments\n');
    const forgiven = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-06-18',
      '--expected-failures',
      expected,
      server('no-input-validation'),
    ]);
    assert.equal(forgiven.code, 0, forgiven.stderr);
    assert.match(forgiven.stdout, /FAIL tools\.invalid-arguments \[MUST\] \(expected\)/);
  });
});

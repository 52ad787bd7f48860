/**
 * The `switchboard check` command as a user runs it: the bundled bin, its exit statuses (0 clean,
 * 1 a MUST failed, 2 not checkable or a wrong command line), and the report files it writes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../cli/run-cli.js';

const SERVER = fileURLToPath(new URL('../fixtures/check-server.js', import.meta.url));
const server = (bug?: string) =>
  [process.execPath, SERVER, ...(bug ? [bug] : [])].map((w) => JSON.stringify(w)).join(' ');
const dir = mkdtempSync(join(tmpdir(), 'switchboard-check-'));

describe('switchboard check (the command)', () => {
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
    assert.match(run.stdout, /FAIL tools\.invalid-arguments \[MUST\]: tools\/call "echo" with \{\}/);
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

  test('a SHOULD warning alone exits 0; --skip and --only select checks by id or area', async () => {
    const run = await runCli(['check', '--quiet', '--revision', '2025-11-25', server('cursor-ignored')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /WARN pagination\.invalid-cursor \[SHOULD\]/);
    const only = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-11-25',
      '--only',
      'tools,ping',
      server(),
    ]);
    assert.equal(only.code, 0, only.stderr);
    assert.match(only.stdout, /^ {2}ping {10}1 passed$/m);
    assert.doesNotMatch(only.stdout, /^ {2}(jsonrpc|resources) /m);
    const skipped = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-06-18',
      '--skip',
      'tools.invalid-arguments',
      server('no-input-validation'),
    ]);
    assert.equal(skipped.code, 0, skipped.stderr);
  });

  test('exit 2: a target that speaks no MCP, and a wrong command line', async () => {
    const notMcp = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-11-25',
      '--',
      process.execPath,
      '-e',
      'console.log("hello")',
    ]);
    assert.equal(notMcp.code, 2);
    assert.match(notMcp.stderr, /speaks none of the revisions checked, so it could not be checked/);
    const unknown = await runCli(['check', '--only', 'no-such-rule', server()]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--only\/--skip name no requirement or area: no-such-rule/);
    const revision = await runCli(['check', '--revision', '2020-01-01', server()]);
    assert.equal(revision.code, 2);
    assert.match(revision.stderr, /Unknown revision "2020-01-01"/);
  });
});

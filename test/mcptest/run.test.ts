/**
 * Hand-written test files against the repository's example server: what should pass passes, what
 * should fail fails with the condition that did not hold (expected, actual, diff), snapshots are
 * recorded, compared and updated, variables flow between tests, and tests that did not run are
 * counted as not run, never as passed. Then the command: its exit codes, --only, --bail, --server,
 * and the JSON, JUnit and HTML reports.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runTestFile, runTestFiles, snapshotPath, TestFileError } from 'switchboard/mcptest';
import { runCli } from '../cli/run-cli.js';
import { EXAMPLE, scratch, testFile } from './helpers.js';

const dir = scratch();

const PASSING = `server: ${JSON.stringify(EXAMPLE)}
tests:
  - name: adds two numbers
    call: add
    args: { a: 2, b: 3 }
    expect:
      outcome: ok
      structuredContent: { sum: 5 }
      json: [{ path: "$.structuredContent.sum", equals: 5 }, { path: "$.isError", exists: false }]
      durationMs: { lt: 20000 }
    save: { total: "$.structuredContent.sum" }
  - name: echoes the saved total
    call: echo
    args: { text: "total \${total}" }
    expect: { text: { equals: "total 5" } }
  - name: a tool error is isError
    call: divide
    args: { a: 1, b: 0 }
    expect: { outcome: isError, text: { contains: "Cannot divide by zero" } }
  - name: an unknown tool is a JSON-RPC error
    call: no_such_tool
    expect: { error: { code: -32602 } }
  - name: reads the readme
    read: docs://readme
    expect: { text: { matches: "^# " } }
  - name: gets a prompt
    prompt: summarize_note
    args: { id: groceries }
    snapshot: true
  - name: the tools
    list: tools
    snapshot: { ignore: ["$.tools[0].description"] }
  - name: any request
    request: { method: resources/templates/list }
    expect: { json: { path: "$.resourceTemplates[0].uriTemplate", matches: "^notes://" } }
`;

describe('switchboard test: hand-written files against the example server', () => {
  test('a file that holds passes, test by test, and records its snapshots', async () => {
    const file = testFile(dir, 'passing.mcptest.yaml', PASSING);
    const report = await runTestFile(file);
    assert.deepEqual(
      report.results.map((r) => [r.name, r.status, r.failures?.map((f) => f.message)]),
      [
        ['adds two numbers', 'passed', undefined],
        ['echoes the saved total', 'passed', undefined],
        ['a tool error is isError', 'passed', undefined],
        ['an unknown tool is a JSON-RPC error', 'passed', undefined],
        ['reads the readme', 'passed', undefined],
        ['gets a prompt', 'passed', undefined],
        ['the tools', 'passed', undefined],
        ['any request', 'passed', undefined],
      ],
    );
    assert.deepEqual(report.summary, { passed: 8, failed: 0, notRun: 0, total: 8 });
    assert.equal(report.results.find((r) => r.name === 'gets a prompt')?.snapshot, 'written');
    const stored = JSON.parse(readFileSync(snapshotPath(file), 'utf8'));
    assert.deepEqual(Object.keys(stored), ['gets a prompt', 'the tools']);
    assert.equal(stored['the tools'].tools[0].description, '<ignored>');
    assert.ok(!JSON.stringify(stored).includes('"_meta"'), 'no _meta is recorded');

    const again = await runTestFile(file);
    assert.deepEqual(again.summary, { passed: 8, failed: 0, notRun: 0, total: 8 });
    assert.ok(again.results.filter((r) => r.snapshot).every((r) => r.snapshot === 'matched'));
    assert.equal(readFileSync(snapshotPath(file), 'utf8'), `${JSON.stringify(stored, null, 2)}\n`);
  });

  test('each condition that does not hold fails its test, saying what was expected and what came', async () => {
    const file = testFile(
      dir,
      'failing.mcptest.yaml',
      `server: ${JSON.stringify(EXAMPLE)}
tests:
  - name: wrong sum
    call: add
    args: { a: 2, b: 3 }
    expect: { structuredContent: { sum: 6 } }
  - name: wrong text
    call: echo
    args: { text: hello }
    expect: { text: { equals: "goodbye" } }
  - name: a success where an error was expected
    call: divide
    args: { a: 1, b: 2 }
    expect: { outcome: isError }
  - name: an error where a success was expected
    call: no_such_tool
  - name: wrong error code
    call: no_such_tool
    expect: { error: { code: -32601 } }
  - name: a path with nothing there
    call: add
    args: { a: 1, b: 1 }
    expect: { json: { path: "$.structuredContent.product", equals: 1 } }
  - name: too slow
    call: add
    args: { a: 1, b: 1 }
    expect: { durationMs: { lt: 0 } }
  - name: invalid arguments are isError, not ok
    call: add
    args: { a: "two", b: 3 }
`,
    );
    const report = await runTestFile(file);
    assert.deepEqual(report.summary, { passed: 0, failed: 8, notRun: 0, total: 8 });
    const failure = (name: string) => report.results.find((r) => r.name === name)!.failures!;
    const sum = failure('wrong sum')[0]!;
    assert.equal(sum.message, 'structuredContent differs at $.structuredContent.sum');
    assert.match(sum.diff!, /^- +"sum": 6$/m);
    assert.match(sum.diff!, /^\+ +"sum": 5$/m);
    assert.deepEqual(failure('wrong text')[0], {
      message: 'text differs',
      expected: 'goodbye',
      actual: 'hello',
      diff: '- goodbye\n+ hello',
    });
    assert.equal(
      failure('a success where an error was expected')[0]!.message,
      'expected outcome isError, got ok',
    );
    assert.match(
      failure('an error where a success was expected')[0]!.message,
      /^expected outcome ok, got error \(JSON-RPC error -32602: /,
    );
    assert.equal(failure('wrong error code')[0]!.message, 'expected error code -32601, got -32602');
    assert.equal(
      failure('a path with nothing there')[0]!.message,
      '$.structuredContent.product is missing from the answer',
    );
    assert.match(failure('too slow')[0]!.message, /^the answer took \d+ ms; expected under 0 ms$/);
    assert.equal(
      failure('invalid arguments are isError, not ok')[0]!.message,
      'expected outcome ok, got isError',
    );
  });

  test('a changed answer fails against its snapshot with a diff, and -u accepts it', async () => {
    const file = testFile(
      dir,
      'snap.mcptest.yaml',
      `server: ${JSON.stringify(EXAMPLE)}\ntests:\n  - name: echo\n    call: echo\n    args: { text: first }\n    snapshot: true\n`,
    );
    assert.equal((await runTestFile(file)).results[0]!.snapshot, 'written');
    writeFileSync(file, readFileSync(file, 'utf8').replace('first', 'second'));
    const changed = await runTestFile(file);
    assert.equal(changed.results[0]!.status, 'failed');
    const [failure] = changed.results[0]!.failures!;
    assert.equal(failure!.message, 'the answer differs from its snapshot (run with -u to accept it)');
    assert.match(failure!.diff!, /^- +"text": "first",$/m);
    assert.match(failure!.diff!, /^\+ +"text": "second",$/m);
    const updated = await runTestFile(file, { update: true });
    assert.equal(updated.results[0]!.snapshot, 'updated');
    assert.equal((await runTestFile(file)).results[0]!.snapshot, 'matched');
  });

  test('snapshots no test produced are reported, and -u removes them', async () => {
    const file = testFile(
      dir,
      'obsolete.mcptest.yaml',
      `server: ${JSON.stringify(EXAMPLE)}\ntests:\n  - name: kept\n    call: echo\n    args: { text: a }\n    snapshot: true\n`,
    );
    await runTestFile(file);
    const stored = JSON.parse(readFileSync(snapshotPath(file), 'utf8'));
    writeFileSync(snapshotPath(file), JSON.stringify({ ...stored, gone: { x: 1 } }));
    assert.match(
      (await runTestFile(file)).notes.join('\n'),
      /1 snapshot\(s\) no test produced \(run with -u to remove\): gone/,
    );
    await runTestFile(file, { update: true });
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(snapshotPath(file), 'utf8'))), ['kept']);
  });

  test('tests that did not run are not run, never passed: skip, a lost variable, a server that does not start', async () => {
    const file = testFile(
      dir,
      'not-run.mcptest.yaml',
      `server: ${JSON.stringify(EXAMPLE)}
tests:
  - name: skipped
    call: echo
    args: { text: a }
    skip: "not today"
  - name: saves nothing useful
    call: divide
    args: { a: 1, b: 0 }
    save: { quotient: "$.content[0].text" }
  - name: needs the quotient
    call: echo
    args: { text: "\${quotient}" }
`,
    );
    const report = await runTestFile(file);
    assert.deepEqual(
      report.results.map((r) => [r.status, r.reason ?? r.failures?.[0]?.message]),
      [
        ['not-run', 'not today'],
        ['failed', 'expected outcome ok, got isError'],
        ['not-run', `\${quotient} was not saved: the test "saves nothing useful" did not pass`],
      ],
    );
    const dead = testFile(
      dir,
      'dead.mcptest.yaml',
      `server: ${JSON.stringify(`${process.execPath} -e "process.exit(3)"`)}\ntests:\n  - name: a\n    call: echo\n`,
    );
    const unreachable = await runTestFile(dead, { timeoutMs: 10_000 });
    assert.deepEqual(unreachable.summary, { passed: 0, failed: 0, notRun: 1, total: 1 });
    assert.match(unreachable.results[0]!.reason!, /^the server could not be reached: Could not connect to /);
  });

  test('revisions: every test at each, on a connection of its own', async () => {
    const file = testFile(
      dir,
      'revisions.mcptest.yaml',
      `server: ${JSON.stringify(EXAMPLE)}\nrevisions: [2025-06-18, 2026-07-28]\ntests:\n  - name: add\n    call: add\n    args: { a: 1, b: 2 }\n    expect: { structuredContent: { sum: 3 } }\n    snapshot: true\n`,
    );
    const report = await runTestFile(file);
    assert.deepEqual(
      report.results.map((r) => `${r.status} ${r.revision}`),
      ['passed 2025-06-18', 'passed 2026-07-28'],
    );
    assert.deepEqual(Object.keys(JSON.parse(readFileSync(snapshotPath(file), 'utf8'))), [
      'add [2025-06-18]',
      'add [2026-07-28]',
    ]);
  });

  test('a file with mistakes throws them all before anything runs', async () => {
    const bad = testFile(dir, 'bad.mcptest.yaml', 'server: x\ntests:\n  - name: a\n    cal: add\n');
    await assert.rejects(runTestFiles([bad]), (error: unknown) => {
      assert.ok(error instanceof TestFileError);
      assert.match(
        error.message,
        /bad\.mcptest\.yaml:4:5: Unknown key "cal" in a test\. Did you mean call\?/,
      );
      return true;
    });
  });
});

describe('switchboard test: the command', () => {
  const cliDir = scratch();
  const passing = testFile(cliDir, 'a.mcptest.yaml', PASSING);
  const failing = testFile(
    cliDir,
    'b.mcptest.yaml',
    `server: ${JSON.stringify(EXAMPLE)}\ntests:\n  - name: wrong\n    call: echo\n    args: { text: hi }\n    expect: { text: { equals: ho } }\n  - name: after it\n    call: echo\n    args: { text: hi }\n`,
  );

  test('exit 0 when every test passed, with a line per test', async () => {
    const run = await runCli(['test', passing]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ {2}✓ adds two numbers \[2026-07-28\] /m);
    assert.match(run.stdout, /^8 passed, 0 failed, 0 not run \(1 file, /m);
  });

  test('exit 1 on a failure, shown with expected, actual and diff; --bail leaves the rest not run', async () => {
    const run = await runCli(['test', failing]);
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      /✗ wrong \[2026-07-28\] {2}\(.*b\.mcptest\.yaml:3:5\)\n {4}text differs\n {4}diff \(- expected, \+ actual\):\n {6}- ho\n {6}\+ hi/,
    );
    assert.match(run.stdout, /^1 passed, 1 failed, 0 not run/m);
    const bail = await runCli(['test', '--bail', failing, passing]);
    assert.equal(bail.code, 1);
    assert.match(
      bail.stdout,
      /^ {2}- after it \(not run: the run stopped at the first failure \(--bail\)\)$/m,
    );
    assert.match(bail.stdout, /^0 passed, 1 failed, 9 not run \(2 files, /m);
  });

  test('--only runs the tests named; a name no test has is a usage error (exit 2)', async () => {
    const only = await runCli(['test', '--only', 'after', failing]);
    assert.equal(only.code, 0, only.stdout);
    assert.match(only.stdout, /^1 passed, 0 failed, 0 not run/m);
    const none = await runCli(['test', '--only', 'nothing like it', failing]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /No test is named, or has in its name, "nothing like it" \(--only\)/);
  });

  test('exit 2 on a file error, a missing file, an unknown option, or no test files at all', async () => {
    const bad = testFile(
      cliDir,
      'c.mcptest.json',
      '{"server": "x", "tests": [{"name": "a", "call": "x", "expect": {"outcome": "okay"}}]}',
    );
    const run = await runCli(['test', bad]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /c\.mcptest\.json:1:\d+: outcome "okay" is not one of ok, isError, error\./);
    assert.equal((await runCli(['test', join(cliDir, 'missing.mcptest.yaml')])).code, 2);
    assert.equal((await runCli(['test', '--no-such-option'])).code, 2);
    const empty = await runCli(['test', scratch()]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /no \*\.mcptest\.yaml or \*\.mcptest\.json file under/);
  });

  test("a folder runs every test file under it; --server replaces the file's server", async () => {
    const folder = scratch();
    testFile(
      folder,
      'x.mcptest.yaml',
      `server: "no-such-program-anywhere"\ntests:\n  - name: echo\n    call: echo\n    args: { text: hi }\n    expect: { text: { equals: hi } }\n`,
    );
    const unreachable = await runCli(['test', folder]);
    assert.equal(unreachable.code, 1, 'not run is not passed');
    assert.match(unreachable.stdout, /^0 passed, 0 failed, 1 not run/m);
    const elsewhere = await runCli(['test', folder, '--server', EXAMPLE]);
    assert.equal(elsewhere.code, 0, elsewhere.stdout);
  });

  test('--json, --junit and --html report every test, failures with their diffs', async () => {
    const junit = join(cliDir, 'report.xml');
    const html = join(cliDir, 'report.html');
    const run = await runCli(['test', '--json', '--junit', junit, '--html', html, failing]);
    assert.equal(run.code, 1);
    const json = JSON.parse(run.stdout);
    assert.deepEqual(json.summary, { passed: 1, failed: 1, notRun: 0, total: 2 });
    assert.deepEqual(json.files[0].results[0].failures[0], {
      message: 'text differs',
      expected: 'ho',
      actual: 'hi',
      diff: '- ho\n+ hi',
    });
    assert.match(run.stderr, /✗ wrong/, 'progress goes to stderr with --json');
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuites name="switchboard test" tests="2" failures="1" skipped="0"/);
    assert.match(
      xml,
      /<testcase classname="[^"]*b\.mcptest\.yaml" name="wrong \[2026-07-28\]"[^>]*line="3">\n {6}<failure message="text differs" type="assertion">[^<]*- ho\n[^<]*\+ hi<\/failure>/,
    );
    assert.match(xml, /<testcase [^>]*name="after it \[2026-07-28\]"[^>]*\/>/);
    const page = readFileSync(html, 'utf8');
    assert.match(page, /<p class="score">1\/2<\/p>/);
    assert.match(page, /<td class="failed">failed<\/td>/);
    assert.ok(!page.includes('<script'), 'the page has no script');
    assert.ok(existsSync(html));
  });
});

/**
 * Generated suites are regression suites that can fail. For one server's behaviour served by four
 * frameworks (Switchboard, the official SDK v2, tmcp over HTTP, FastMCP; test/fixtures/mcptest/),
 * `--generate` writes a suite that passes twice in a row on the unchanged server, and fails, on the
 * test that covers it, for each behaviour change made in a copy of the server: a tool's result, a
 * resource's contents, a prompt's messages, an error that stops being one, a schema that loosens,
 * a tool that goes away. The same file runs against each copy through `--server`.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runTestFile } from 'switchboard/mcptest';
import { runCli } from '../cli/run-cli.js';
import { CHANGES, type Change } from '../fixtures/mcptest/behaviour.js';
import { fixture, scratch, TMCP } from './helpers.js';

/** The tests each change must fail (and no others). */
const CAUGHT_BY: Record<Change, readonly string[]> = {
  result: ['tool add'],
  resource: ['resource notes://readme'],
  prompt: ['prompt greet'],
  error: ['tool lookup'],
  schema: ['the tool list'],
  gone: ['the tool list', 'tool echo'],
};
/** Failing these too is right but not required: without echo, a call of it may be refused as expected. */
const MAY_ALSO_FAIL: Partial<Record<Change, readonly string[]>> = { gone: ['tool echo without text'] };

/** The tests a generated suite of the fixture holds, in order. */
const GENERATED = [
  'the tool list',
  'tool add',
  'tool add without a',
  'tool echo',
  'tool echo without text',
  'tool lookup',
  'tool lookup without id',
  'an unknown tool',
  'the resource list',
  'resource notes://readme',
  'the resource template list',
  'the prompt list',
  'prompt greet',
  'prompt greet without name',
];

interface Framework {
  readonly name: string;
  /** The server's target line, with a change or not. */
  target(change?: Change): Promise<string>;
  /** Written before generating (FastMCP: the revision whose refusal it follows). */
  readonly header?: string;
  /**
   * A deviation from the spec the generated suite finds on the first run (these tests fail), and
   * the edit a user would make to accept it; an edited test is kept when generating again.
   */
  readonly deviation?: { readonly fails: readonly string[]; edit(text: string): string };
}

const children: ChildProcess[] = [];
/** tmcp runs over loopback HTTP: one process per change, started on first use. */
const tmcpUrls = new Map<string, Promise<string>>();
function tmcp(change?: Change): Promise<string> {
  const key = change ?? '';
  let url = tmcpUrls.get(key);
  if (!url) {
    const child = fork(TMCP, change ? [change] : [], { stdio: 'ignore' });
    children.push(child);
    url = new Promise<string>((resolve, reject) => {
      child.on('message', (m: { type?: string; url?: string }) => m.type === 'listening' && resolve(m.url!));
      child.on('exit', (code) => reject(new Error(`the tmcp fixture exited with ${code}`)));
    });
    tmcpUrls.set(key, url);
  }
  return url;
}

const FRAMEWORKS: readonly Framework[] = [
  { name: 'Switchboard', target: async (change) => fixture('switchboard', change) },
  { name: 'the official SDK v2', target: async (change) => fixture('sdk-v2', change) },
  // tmcp answers a call of an unknown tool with an isError result, where the spec makes it a
  // JSON-RPC error (-32602): the generated test finds it; the user accepts it by editing the test.
  {
    name: 'tmcp (HTTP)',
    target: tmcp,
    deviation: {
      fails: ['an unknown tool'],
      edit: (text) =>
        text.replace(
          /(- name: an unknown tool\n(?: {4}.*\n)*? {6}outcome: )error\n/,
          '$1isError # tmcp: not a JSON-RPC error\n',
        ),
    },
  },
  // FastMCP refuses invalid tool arguments with a JSON-RPC error even at 2025-11-25 (which makes
  // them isError): its suite is generated at 2025-06-18, where that is what the revision prescribes.
  {
    name: 'FastMCP',
    target: async (change) => fixture('fastmcp', change),
    header: 'revisions: [2025-06-18]\n',
  },
];

after(() => {
  for (const child of children) child.kill();
});

for (const framework of FRAMEWORKS) {
  describe(`switchboard test --generate: ${framework.name}`, () => {
    const dir = scratch();
    const file = join(dir, 'suite.mcptest.yaml');
    before(async () => {
      if (framework.header) writeFileSync(file, `${framework.header}tests: []\n`);
      const run = await runCli(['test', '--quiet', '--generate', await framework.target(), '-o', file]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /14 generated test\(s\) written, 0 kept/);
      if (framework.deviation) {
        const found = await runTestFile(file);
        assert.deepEqual(
          found.results.filter((r) => r.status === 'failed').map((r) => r.name),
          framework.deviation.fails,
        );
        const edited = framework.deviation.edit(readFileSync(file, 'utf8'));
        assert.notEqual(edited, readFileSync(file, 'utf8'), 'the edit applies');
        writeFileSync(file, edited);
      }
    });

    test('the suite has a test per tool, resource, prompt and list, negative cases included', () => {
      const text = readFileSync(file, 'utf8');
      const names = [...text.matchAll(/^ {2}- name: (.*)$/gm)].map((m) => m[1]);
      assert.deepEqual(names, GENERATED);
      assert.equal([...text.matchAll(/^ {4}generated: [0-9a-f]{12}$/gm)].length, GENERATED.length);
    });

    test('passes twice in a row on the unchanged server', async () => {
      for (const round of [1, 2]) {
        const report = await runTestFile(file);
        const failed = report.results.filter((r) => r.status !== 'passed');
        assert.deepEqual(
          failed.map((r) => `${r.name}: ${r.failures?.[0]?.message ?? r.reason}`),
          [],
          `round ${round}`,
        );
        assert.equal(report.summary.passed, GENERATED.length);
      }
    });

    for (const change of CHANGES) {
      test(`fails on a changed copy of the server: ${change}`, async () => {
        const report = await runTestFile(file, { server: await framework.target(change) });
        const failed = report.results.filter((r) => r.status === 'failed').map((r) => r.name);
        for (const name of CAUGHT_BY[change])
          assert.ok(failed.includes(name), `${name} should fail: ${failed}`);
        const allowed = [...CAUGHT_BY[change], ...(MAY_ALSO_FAIL[change] ?? [])];
        assert.deepEqual(
          failed.filter((name) => !allowed.includes(name)),
          [],
          'only the tests that cover the change fail',
        );
        assert.equal(report.summary.notRun, 0);
      });
    }
  });
}

describe('switchboard test --generate: generating again merges', () => {
  test('untouched generated tests are replaced; edited and hand-written tests stay, comments too', async () => {
    const dir = scratch();
    const file = join(dir, 'suite.mcptest.yaml');
    const target = fixture('switchboard');
    assert.equal((await runCli(['test', '--quiet', '--generate', target, '-o', file])).code, 0);
    const generated = readFileSync(file, 'utf8');
    // An edit (the echo test's argument), a test of one's own with a comment, and a test removed.
    const edited = `${generated
      .replace(/args:\n {6}text: check/, 'args:\n      text: mine')
      .replace(/ {2}- name: tool lookup without id\n(?: {4}.*\n)+/, '')}  # my own test
  - name: adds big numbers
    call: add
    args: { a: 1000000, b: 1 }
    expect: { text: { equals: "1000001" } }
`;
    writeFileSync(file, edited);
    const again = await runCli(['test', '--quiet', '--generate', target, '-o', file]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /13 generated test\(s\) written, 2 kept/);
    const merged = readFileSync(file, 'utf8');
    assert.match(merged, /text: mine/, 'the edited test stays');
    assert.match(
      merged,
      /# my own test\n {2}- name: adds big numbers/,
      'the hand-written test stays with its comment',
    );
    assert.equal(
      [...merged.matchAll(/^ {2}- name: tool echo$/gm)].length,
      1,
      'no second test of the same name',
    );
    assert.match(merged, /^ {2}- name: tool lookup without id$/m, 'the removed generated test is back');
    // The edited test asks something else now: its old answer is no longer the snapshot's, until -u.
    const report = await runTestFile(file);
    assert.deepEqual(
      report.results
        .filter((r) => r.status !== 'passed')
        .map((r) => `${r.name}: ${r.failures?.[0]?.message}`),
      ['tool echo: the answer differs from its snapshot (run with -u to accept it)'],
    );
    await runTestFile(file, { only: ['tool echo'], update: true });
    assert.deepEqual((await runTestFile(file)).summary, { passed: 15, failed: 0, notRun: 0, total: 15 });
  });

  test('a tool that is not read-only is not called unless --call-tools; a value that varies is ignored', async () => {
    const dir = scratch();
    const file = join(dir, 'varies.mcptest.yaml');
    const target = fixture('varies');
    const run = await runCli(['test', '--quiet', '--generate', target, '-o', file]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /tool bump is not annotated readOnlyHint: true, so it was not called/);
    const text = readFileSync(file, 'utf8');
    assert.match(
      text,
      /- name: tool now\n(?: {4}.*\n)*? {4}snapshot:\n {6}ignore:\n {8}- \$\.structuredContent\.at\n/,
    );
    assert.doesNotMatch(text, /name: tool bump/);
    assert.deepEqual((await runTestFile(file)).summary.failed, 0);
    const all = await runCli(['test', '--quiet', '--generate', target, '-o', file, '--call-tools']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(readFileSync(file, 'utf8'), /name: tool bump/);
  });
});

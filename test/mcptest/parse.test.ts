/**
 * Reading test files: a good file becomes the model the runner uses; a bad one gets one problem
 * per mistake, each with its line and column and what to write instead; unknown keys, patterns that
 * cannot run in linear time and variables nobody saved are errors. The parser never throws, whatever
 * the text (fast-check), and YAML and JSON spellings of a file read the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { formatProblem, parseTestFile } from 'switchboard/mcptest';
import { stringify } from 'yaml';

const problemsOf = async (text: string, file = 't.mcptest.yaml') => {
  const result = await parseTestFile(file, text);
  assert.equal(result.ok, false, 'the file should have been refused');
  return result.ok ? [] : result.problems.map(formatProblem);
};

const GOOD = `server: "node server.js --stdio"
revisions: [2025-11-25, 2026-07-28]
tests:
  - name: adds two numbers
    call: add
    args: { a: 2, b: 3 }
    expect:
      outcome: ok
      text: { equals: "5" }
      structuredContent: { sum: 5 }
      json: { path: "$.content[0].text", equals: "5" }
      durationMs: { lt: 500 }
    snapshot: { ignore: ["$.content[0].text"] }
    save: { total: "$.structuredContent.sum" }
  - name: uses the total
    call: echo
    args: { text: "\${total}", n: "\${total}" }
  - name: reads
    read: notes://a
    expect: { text: { matches: "^no(te)?s?$" } }
  - name: refused
    request: { method: tools/call, params: { name: nope } }
    expect: { error: { code: -32602, message: { contains: unknown } } }
  - name: the prompts
    list: prompts
    snapshot: true
`;

describe('test files: reading', () => {
  test('a file with every kind of step and check reads into the model', async () => {
    const result = await parseTestFile('t.mcptest.yaml', GOOD);
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    const { file } = result;
    assert.deepEqual(file.server, { kind: 'line', line: 'node server.js --stdio' });
    assert.deepEqual(file.revisions, ['2025-11-25', '2026-07-28']);
    assert.equal(file.tests.length, 5);
    const [add, echo, read, refused, list] = file.tests;
    assert.deepEqual(add!.step, { kind: 'call', tool: 'add', args: { a: 2, b: 3 } });
    assert.deepEqual(add!.expect.text, { equals: '5' });
    assert.deepEqual(add!.expect.json?.[0]?.path, ['content', 0, 'text']);
    assert.deepEqual(add!.expect.durationMs, { lt: 500 });
    assert.deepEqual(add!.snapshot?.ignore, [['content', 0, 'text']]);
    assert.deepEqual(add!.save, { total: ['structuredContent', 'sum'] });
    assert.deepEqual(add!.at, { line: 4, column: 5 });
    assert.deepEqual(echo!.expect, { outcome: 'ok' });
    assert.deepEqual(read!.step, { kind: 'read', uri: 'notes://a' });
    assert.equal(refused!.expect.outcome, 'error', 'error: implies outcome: error');
    assert.deepEqual(refused!.expect.error, { code: -32602, message: { contains: 'unknown' } });
    assert.deepEqual(list!.step, { kind: 'list', of: 'prompts' });
  });

  test('the same file written as JSON reads the same', async () => {
    const yaml = await parseTestFile('t.mcptest.yaml', GOOD);
    assert.ok(yaml.ok);
    const { parse } = await import('yaml');
    const json = await parseTestFile('t.mcptest.json', JSON.stringify(parse(GOOD), null, 2));
    assert.ok(json.ok, json.ok ? '' : json.problems.map(formatProblem).join('\n'));
    const strip = (f: typeof yaml.file) => ({ ...f, file: '', tests: f.tests.map(({ at: _at, ...t }) => t) });
    assert.deepEqual(strip(json.file), strip(yaml.file));
  });

  test('an unknown key is an error with its place and the key meant', async () => {
    const problems = await problemsOf(`server: x
tests:
  - name: a
    call: add
    expcet: { outcome: ok }
  - name: b
    call: add
    expect: { outcome: ok, txt: { equals: "1" } }
`);
    assert.deepEqual(problems, [
      't.mcptest.yaml:5:5: Unknown key "expcet" in a test. Did you mean expect? (a test takes name, call, read, prompt, request, list, args, expect, snapshot, save, skip, generated.)',
      't.mcptest.yaml:8:28: Unknown key "txt" in expect. Did you mean text? (expect takes outcome, text, structuredContent, json, error, durationMs.)',
    ]);
  });

  test('every mistake is reported, each once, with what to write instead', async () => {
    const problems = await problemsOf(`server: 42
revisions: [2025-13-01]
tests:
  - name: one
    call: add
    read: x://y
  - name: one
    call: add
    expect: { outcome: fine, text: "5" }
  - call: add
    args: [1, 2]
  - name: prompt args are strings
    prompt: greet
    args: { count: 3 }
  - name: two conditions
    call: add
    expect: { text: { equals: "a", contains: "b" }, durationMs: { lt: "500" } }
`);
    assert.deepEqual(problems, [
      't.mcptest.yaml:1:9: server must be a command line or URL, or a mapping. Write server: "node server.js", or { command, args, env, cwd }, { url, headers }, or { config: mcp.json, server: name }.',
      't.mcptest.yaml:2:13: "2025-13-01" is not a protocol revision. Use some of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05.',
      't.mcptest.yaml:6:5: A test makes one request, but this one has both call and read. Split it into two tests.',
      't.mcptest.yaml:7:5: A second test named "one" (the first is on line 4). Give every test its own name: snapshots, --only and the reports find tests by name.',
      't.mcptest.yaml:9:24: outcome "fine" is not one of ok, isError, error. ok: a result; isError: a tool result with isError: true; error: a JSON-RPC error.',
      't.mcptest.yaml:9:36: text must say how to compare. Write text: { equals: "5" } (or contains:, or matches: a regular expression).',
      't.mcptest.yaml:10:5: Missing name. Add name: a name for the test, e.g. name: adds two numbers.',
      't.mcptest.yaml:11:11: args must be a mapping of names to values. Write args: { a: 2, b: 3 }.',
      't.mcptest.yaml:14:20: args.count must be a string. Prompt arguments are strings: quote them, e.g. count: "3".',
      't.mcptest.yaml:17:21: text needs exactly one of equals, contains, matches (it has 2). Keep one; write a second test (or a json check) for another condition.',
      't.mcptest.yaml:17:71: durationMs.lt must be a number of at least 0. Write it without quotes: 500.',
    ]);
  });

  test('matches must run in linear time: lookaround and backreferences are refused', async () => {
    const problems = await problemsOf(`server: x
tests:
  - name: a
    call: add
    expect: { text: { matches: "(a)\\\\1" }, json: { path: "$.x", matches: "(?=x)" } }
`);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(
      problems[0]!,
      /^t\.mcptest\.yaml:5:32: The regular expression "\(a\)\\\\1" cannot be run in linear time/,
    );
    assert.match(problems[1]!, /^t\.mcptest\.yaml:5:74: .*"\(\?=x\)".*without lookaround or backreferences/);
  });

  test('a variable must be saved by an earlier test; $${ is the text itself', async () => {
    const problems = await problemsOf(`server: x
tests:
  - name: a
    call: add
    args: { id: "\${id}", literal: "$\${not_a_variable}" }
  - name: b
    call: add
    save: { id: "$.structuredContent.id" }
  - name: c
    read: "notes://\${id}/\${idd}"
`);
    assert.deepEqual(problems, [
      `t.mcptest.yaml:5:11: \${id} is used but no earlier test saves id. Add save: { id: "$.path" } to an earlier test, or write $\${id} for the text itself.`,
      `t.mcptest.yaml:10:11: \${idd} is used but no earlier test saves idd. Saved so far: id. Add save: { idd: "$.path" } to an earlier test, or write $\${idd} for the text itself.`,
    ]);
  });

  test('paths: $ first, names, quoted names and indexes; anything else is refused', async () => {
    const problems = await problemsOf(`server: x
tests:
  - name: a
    call: add
    expect:
      json:
        - { path: "content[0]", exists: true }
        - { path: "$.content[*]", exists: true }
        - { path: "$['odd key'][-1].ok", exists: true }
`);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0]!, /7:19: The path "content\[0\]" does not start with \$/);
    assert.match(problems[1]!, /8:19: .*neither \[index\] nor \['name'\]/);
  });

  test('YAML syntax errors and duplicate keys carry their place', async () => {
    const problems = await problemsOf('server: x\nserver: y\ntests: [\n');
    assert.ok(problems.length >= 2, problems.join('\n'));
    assert.match(problems[0]!, /^t\.mcptest\.yaml:2:1: .*unique.* Keep one of the two\.$/);
  });

  test('the parser never throws, whatever the text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => stringify(v)),
          fc.jsonValue().map((v) => JSON.stringify({ server: 'x', tests: [v] })),
        ),
        async (text) => {
          const result = await parseTestFile('f.mcptest.yaml', text);
          if (!result.ok)
            for (const p of result.problems) assert.ok(p.line >= 1 && p.column >= 1 && p.message.length > 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('any test built from the format reads back as written (YAML and JSON alike)', async () => {
    const text = fc.oneof(fc.record({ equals: fc.string() }), fc.record({ contains: fc.string() }));
    const testCase = fc.record({
      name: fc.string({ minLength: 1 }),
      call: fc.string({ minLength: 1 }).filter((s) => !s.includes('${')),
      args: fc.dictionary(
        fc.string({ minLength: 1 }).filter((s) => s !== '__proto__'),
        fc.oneof(
          fc.integer(),
          fc.boolean(),
          fc.string().filter((s) => !s.includes('${')),
        ),
      ),
      expect: fc.record(
        { outcome: fc.constantFrom('ok', 'isError', 'error'), text },
        { requiredKeys: ['outcome'] },
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(testCase, { selector: (t) => t.name, minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (tests, asJson) => {
          const source = { server: 'node s.js', tests };
          const result = await parseTestFile(
            asJson ? 'f.mcptest.json' : 'f.mcptest.yaml',
            asJson ? JSON.stringify(source) : stringify(source),
          );
          assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
          assert.deepEqual(
            result.file.tests.map((t) => ({ name: t.name, step: t.step, expect: t.expect })),
            tests.map((t) => ({
              name: t.name,
              step: { kind: 'call', tool: t.call, args: { ...t.args } },
              expect: JSON.parse(JSON.stringify(t.expect)),
            })),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

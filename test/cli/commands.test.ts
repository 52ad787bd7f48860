import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { fixtureTarget, fixtureWords, runCli } from './run-cli.js';

const target = fixtureTarget();

describe('switchboard commands against a stdio server', { concurrency: 8 }, () => {
  test('tools: readable listing with parameters, types, required, output and hints', async () => {
    const { code, stdout, stderr } = await runCli(['tools', target]);
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    assert.ok(
      stdout.startsWith(`add — Add
  Adds two numbers.
  Parameters:
    a: number (required) — First addend
    b: number (required)
  Returns structured content: object
  Hints: read-only, idempotent
`),
      stdout,
    );
    assert.match(stdout, /^echo\n {2}Returns its arguments/m);
    assert.match(stdout, / {4}tags: string\[\]\n/);
    assert.match(stdout, / {4}level: "low" \| "high"\n/);
    assert.match(stdout, / {4}maybe: number \| null\n/);
    assert.match(stdout, /^fail\n {2}Always fails\.\n {2}No parameters\.\n/m);
  });

  test('tools --json: the raw list', async () => {
    const { code, stdout } = await runCli(['tools', target, '--json']);
    assert.equal(code, 0);
    const { tools } = JSON.parse(stdout) as { tools: { name: string; inputSchema: unknown }[] };
    assert.deepEqual(
      tools.map((t) => t.name),
      ['add', 'crash', 'echo', 'fail', 'hang', 'media'],
    );
    assert.equal((tools[0]!.inputSchema as { type: string }).type, 'object');
  });

  test('resources: resources and templates', async () => {
    const { code, stdout } = await runCli(['resources', target]);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `Resources:
  file:///logo.bin
    logo [application/octet-stream]
  file:///notes.txt
    notes — Notes [text/plain, 11 B]
    Plain text notes.

Resource templates:
  greet://{name}
    greeting [text/plain]
    A greeting for anyone.
`,
    );
    const json = JSON.parse((await runCli(['resources', target, '--json'])).stdout);
    assert.deepEqual(
      json.resources.map((r: { uri: string }) => r.uri),
      ['file:///logo.bin', 'file:///notes.txt'],
    );
    assert.equal(json.resourceTemplates[0].uriTemplate, 'greet://{name}');
  });

  test('prompts: names, titles and arguments', async () => {
    const { code, stdout } = await runCli(['prompts', target]);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `review — Code review
  Asks for a review.
  Arguments:
    language (required) — Programming language
    focus
`,
    );
  });

  test('call: structured content is shown once, pretty-printed', async () => {
    const { code, stdout, stderr } = await runCli(['call', target, 'add', 'a=2', 'b=3']);
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'Structured content:\n{\n  "sum": 5\n}\n');
  });

  test('call --json: the raw result', async () => {
    const { code, stdout } = await runCli(['call', target, 'add', 'a=2', 'b=3.5', '--json']);
    assert.equal(code, 0);
    const result = JSON.parse(stdout);
    assert.deepEqual(result.structuredContent, { sum: 5.5 });
    assert.equal(result.content[0].type, 'text');
  });

  test('call: key=value pairs are coerced with the input schema', async () => {
    const { code, stdout, stderr } = await runCli([
      'call',
      target,
      'echo',
      'text=007',
      'count=3',
      'ratio=-1.5e2',
      'loud=false',
      'tags=["a","b"]',
      'options={"depth":2}',
      'level=high',
      'maybe=null',
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), {
      text: { value: '007', type: 'string' },
      count: { value: 3, type: 'number' },
      ratio: { value: -150, type: 'number' },
      loud: { value: false, type: 'boolean' },
      tags: { value: ['a', 'b'], type: 'array' },
      options: { value: { depth: 2 }, type: 'object' },
      level: { value: 'high', type: 'string' },
      maybe: { value: null, type: 'object' },
    });
  });

  test('call: --args gives the arguments as JSON; key=value pairs override its keys', async () => {
    const { code, stdout } = await runCli([
      'call',
      target,
      'echo',
      '--args',
      '{"text":"from json","count":1}',
      'count=2',
    ]);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout), {
      text: { value: 'from json', type: 'string' },
      count: { value: 2, type: 'number' },
    });
  });

  test('call: every kind of content block is rendered', async () => {
    const { code, stdout } = await runCli(['call', target, 'media']);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `Here is everything:
[image: image/png, 68 B]
[audio: audio/wav, 2.0 KiB]
[resource link: file:///notes.txt (Notes, text/plain)]
[resource: file:///inline.txt, text/plain]
inline text
[resource: file:///inline.bin, application/octet-stream, 3 B]
`,
    );
  });

  test('call: a tool error goes to stderr with exit code 1', async () => {
    const { code, stdout, stderr } = await runCli(['call', target, 'fail']);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, 'switchboard: tool "fail" reported an error:\nThe disk is full.\n');
    const json = await runCli(['call', target, 'fail', '--json']);
    assert.equal(json.code, 1);
    assert.equal(JSON.parse(json.stdout).isError, true);
    assert.match(json.stderr, /reported an error \(isError: true\)/);
  });

  test('call: an unknown tool fails and names the tools there are', async () => {
    const { code, stdout, stderr } = await runCli(['call', target, 'nope']);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'switchboard: could not call tool "nope": the server has no tool "nope". Its tools: add, crash, echo, fail, hang, media.\n',
    );
  });

  test('call: an unknown parameter is a usage error listing the parameters', async () => {
    const { code, stderr } = await runCli(['call', target, 'add', 'a=1', 'c=2']);
    assert.equal(code, 2);
    assert.match(
      stderr,
      /Tool "add" has no parameter "c"\. Its parameters: a \(number, required\), b \(number, required\)\./,
    );
    assert.match(stderr, /Run "switchboard call --help" for usage\./);
  });

  test('call: values the schema cannot take are usage errors (more cases in arguments.test)', async () => {
    const notNumber = await runCli(['call', target, 'add', 'a=x', 'b=1']);
    assert.equal(notNumber.code, 2);
    assert.match(notNumber.stderr, /Argument "a" must be a number, got "x"\./);
  });

  test('call: a JSON object where key=value belongs points at --args', async () => {
    const { code, stderr } = await runCli(['call', target, 'add', '--json', '{"a":1,"b":2}']);
    assert.equal(code, 2);
    assert.match(stderr, /use --args '\{"a":1,"b":2\}' \(--json only selects JSON output\)/);
  });

  test('read: text, binary, and a missing resource', async () => {
    const text = await runCli(['read', target, 'file:///notes.txt']);
    assert.equal(text.code, 0);
    assert.equal(text.stdout, 'hello notes\n');
    const binary = await runCli(['read', target, 'file:///logo.bin']);
    assert.equal(
      binary.stdout,
      '[resource: file:///logo.bin, application/octet-stream, 4 B]\n(binary data; --json prints it as base64)\n',
    );
    const json = await runCli(['read', target, 'file:///logo.bin', '--json']);
    assert.equal(JSON.parse(json.stdout).contents[0].blob, 'AQIDBA==');
    // Pinned: with both cores busy, the fixture can start slower than the CLI's 5 s discover probe,
    // and the legacy era answers a missing resource with another code.
    const missing = await runCli(['read', target, 'file:///missing', '--protocol', '2026-07-28']);
    assert.equal(missing.code, 1);
    assert.match(
      missing.stderr,
      /^switchboard: could not read file:\/\/\/missing: the server answered with error -32602 \(Invalid params\): Resource not found/,
    );
  });

  test('prompt: messages with roles; arguments are checked against the prompt', async () => {
    const ok = await runCli(['prompt', target, 'review', 'language=ts', 'focus=a = b']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '[user]\nReview this ts code for a = b.\n\n[assistant]\nSend the code.\n');
    const unknown = await runCli(['prompt', target, 'review', 'language=ts', 'tone=kind']);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /Prompt "review" has no argument "tone"\. Its arguments: language \(required\), focus\./,
    );
    const unknownPrompt = await runCli(['prompt', target, 'nope']);
    assert.equal(unknownPrompt.code, 1);
    assert.match(unknownPrompt.stderr, /the server has no prompt "nope"\. Its prompts: review\./);
  });

  test('the target may follow --, word for word', async () => {
    const { code, stdout } = await runCli(['call', 'add', 'a=1', 'b=2', '--json', '--', ...fixtureWords()]);
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout).structuredContent, { sum: 3 });
  });

  test('a server that crashes mid-call: exit 1 with its exit status and stderr tail', async () => {
    const { code, stdout, stderr } = await runCli(['call', target, 'crash']);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /^switchboard: could not call tool "crash": The MCP server ".*" \(pid \d+\) exited unexpectedly with code 7\./,
    );
    assert.match(stderr, /Last lines of its stderr:\nfixture: about to crash\n$/);
  });

  test('a server that dies on start: exit 1 with its stderr', async () => {
    const { code, stderr } = await runCli(['tools', fixtureTarget('crash-on-start')]);
    assert.equal(code, 1);
    assert.match(stderr, /^switchboard: could not connect to .* exited unexpectedly with code 3\./);
    assert.match(stderr, /fixture: cannot open the database\nfixture: giving up\n$/);
  });

  test('an HTTP URL nobody listens on: exit 1 saying so, not a protocol problem', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const { code, stderr } = await runCli(['tools', `http://127.0.0.1:${port}/mcp`]);
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^switchboard: could not connect to http://127\\.0\\.0\\.1:${port}/mcp: Could not POST to .*ECONNREFUSED.*Check that the server is running`,
      ),
    );
    assert.doesNotMatch(stderr, /--legacy|--protocol/);
  });

  test('a program that does not exist: exit 1 saying what to check', async () => {
    const { code, stderr } = await runCli(['tools', 'switchboard-no-such-program --flag']);
    assert.equal(code, 1);
    assert.match(
      stderr,
      /^switchboard: could not connect to switchboard-no-such-program --flag: Could not start "switchboard-no-such-program": .*ENOENT.*on PATH/,
    );
  });
});

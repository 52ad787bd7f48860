import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type LoadResult, loadGatewayConfig, parseGatewayConfig } from '../../src/gateway/config.js';
import { formatProblem } from '../../src/gateway/config-source.js';
import { expand } from '../../src/gateway/expand.js';
import { runCli } from '../cli/run-cli.js';

const ENV = { HOME: '/home/ada', TOKEN: 'sekret', EMPTY: '' };

function ok(result: LoadResult) {
  assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
  return result.config;
}

function problems(text: string, env: Record<string, string> = ENV): string[] {
  const result = parseGatewayConfig('mcp.json', text, { env });
  assert.equal(result.ok, false, 'the config should be refused');
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('gateway config', () => {
  test('reads mcpServers with stdio and HTTP servers, JSONC comments and trailing commas', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
    writeFileSync(join(dir, 'secrets.env'), '# comment\nexport API_KEY="k1"\nOTHER=plain # trailing\n');
    const file = join(dir, 'mcp.jsonc');
    writeFileSync(
      file,
      `{
  // local and remote servers
  "mcpServers": {
    "files": { "command": "npx", "args": ["-y", "fs", "\${HOME}/docs"], "env": { "MODE": "\${MODE:-ro}" }, "envFile": "secrets.env", "cwd": "sub" },
    "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${env:TOKEN}" }, "include": ["search_*"], "timeoutMs": 5000, "connectTimeoutMs": 2000 },
    "old": { "type": "sse", "url": "http://127.0.0.1:9/sse", "startup": "lazy" },
    "off": { "command": "nothing", "disabled": true },
  },
  "gateway": { "port": 0, "separator": "-", "collisions": "skip" },
}`,
    );
    const config = ok(loadGatewayConfig(file, { env: ENV }));
    assert.deepEqual(config.options, {
      host: '127.0.0.1',
      port: 0,
      separator: '-',
      collisions: 'skip',
      timeoutMs: 60_000,
      connectTimeoutMs: 10_000,
      healthCheckIntervalMs: 30_000,
      maxSessionsPerUpstream: 32,
      upstreamSessionIdleMs: 300_000,
      startup: 'eager',
    });
    assert.deepEqual(
      config.upstreams.map((u) => u.name),
      ['files', 'remote', 'old'],
    );
    const [files, remote, old] = config.upstreams;
    assert.ok(files?.transport === 'stdio');
    assert.deepEqual(files.args, ['-y', 'fs', '/home/ada/docs']);
    assert.deepEqual(files.env, { API_KEY: 'k1', OTHER: 'plain', MODE: 'ro' });
    assert.equal(files.cwd, join(dir, 'sub'));
    assert.ok(remote?.transport === 'http');
    assert.equal(remote.url.href, 'https://example.com/mcp');
    assert.deepEqual(remote.headers, { Authorization: 'Bearer sekret' });
    assert.deepEqual(remote.include, ['search_*']);
    assert.equal(remote.timeoutMs, 5000);
    assert.equal(remote.connectTimeoutMs, 2000);
    assert.equal(files.connectTimeoutMs, 10_000);
    assert.ok(old?.transport === 'sse');
    assert.equal(old.startup, 'lazy');
  });

  test("healthCheckIntervalMs: 30 s by default, the gateway-wide one, a server's own, 0 for off; out of range refused where it is", () => {
    const read = (text: string) => ok(parseGatewayConfig('mcp.json', text, { env: ENV }));
    const plain = read(
      '{ "mcpServers": { "a": { "command": "x" }, "b": { "url": "http://127.0.0.1:1/mcp" } } }',
    );
    assert.equal(plain.options.healthCheckIntervalMs, 30_000);
    assert.deepEqual(
      plain.upstreams.map((u) => u.healthCheckIntervalMs),
      [30_000, 30_000],
    );
    const set = read(`{
  "mcpServers": {
    "a": { "command": "x" },
    "b": { "url": "http://127.0.0.1:1/mcp", "healthCheckIntervalMs": 0 },
    "c": { "type": "sse", "url": "http://127.0.0.1:1/sse", "healthCheckIntervalMs": 100 },
    "d": { "url": "http://127.0.0.1:1/mcp", "healthCheckIntervalMs": 86400000 }
  },
  "gateway": { "healthCheckIntervalMs": 5000 }
}`);
    assert.equal(set.options.healthCheckIntervalMs, 5000);
    assert.deepEqual(
      set.upstreams.map((u) => [u.name, u.healthCheckIntervalMs]),
      [
        ['a', 5000],
        ['b', 0],
        ['c', 100],
        ['d', 86_400_000],
      ],
    );
    assert.equal(
      read('{ "mcpServers": { "a": { "command": "x" } }, "gateway": { "healthCheckIntervalMs": 0 } }')
        .upstreams[0]?.healthCheckIntervalMs,
      0,
    );
    const range = '"healthCheckIntervalMs" must be 0 (off) or a whole number from 100 to 86400000.';
    assert.deepEqual(
      problems(`{
  "mcpServers": {
    "a": { "command": "x", "healthCheckIntervalMs": 99 },
    "b": { "command": "x", "healthCheckIntervalMs": 86400001 },
    "c": { "command": "x", "healthCheckIntervalMs": -1 },
    "d": { "command": "x", "healthCheckIntervalMs": 1.5 },
    "e": { "command": "x", "healthCheckIntervalMs": "500" }
  },
  "gateway": { "healthCheckIntervalMs": 1 }
}`),
      [
        `mcp.json:3:53: ${range}`,
        `mcp.json:4:53: ${range}`,
        `mcp.json:5:53: ${range}`,
        `mcp.json:6:53: ${range}`,
        `mcp.json:7:53: ${range} Remove the quotes: 500.`,
        `mcp.json:9:41: ${range}`,
      ],
    );
    // A near miss of the key is caught like any other.
    assert.deepEqual(problems('{ "mcpServers": { "a": { "command": "x", "healthCheckIntervalMS": 0 } } }'), [
      'mcp.json:1:42: Unknown key "healthCheckIntervalMS" in the server "a". Did you mean "healthCheckIntervalMs"?',
    ]);
  });

  test("reads VS Code's servers + inputs, with ${input:id} from the environment", () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-vscode-'));
    mkdirSync(join(dir, '.vscode'));
    const file = join(dir, '.vscode', 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'api-key', description: 'Key', password: true }],
        servers: {
          gh: { type: 'http', url: 'https://api.example/mcp', headers: { 'X-Key': '${input:api-key}' } },
          local: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/server.js'] },
        },
      }),
    );
    const config = ok(loadGatewayConfig(file, { env: { SWITCHBOARD_INPUT_API_KEY: 'k' } }));
    const [gh, local] = config.upstreams;
    assert.ok(gh?.transport === 'http' && local?.transport === 'stdio');
    assert.deepEqual(gh.headers, { 'X-Key': 'k' });
    assert.deepEqual(local.args, [`${dir}/server.js`]);
    assert.deepEqual(problems(readInputless()), [
      'mcp.json:1:121: The input "api-key" has no value: the gateway does not prompt. Set the environment variable SWITCHBOARD_INPUT_API_KEY.',
    ]);
  });

  test('every problem at once, each with line, column and what to write instead', () => {
    const text = `{
  "mcpServers": {
    "a": { "command": "node", "args": ["x", 3] },
    "b": { "url": "ftp://host/x" },
    "c": { "comand": "node" },
    "d d": { "command": "x" },
    "e": { "command": "node", "env": { "PORT": 8080, "K": "\${NOPE}" } },
    "f": { "type": "websocket", "url": "ws://x" },
    "g": { "command": "x", "url": "http://x" }
  },
  "gateway": { "port": "7420", "separator": ":" }
}`;
    assert.deepEqual(problems(text), [
      'mcp.json:3:45: Each entry of "args" must be a string, not number. Quote it: "3".',
      'mcp.json:4:19: The URL must be http or https, not ftp:. Give the whole endpoint, e.g. "https://host/mcp".',
      'mcp.json:5:10: The server "c" has neither "command" nor "url". Add "command": "npx" (with "args") for a local server, or "url" for a remote one.',
      'mcp.json:5:12: Unknown key "comand" in the server "c". Did you mean "command"?',
      'mcp.json:6:5: The server name "d d" cannot be a namespace. Use 1-32 characters from A-Z, a-z, 0-9, "_" and "-" (e.g. "d-d").',
      'mcp.json:7:48: The value of "PORT" in "env" must be a string. Quote it: "8080".',
      'mcp.json:7:60: The environment variable NOPE is not set. Set NOPE, or give a default: ${NOPE:-value}.',
      'mcp.json:8:20: Unknown server type "websocket". Write "stdio", "http" (Streamable HTTP, either era) or "sse" (legacy HTTP+SSE).',
      'mcp.json:9:35: The server "g" has both "command" and "url". Keep "command" for a local server or "url" for a remote one.',
      'mcp.json:11:24: "port" must be a whole number from 0 to 65535. Remove the quotes: 7420.',
      'mcp.json:11:45: The separator ":" would make names clients refuse. Use 1-4 characters from A-Z, a-z, 0-9, "_" and "-" (default "__").',
    ]);
  });

  test('syntax errors and empty or odd files are located too', () => {
    assert.deepEqual(problems('{ "mcpServers": { "a": { "command": "x" } "b": {} } }'), [
      'mcp.json:1:43: Not valid JSON here: comma expected. Put a comma between two entries.',
    ]);
    assert.deepEqual(problems(''), [
      'mcp.json:1:1: The file is empty. Write { "mcpServers": { "name": { "command": "..." } } }.',
    ]);
    assert.deepEqual(problems('[]'), [
      'mcp.json:1:1: The config must be a JSON object, not array. Write { "mcpServers": { ... } }.',
    ]);
    assert.deepEqual(problems('{ "servers": {}, "mcpServers": {} }'), [
      'mcp.json:1:14: The file has both "mcpServers" and "servers". Keep one list: "mcpServers" (desktop apps, Cursor) or "servers" (VS Code).',
    ]);
    const missing = loadGatewayConfig('/nonexistent/mcp.json');
    assert.equal(missing.ok, false);
    if (!missing.ok) assert.match(formatProblem(missing.problems[0]!), /does not exist/);
  });

  test('keys other tools write are ignored; unknown ones warned about, near misses refused', () => {
    const result = parseGatewayConfig(
      'mcp.json',
      '{ "mcpServers": { "a": { "command": "x", "autoApprove": [], "name": "n", "colour": 1 } } }',
      { env: {} },
    );
    assert.ok(result.ok);
    assert.deepEqual(result.warnings.map(formatProblem), [
      'mcp.json:1:61: Unknown key "name" in the server "a" is ignored.',
      'mcp.json:1:74: Unknown key "colour" in the server "a" is ignored.',
    ]);
  });

  test('"namespace": false shows one server bare; a second one, or a quoted boolean, is refused', () => {
    const one = parseGatewayConfig(
      'mcp.json',
      '{ "mcpServers": { "a": { "command": "x", "namespace": false }, "b": { "command": "y" } } }',
      { env: {} },
    );
    assert.ok(one.ok);
    assert.deepEqual(
      one.config.upstreams.map((u) => [u.name, u.namespace]),
      [
        ['a', false],
        ['b', true],
      ],
    );
    const two = parseGatewayConfig(
      'mcp.json',
      '{ "mcpServers": {\n "a": { "command": "x", "namespace": false },\n "b": { "command": "y", "namespace": "false" },\n "c": { "command": "z", "namespace": false } } }',
      { env: {} },
    );
    assert.ok(!two.ok);
    assert.deepEqual(two.problems.map(formatProblem), [
      'mcp.json:3:38: "namespace" must be true or false, not string. Remove the quotes: false.',
      'mcp.json:4:38: The servers "a" and "c" both have "namespace": false. Keep "namespace": false on one server at most: the others need their namespace to be told apart.',
    ]);
  });

  test('expansion: defaults, env: prefix, escapes, and a missing variable named', () => {
    const scope = {
      env: { A: 'a', EMPTY: '' },
      inputs: new Map<string, string>(),
      declaredInputs: new Set<string>(),
      workspaceFolder: '/w',
      userHome: '/h',
    };
    assert.deepEqual(expand('${A}-${env:A}-${EMPTY:-d}-${B:-x y}-$${A}-${userHome}', scope), {
      value: 'a-a-d-x y-${A}-/h',
      failures: [],
    });
    const { failures } = expand('x ${MISSING} ${bad name}', scope);
    assert.deepEqual(
      failures.map((f) => [f.index, f.message]),
      [
        [2, 'The environment variable MISSING is not set.'],
        [13, '${bad name} is not a variable reference this config understands.'],
      ],
    );
  });

  test('expansion property: text without ${ is unchanged; a set variable always expands to its value', () => {
    const scope = (env: Record<string, string>) => ({
      env,
      inputs: new Map<string, string>(),
      declaredInputs: new Set<string>(),
      workspaceFolder: '/w',
      userHome: '/h',
    });
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('${')),
        (text) => {
          assert.deepEqual(expand(text, scope({})), { value: text, failures: [] });
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/),
        fc.string(),
        fc.string().filter((s) => !s.includes('$')),
        (name, value, around) => {
          const out = expand(`${around}\${${name}}${around}`, scope({ [name]: value }));
          assert.deepEqual(out, { value: `${around}${value}${around}`, failures: [] });
        },
      ),
    );
  });

  test('switchboard gateway --check prints the servers, or every problem and exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-check-'));
    const good = join(dir, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({
        mcpServers: { a: { command: 'node', args: ['s.js'] }, b: { url: 'http://127.0.0.1:1/mcp' } },
      }),
    );
    const passed = await runCli(['gateway', '--check', good]);
    assert.equal(passed.code, 0, passed.stderr);
    assert.equal(
      passed.stdout,
      `${good}: 2 servers, OK\n  a  stdio node s.js\n  b  http://127.0.0.1:1/mcp (Streamable HTTP)\n`,
    );

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{\n  "mcpServers": {\n    "a": { "command": "node", "args": "s.js" }\n  }\n}\n');
    const failed = await runCli(['gateway', '--check', bad]);
    assert.equal(failed.code, 1);
    assert.equal(
      failed.stderr,
      `${bad}:3:39: "args" must be an array of strings, not string. Write "args": ["..."].\n` +
        `switchboard gateway: 1 problem in ${bad}; nothing started.\n`,
    );
    // 20 000 levels deep (an attack on the parser): a problem with its place, not a stack overflow.
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, `{\n  "mcpServers": ${'['.repeat(20_000)}${']'.repeat(20_000)}\n}\n`);
    const nested = await runCli(['gateway', '--check', deep]);
    assert.equal(nested.code, 1, nested.stderr);
    assert.doesNotMatch(nested.stderr, /RangeError|at /);
    assert.equal(
      nested.stderr,
      `${deep}:2:80: The config nests arrays and objects more than 64 levels deep here; nothing in a gateway config needs that. Remove the extra nesting.\n` +
        `switchboard gateway: 1 problem in ${deep}; nothing started.\n`,
    );
    const usage = await runCli(['gateway', '--port', 'x', bad]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--port "x" is not a port[\s\S]*switchboard gateway --help/);
  });
});

function readInputless(): string {
  return JSON.stringify({
    inputs: [{ type: 'promptString', id: 'api-key' }],
    servers: { gh: { url: 'https://api.example/mcp', headers: { 'X-Key': '${input:api-key}' } } },
  });
}

/**
 * `switchboard check --config`: a config with stdio and HTTP servers of both eras (the example
 * server, which speaks 2026-07-28 and the legacy revisions, over stdio and HTTP; the official
 * server-everything, legacy only, over stdio), one table, --json/--junit/--html, --history and what
 * changed since the last run, and `switchboard report` drawing the history.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { serveExampleOverHttp } from '../../examples/server.js';
import { runCli } from '../cli/run-cli.js';
import { EXAMPLE } from './helpers.js';

const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const REVISIONS = ['--revision', '2026-07-28', '--revision', '2025-11-25'];

describe('switchboard check --config', () => {
  let http: { url: string; close(): Promise<void> };
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-fleet-check-'));
  const config = join(dir, 'mcp.json');
  const history = join(dir, 'history.jsonl');
  before(async () => {
    http = await serveExampleOverHttp(0);
    writeFileSync(
      config,
      `{
  // stdio and HTTP, both eras
  "mcpServers": {
    "example": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EXAMPLE)}, "--stdio"] },
    "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"] },
    "examplehttp": { "url": "${http.url}" },
  },
}
`,
    );
  });
  after(() => http.close());

  test('every server in one table, with --json, --junit, --html and --history', async () => {
    const out = (name: string) => join(dir, name);
    const run = await runCli([
      'check',
      '--config',
      config,
      '--concurrency',
      '3',
      ...REVISIONS,
      '--json',
      out('fleet.json'),
      '--junit',
      out('fleet.xml'),
      '--html',
      out('fleet.html'),
      '--history',
      history,
    ]);
    assert.ok(run.code === 0 || run.code === 1, run.stdout + run.stderr);
    const [header, ...rows] = run.stdout.trim().split('\n');
    assert.match(
      header!,
      /^server +transport +revisions spoken +score +MUST failures +changes since the last run$/,
    );
    assert.match(
      rows.find((r) => r.startsWith('example '))!,
      /^example +stdio +2026-07-28, 2025-11-25 +\d+ +\d+ +first run$/,
    );
    assert.match(
      rows.find((r) => r.startsWith('examplehttp '))!,
      /^examplehttp +Streamable HTTP +2026-07-28, 2025-11-25 +\d+/,
    );
    // server-everything is a legacy-era server: it does not speak 2026-07-28.
    assert.match(rows.find((r) => r.startsWith('everything '))!, /^everything +stdio +2025-11-25 +\d+/);
    const json = JSON.parse(readFileSync(out('fleet.json'), 'utf8')) as {
      name: string;
      score: number;
      checks: unknown[];
    }[];
    assert.deepEqual(
      json.map((s) => s.name),
      ['example', 'everything', 'examplehttp'],
    );
    for (const s of json) {
      assert.equal(typeof s.score, 'number');
      assert.ok(s.checks.length > 20, s.name);
    }
    const junit = readFileSync(out('fleet.xml'), 'utf8');
    assert.deepEqual(
      [...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1]),
      ['example', 'everything', 'examplehttp'],
    );
    const html = readFileSync(out('fleet.html'), 'utf8');
    assert.match(html, /<td>examplehttp<\/td><td>Streamable HTTP<\/td>/);
    assert.equal(readFileSync(history, 'utf8').trim().split('\n').length, 1);
  });

  test('--server picks; changes since the last run come from the history', async () => {
    // The last run as the history holds it, made to differ: a lower score and a tool fewer.
    const lines = readFileSync(history, 'utf8').trim().split('\n');
    const last = JSON.parse(lines.at(-1)!);
    const example = last.servers.find((s: { name: string }) => s.name === 'example');
    const actualScore = example.score;
    example.score = actualScore === 10 ? 11 : 10;
    const dropped = example.surface.tools.shift();
    writeFileSync(
      history,
      `${lines.join('\n')}\n${JSON.stringify({ ...last, at: new Date().toISOString() })}\n`,
    );
    const run = await runCli([
      'check',
      '--config',
      config,
      '--server',
      'example',
      ...REVISIONS,
      '--history',
      history,
      '--quiet',
    ]);
    assert.ok(run.code === 0 || run.code === 1, run.stdout + run.stderr);
    assert.equal(run.stdout.trim().split('\n').length, 2, run.stdout);
    assert.match(run.stdout, new RegExp(`score ${example.score} → ${actualScore}(;|$)`, 'm'));
    assert.match(run.stdout, new RegExp(`tool ${dropped.name} added`));
    const report = await runCli(['report', history, '--html', join(dir, 'report.html')]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, new RegExp(`example: ${actualScore} → ${example.score} → ${actualScore}`));
    assert.match(report.stdout, /everything: \d+ → \d+ → ·/);
    const page = readFileSync(join(dir, 'report.html'), 'utf8');
    assert.equal((page.match(/<polyline /g) ?? []).length, 3);
    assert.match(page, new RegExp(`tool ${dropped.name} added`));
  });

  test('a config with problems: each named file:line:column, nothing checked', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "mcpServers": { "a b": { "command": "x" }, "c": {} } }');
    const run = await runCli(['check', '--config', bad]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /bad\.json:1:19: The server name "a b" cannot be a namespace/);
    assert.match(run.stderr, /bad\.json:1:\d+: The server "c" has neither "command" nor "url"/);
    const unknown = await runCli(['check', '--config', config, '--server', 'nope']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /has no server "nope"; it has example, everything, examplehttp/);
  });
});

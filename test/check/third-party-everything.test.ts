/**
 * `switchboard check` on `@modelcontextprotocol/server-everything` over stdio (built on the
 * official SDK v1), in 2025-03-26: the revision where its findings are most (docs/check.md reports
 * the full run's, each checked against the spec's text). Its long-running tool takes 10 s: a 5 s
 * timeout leaves that call unanswered (not tested, and its late answer is no stray response).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { checkServer } from 'switchboard/check';
import { findings } from './own-servers.js';

// The package has no main entry: its bin is dist/index.js.
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

test('server-everything over stdio: the findings docs/check.md reports, no more', async () => {
  const report = await checkServer(
    { kind: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
    {
      revisions: ['2025-03-26'],
      timeoutMs: 5_000,
      // Whether the 10 s call is still running when stdin closes (the server then exits only when it
      // ends) depends on the machine's load: stdio.exit-on-eof is left out of this assertion.
      skip: ['stdio.exit-on-eof'],
    },
  );
  assert.deepEqual(
    findings(report).filter((f) => f.endsWith(' failed')),
    ['2025-03-26 schema.server-messages failed'],
    JSON.stringify(
      report.checks.filter((c) => c.status === 'failed'),
      null,
      2,
    ),
  );
  const warned = new Set(
    findings(report)
      .filter((f) => f.endsWith(' warning'))
      .map((f) => f.split(' ')[1]),
  );
  assert.deepEqual([...warned].sort(), [
    'jsonrpc.invalid-request',
    'jsonrpc.parse-error',
    'logging.invalid-level',
    'pagination.invalid-cursor',
    'prompts.get',
    'resources.not-found',
    'schema.revision-fields',
    'tools.unknown-tool',
  ]);
  const schema = report.checks.find((c) => c.id === 'schema.server-messages' && c.status === 'failed');
  assert.match(schema?.message ?? '', /resource_link/);
});

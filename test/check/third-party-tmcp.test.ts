/**
 * `switchboard check` on a third-party server: the benchmark's tmcp fixture (`tmcp` with
 * `@tmcp/transport-http`) over loopback HTTP, every tool called. The findings held here are the
 * ones docs/check.md reports, each checked against the spec's text.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkServer } from 'switchboard/check';
import { findings } from './own-servers.js';

const TMCP = fileURLToPath(new URL('../../bench/fixtures/tmcp-http.js', import.meta.url));

test('tmcp over HTTP: the findings docs/check.md reports, no more', async () => {
  const child = fork(TMCP, [], { stdio: 'ignore' });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.on('message', (m: { type?: string; url?: string }) => m.type === 'listening' && resolve(m.url!));
      child.on('exit', (code) => reject(new Error(`the tmcp fixture exited with ${code}`)));
    });
    // GET on the 2026-07-28 endpoint is never answered: a short timeout keeps the test quick.
    const report = await checkServer({ kind: 'http', url }, { callTools: true, timeoutMs: 3_000 });
    assert.deepEqual(
      report.revisions.filter((r) => !r.supported).map((r) => r.revision),
      ['2025-11-25'],
      'tmcp answers initialize for 2025-11-25 with 2025-06-18',
    );
    const failed = findings(report).filter((f) => f.endsWith(' failed'));
    assert.deepEqual(failed, [
      '2026-07-28 schema.server-messages failed',
      '2026-07-28 security.origin failed',
      '2025-06-18 schema.server-messages failed',
      '2025-06-18 http.unknown-session failed',
      '2025-06-18 http.delete-session failed',
      '2025-06-18 security.origin failed',
      '2025-03-26 schema.server-messages failed',
      '2025-03-26 http.unknown-session failed',
      '2025-03-26 http.delete-session failed',
    ]);
    const warned = new Set(
      findings(report)
        .filter((f) => f.endsWith(' warning'))
        .map((f) => f.split(' ')[1]),
    );
    assert.deepEqual([...warned].sort(), [
      'capabilities.undeclared-refused',
      'http.missing-session',
      'pagination.invalid-cursor',
      'resources.not-found',
      'schema.revision-fields',
      'security.body-limit',
      'security.host',
      'tools.unknown-tool',
    ]);
  } finally {
    child.kill();
  }
});

/**
 * `switchboard check` on the official SDK v2 server over stdio (the example's content served by
 * `@modelcontextprotocol/server`): the findings docs/check.md
 * reports, each one the spec's text backs, and nothing more serious.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type CheckReport, checkServer } from 'switchboard/check';

const fixture = (name: string) => ({
  kind: 'stdio' as const,
  command: process.execPath,
  args: [fileURLToPath(new URL(`../fixtures/${name}.js`, import.meta.url))],
});
const failures = (report: CheckReport) =>
  report.checks.filter((c) => c.status === 'failed').map((c) => `${c.revision} ${c.id}`);
const warned = (report: CheckReport) =>
  new Set(report.checks.filter((c) => c.status === 'warning').map((c) => c.id));

describe('switchboard check on the official SDK v2 server over stdio', () => {
  test('v2: every revision; an unsupported version is served on 2026-07-28', async () => {
    const report = await checkServer(fixture('official-v2-server'));
    assert.equal(report.revisions.filter((r) => r.supported).length, 5);
    assert.deepEqual(failures(report), ['2026-07-28 lifecycle.unsupported-version']);
    for (const id of ['jsonrpc.parse-error', 'resources.not-found', 'pagination.invalid-cursor']) {
      assert.ok(warned(report).has(id), id);
    }
  });
});

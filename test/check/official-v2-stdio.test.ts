/**
 * `switchboard check` on the official SDK v2 server over stdio (the example's content served by
 * `@modelcontextprotocol/server`): the findings docs/check.md
 * reports, each one the spec's text backs, and nothing more serious.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkServer } from 'switchboard/check';
import { failures, stdioFixture as fixture, warned } from './own-servers.js';

describe('switchboard check on the official SDK v2 server over stdio', () => {
  test('v2: every revision; an unsupported version is served on 2026-07-28', async () => {
    const report = await checkServer(fixture('official-v2-server'));
    assert.equal(report.revisions.filter((r) => r.supported).length, 5);
    // 2025-03-26 requires batches to be served; the SDK v2 server refuses them over stdio.
    assert.deepEqual(failures(report), [
      '2026-07-28 lifecycle.unsupported-version',
      '2025-03-26 jsonrpc.batch',
    ]);
    for (const id of ['jsonrpc.parse-error', 'resources.not-found', 'pagination.invalid-cursor']) {
      assert.ok(warned(report).has(id), id);
    }
  });
});

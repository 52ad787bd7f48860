/**
 * `switchboard check` on the official SDK v1 server over stdio (the example's content served by
 * `@modelcontextprotocol/sdk`): the findings docs/check.md
 * reports, each one the spec's text backs, and nothing more serious.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkServer } from 'switchboard/check';
import { failures, stdioFixture as fixture, warned } from './own-servers.js';

describe('switchboard check on the official SDK v1 server over stdio', () => {
  test('v1: the four legacy revisions, no MUST failure, the documented warnings', async () => {
    const report = await checkServer(fixture('official-v1-server'));
    assert.deepEqual(
      report.revisions.filter((r) => r.supported).map((r) => r.revision),
      ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
    );
    // 2025-03-26 requires batches to be served; SDK v1 answers none over stdio.
    assert.deepEqual(failures(report), ['2025-03-26 jsonrpc.batch']);
    for (const id of [
      'jsonrpc.parse-error',
      'jsonrpc.invalid-request',
      'resources.not-found',
      'pagination.invalid-cursor',
      'schema.revision-fields',
    ]) {
      assert.ok(warned(report).has(id), id);
    }
    // An unknown tool answered with isError: advice (the spec words no keyword for it), no warning.
    assert.ok(report.checks.some((c) => c.id === 'tools.unknown-tool' && c.status === 'advice'));
  });
});

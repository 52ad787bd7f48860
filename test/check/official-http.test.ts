/**
 * `switchboard check` on the official SDK servers over loopback HTTP (test/fixtures/http-official.ts:
 * v1 Streamable HTTP with sessions, v2 both eras): the findings docs/check.md reports.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkServer } from 'switchboard/check';
import { startV1Streamable, startV2 } from '../fixtures/http-official.js';
import { failures } from './own-servers.js';

describe('switchboard check on the official SDK servers over HTTP', () => {
  test('v1: a foreign Origin is served (no Origin check by default); sessions keep the rules', async () => {
    const server = await startV1Streamable();
    try {
      const report = await checkServer({ kind: 'http', url: server.url });
      assert.deepEqual(failures(report), [
        '2025-11-25 security.origin',
        '2025-06-18 security.origin',
        '2025-03-26 security.origin',
      ]);
      const passed = (id: string) => report.checks.some((c) => c.id === id && c.status === 'passed');
      for (const id of ['http.unknown-session', 'http.missing-session', 'http.notification-202']) {
        assert.ok(passed(id), id);
      }
    } finally {
      await server.close();
    }
  });

  test('v2: a foreign Origin is served; the 2026-07-28 status table is kept', async () => {
    const server = await startV2();
    try {
      const report = await checkServer({ kind: 'http', url: server.url });
      assert.deepEqual(failures(report), [
        '2026-07-28 security.origin',
        '2025-11-25 security.origin',
        '2025-06-18 security.origin',
        '2025-03-26 security.origin',
      ]);
    } finally {
      await server.close();
    }
  });
});

/**
 * `switchboard check` flags HTTP-level bugs, each with its requirement: a correct Switchboard
 * server behind a rewrite that breaks one rule of the Streamable HTTP transport (legacy sessions,
 * the 2026-07-28 status table, the Origin check), over real loopback HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Revision } from 'switchboard';
import { checkServer, requirement } from 'switchboard/check';
import { HTTP_BUGS, type HttpBug, startBrokenHttp } from '../fixtures/check-http-server.js';

const EXPECTED: Record<HttpBug, readonly [string, Revision]> = {
  'origin-unchecked': ['security.origin', '2025-11-25'],
  'notification-200': ['http.notification-202', '2025-11-25'],
  'unknown-session-400': ['http.unknown-session', '2025-06-18'],
  'missing-session-ok': ['http.missing-session', '2025-11-25'],
  'unknown-method-400': ['http.unknown-method-404', '2026-07-28'],
  'unsupported-version-200': ['http.unsupported-version-400', '2026-07-28'],
  'header-mismatch-unchecked': ['http.header-mismatch', '2026-07-28'],
  'get-200': ['http.get-405', '2026-07-28'],
};

test('switchboard check flags every seeded HTTP bug with its requirement', async () => {
  const missed: string[] = [];
  for (const bug of HTTP_BUGS) {
    const [id, revision] = EXPECTED[bug];
    const server = await startBrokenHttp(bug);
    try {
      const report = await checkServer(
        { kind: 'http', url: server.url },
        { revisions: [revision], timeoutMs: 5_000 },
      );
      const entry = report.checks.find((c) => c.id === id && c.revision === revision);
      const wanted = requirement(id).level === 'MUST' ? 'failed' : 'warning';
      if (entry?.status !== wanted || !entry.evidence?.length) {
        missed.push(`${bug}: ${id} in ${revision} is ${entry?.status} (${entry?.message}), not ${wanted}`);
      }
    } finally {
      await server.close();
    }
  }
  assert.deepEqual(missed, []);
});

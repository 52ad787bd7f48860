/**
 * Authorization discovery: `switchboard check` on a protected Switchboard server (given the token)
 * passes the discovery rules in every revision that has them, and flags each seeded discovery bug
 * with its requirement, over real loopback HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Revision } from 'switchboard';
import { checkServer } from 'switchboard/check';
import { AUTH_BUGS, type AuthBug, startProtected } from '../fixtures/check-auth-server.js';
import { assertChecked } from './own-servers.js';

const EXPECTED: Record<AuthBug, readonly [string, Revision]> = {
  'no-challenge': ['authorization.challenge', '2025-11-25'],
  'no-metadata-location': ['authorization.metadata-location', '2026-07-28'],
  'metadata-without-servers': ['authorization.metadata', '2025-06-18'],
};

test('a protected server checked with its token: clean, the discovery rules passed', async () => {
  const server = await startProtected();
  try {
    const report = await checkServer({ kind: 'http', url: server.url, headers: server.headers });
    assertChecked(report);
    const discovery = report.checks.filter((c) => c.area === 'authorization');
    // Three rules in each of the three revisions that have Protected Resource Metadata.
    assert.equal(discovery.length, 9);
    assert.deepEqual(
      discovery.filter((c) => c.status !== 'passed').map((c) => `${c.revision} ${c.id} ${c.status}`),
      [],
    );
  } finally {
    await server.close();
  }
});

test('switchboard check flags every seeded authorization-discovery bug with its requirement', async () => {
  const missed: string[] = [];
  for (const bug of AUTH_BUGS) {
    const [id, revision] = EXPECTED[bug];
    const server = await startProtected(bug);
    try {
      const report = await checkServer(
        { kind: 'http', url: server.url, headers: server.headers },
        { revisions: [revision], timeoutMs: 5_000 },
      );
      const entry = report.checks.find((c) => c.id === id && c.revision === revision);
      if (entry?.status !== 'failed' || !entry.evidence?.length) {
        missed.push(`${bug}: ${id} in ${revision} is ${entry?.status} (${entry?.message}), not failed`);
      }
    } finally {
      await server.close();
    }
  }
  assert.deepEqual(missed, []);
});

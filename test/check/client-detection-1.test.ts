/** `switchboard check --client` scores the hand-written client clean, and flags the first part of its seeded bugs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkClient } from 'switchboard/check';
import { missedClientBugs, PARTS, rawClient } from './client-detection.js';
import { failures } from './own-servers.js';

test('the hand-written client scores 100 in every revision it speaks, with no failure', async () => {
  const report = await checkClient(rawClient());
  assert.deepEqual(failures(report), []);
  assert.equal(report.summary.score, 100);
  assert.deepEqual(
    report.revisions.filter((r) => r.supported).map((r) => r.revision),
    ['2026-07-28', '2025-11-25', '2025-03-26'],
  );
  // Every client rule was exercised in some revision: none is left untested everywhere.
  const passed = new Set(report.checks.filter((c) => c.status === 'passed').map((c) => c.id));
  const untested = report.checks.filter((c) => c.status === 'not-tested' && !passed.has(c.id));
  assert.deepEqual(untested, []);
});

test('switchboard check --client flags each seeded bug (first part) with its rule', async () => {
  assert.deepEqual(await missedClientBugs(PARTS[0]), []);
});

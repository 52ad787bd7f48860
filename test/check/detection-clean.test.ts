/**
 * `switchboard check` on the hand-written server with no bug seeded: clean in every revision. And the
 * seeded bugs (detection-*.test.ts) break at least 40 distinct rules of the catalogue.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkServer, REQUIREMENTS } from 'switchboard/check';
import { EXPECTED, target } from './detection.js';

describe('switchboard check on a correct hand-written server', () => {
  test('it scores 100 in every revision, with no failure and no warning', async () => {
    const report = await checkServer(target());
    assert.deepEqual(
      report.revisions.map((r) => [r.revision, r.supported]),
      [
        ['2026-07-28', true],
        ['2025-11-25', true],
        ['2025-06-18', true],
        ['2025-03-26', true],
        ['2024-11-05', true],
      ],
    );
    const problems = report.checks.filter((c) => c.status === 'failed' || c.status === 'warning');
    assert.deepEqual(problems, []);
    assert.equal(report.summary.score, 100);
    assert.ok(report.summary.passed > 150, `only ${report.summary.passed} checks passed`);
  });

  test('the seeded bugs break at least 40 distinct rules, each in the catalogue', () => {
    const rules = new Set(Object.values(EXPECTED).map(([id]) => id));
    assert.ok(rules.size >= 40, `the broken servers break only ${rules.size} distinct rules`);
    for (const id of rules)
      assert.ok(
        REQUIREMENTS.some((r) => r.id === id),
        id,
      );
  });
});

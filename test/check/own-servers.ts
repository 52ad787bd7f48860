/**
 * For the tests that show `switchboard check` runs clean on correct servers (own-*.test.ts): the
 * findings a report has, the assertion that a report is clean but for the findings listed, and a
 * server served over loopback HTTP for the length of a check.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createHttpHandler, type Server } from 'switchboard';
import type { CheckReport, CheckTarget } from 'switchboard/check';
import { serve } from 'switchboard/node';

export const built = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Findings the conformance fixture earns on purpose: its prompt that asks the client for input
 * (elicitation, 2025-06-18 on) is listed in every revision, and cannot be served in the two that
 * have no elicitation. A listed prompt that cannot be got is what prompts.get warns about.
 */
export const CONFORMANCE_EXPECTED = ['2025-03-26 prompts.get warning', '2024-11-05 prompts.get warning'];

export function findings(report: CheckReport): string[] {
  return report.checks
    .filter((c) => c.status === 'failed' || c.status === 'warning')
    .map((c) => `${c.revision} ${c.id} ${c.status}`);
}

export function assertChecked(report: CheckReport, expected: readonly string[] = []): void {
  assert.deepEqual(
    report.revisions.filter((r) => !r.supported).map((r) => r.revision),
    [],
    'every revision is spoken',
  );
  assert.deepEqual(
    findings(report),
    expected,
    JSON.stringify(
      report.checks.filter((c) => c.evidence),
      null,
      2,
    ),
  );
  assert.equal(report.summary.failed, 0);
}

export async function overHttp(server: Server, check: (target: CheckTarget) => Promise<void>): Promise<void> {
  const running = await serve(createHttpHandler(server), { port: 0, host: '127.0.0.1' });
  try {
    await check({ kind: 'http', url: running.url });
  } finally {
    await running.close();
  }
}

/**
 * For the tests that check real servers and clients (own-*, official-*, client-*): a report's
 * failures, warnings and findings, a fixture server spawned over stdio, the assertion that a report is clean but for the findings listed, and a
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
 * have no elicitation. A listed prompt that cannot be got is advice (prompts.get is a hardening
 * rule), never a warning: the fixture is expected to have no finding.
 */
export const CONFORMANCE_EXPECTED: readonly string[] = [];

/** A built test fixture (test/fixtures/NAME.js) as a stdio target. */
export const stdioFixture = (name: string) => ({
  kind: 'stdio' as const,
  command: process.execPath,
  args: [built(`../fixtures/${name}.js`)],
});

/** The failed checks of a report, as `<revision> <id>`. */
export const failures = (report: CheckReport) =>
  report.checks.filter((c) => c.status === 'failed').map((c) => `${c.revision} ${c.id}`);

/** The ids of the checks a report warns about. */
export const warned = (report: CheckReport) =>
  new Set(report.checks.filter((c) => c.status === 'warning').map((c) => c.id));

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

/**
 * `switchboard check` runs clean on correct servers: Switchboard's example server and conformance
 * fixture, over stdio and loopback HTTP, in every revision. The only findings allowed are listed
 * here, each with the reason the spec's text justifies it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createHttpHandler, type Server } from 'switchboard';
import { type CheckReport, type CheckTarget, checkServer } from 'switchboard/check';
import { serve } from 'switchboard/node';
import { createConformanceServer } from '../../conformance/fixture/index.js';
import { createExampleServer } from '../../examples/server.js';

const built = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Findings the conformance fixture earns on purpose: its prompt that asks the client for input
 * (elicitation, 2025-06-18 on) is listed in every revision, and cannot be served in the two that
 * have no elicitation. A listed prompt that cannot be got is what prompts.get warns about.
 */
const CONFORMANCE_EXPECTED = ['2025-03-26 prompts.get warning', '2024-11-05 prompts.get warning'];

function findings(report: CheckReport): string[] {
  return report.checks
    .filter((c) => c.status === 'failed' || c.status === 'warning')
    .map((c) => `${c.revision} ${c.id} ${c.status}`);
}

function assertChecked(report: CheckReport, expected: readonly string[] = []): void {
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

async function overHttp(server: Server, check: (target: CheckTarget) => Promise<void>): Promise<void> {
  const running = await serve(createHttpHandler(server), { port: 0, host: '127.0.0.1' });
  try {
    await check({ kind: 'http', url: running.url });
  } finally {
    await running.close();
  }
}

describe('switchboard check on Switchboard servers', () => {
  test('the example server over stdio: clean in every revision', async () => {
    const report = await checkServer({
      kind: 'stdio',
      command: process.execPath,
      args: [built('../../examples/server.js'), '--stdio'],
    });
    assertChecked(report);
    assert.equal(report.summary.score, 100);
  });

  test('the example server over HTTP: clean in every revision, the HTTP rules included', async () => {
    await overHttp(createExampleServer(), async (target) => {
      const report = await checkServer(target);
      assertChecked(report);
      const http = report.checks.filter((c) => c.area === 'http' || c.area === 'security');
      assert.ok(
        http.filter((c) => c.status === 'passed').length >= 15,
        `HTTP rules passed: ${http.map((c) => `${c.revision} ${c.id} ${c.status}`).join(', ')}`,
      );
    });
  });

  test('the conformance fixture over stdio and HTTP: no failure, only the warnings it earns', async () => {
    const stdio = await checkServer({
      kind: 'stdio',
      command: process.execPath,
      args: [built('../../conformance/server.js'), '--stdio'],
    });
    assertChecked(stdio, CONFORMANCE_EXPECTED);
    await overHttp(createConformanceServer(), async (target) => {
      assertChecked(await checkServer(target), CONFORMANCE_EXPECTED);
    });
  });
});

/**
 * Client mode on a real client (test/fixtures/check-clients.ts switchboard): connecting, listing the
 * tools page by page and calling each. The findings here are the ones docs/check.md reports, each
 * checked against the spec's text. One file per client, so each stays quick on a loaded machine.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkClient } from 'switchboard/check';
import { realClient, spoken } from './client-detection.js';
import { failures } from './own-servers.js';

test("Switchboard's client: both eras, every rule its traffic reaches kept", async () => {
  const report = await checkClient(realClient('switchboard'));
  assert.deepEqual(failures(report), []);
  assert.deepEqual(spoken(report), ['2026-07-28', '2025-11-25', '2025-03-26']);
  assert.equal(report.summary.score, 100);
});

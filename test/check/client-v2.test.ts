/**
 * Client mode on a real client (test/fixtures/check-clients.ts v2): connecting, listing the
 * tools page by page and calling each. The findings here are the ones docs/check.md reports, each
 * checked against the spec's text. One file per client, so each stays quick on a loaded machine.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkClient } from 'switchboard/check';
import { realClient, spoken } from './client-detection.js';
import { failures } from './own-servers.js';

test('official SDK v2 client: both eras; it does not start a new session after a 404', async () => {
  const report = await checkClient(realClient('v2'));
  assert.deepEqual(failures(report), ['2025-11-25 client.reinitialize-on-404']);
  assert.deepEqual(spoken(report), ['2026-07-28', '2025-11-25', '2025-03-26']);
});

/**
 * Client mode on real clients: Switchboard's client, and the official SDK v1 and v2 clients, each
 * connecting, listing the tools page by page and calling each (test/fixtures/check-clients.ts).
 * The findings here are the ones docs/check.md reports, each checked against the spec's text.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkClient } from 'switchboard/check';
import { failures } from './client-detection.js';

const CLIENTS = fileURLToPath(new URL('../fixtures/check-clients.js', import.meta.url));
const client = (kind: string) => ({ command: process.execPath, args: [CLIENTS, kind] });
const spoken = (report: Awaited<ReturnType<typeof checkClient>>) =>
  report.revisions.filter((r) => r.supported).map((r) => r.revision);

describe('switchboard check --client on real clients', () => {
  test("Switchboard's client: both eras, every rule its traffic reaches kept", async () => {
    const report = await checkClient(client('switchboard'));
    assert.deepEqual(failures(report), []);
    assert.deepEqual(spoken(report), ['2026-07-28', '2025-11-25', '2025-03-26']);
    assert.equal(report.summary.score, 100);
  });
  test('official SDK v1 client: legacy only; it does not start a new session after a 404', async () => {
    const report = await checkClient(client('v1'));
    assert.deepEqual(failures(report), ['2025-11-25 client.reinitialize-on-404']);
    assert.deepEqual(spoken(report), ['2025-11-25', '2025-03-26']);
  });
  test('official SDK v2 client: both eras; it does not start a new session after a 404', async () => {
    const report = await checkClient(client('v2'));
    assert.deepEqual(failures(report), ['2025-11-25 client.reinitialize-on-404']);
    assert.deepEqual(spoken(report), ['2026-07-28', '2025-11-25', '2025-03-26']);
  });
});

/**
 * The client-mode detection tests (client-detection-*.test.ts): a hand-written client
 * (test/fixtures/check-client-raw.ts) scores clean, and each client bug seeded into it is flagged
 * with the rule it breaks. Split in three files so each stays well inside the per-file time limit.
 */
import { fileURLToPath } from 'node:url';
import type { Revision } from 'switchboard';
import { type CheckReport, checkClient, type ScenarioName } from 'switchboard/check';
import { CLIENT_BUGS, type ClientBug } from '../fixtures/check-client-bugs.js';

const CLIENT = fileURLToPath(new URL('../fixtures/check-client-raw.js', import.meta.url));
export const rawClient = (bug?: ClientBug) => ({
  command: process.execPath,
  args: bug ? [CLIENT, bug] : [CLIENT],
});

/**
 * Each seeded bug: the rule that must flag it, a revision it is flagged in, and the scenario that
 * shows it (only that one runs: the clean run covers them all). A SHOULD broken is a warning.
 */
export const EXPECTED: Record<ClientBug, readonly [string, Revision, ScenarioName]> = {
  'bad-jsonrpc': ['client.messages-valid', '2025-11-25', 'legacy'],
  'initialize-late': ['client.initialize-first', '2025-11-25', 'legacy'],
  'no-initialized': ['client.initialized', '2025-11-25', 'legacy'],
  'stay-on-newer': ['client.version-fallback', '2025-03-26', 'older-version'],
  'no-fallback': ['client.legacy-fallback', '2026-07-28', 'legacy'],
  'no-envelope': ['client.envelope', '2026-07-28', 'modern'],
  'no-version-header': ['client.protocol-version-header', '2026-07-28', 'modern'],
  'wrong-method-header': ['client.method-header', '2026-07-28', 'modern'],
  'json-only-accept': ['client.accept', '2026-07-28', 'modern'],
  'drop-session': ['client.session-id', '2025-11-25', 'legacy'],
  'no-reinit': ['client.reinitialize-on-404', '2025-11-25', 'expired-session'],
  'forge-cursor': ['client.cursor-opaque', '2025-11-25', 'legacy'],
  'bad-elicitation': ['client.elicitation', '2026-07-28', 'modern'],
  'bad-sampling': ['client.sampling', '2025-11-25', 'legacy'],
  'relative-root': ['client.roots', '2025-11-25', 'legacy'],
  'drop-request-state': ['client.input-required', '2026-07-28', 'modern'],
  'ping-error': ['client.ping', '2025-11-25', 'stdio-legacy'],
  'no-cancel': ['client.cancel-stdio', '2026-07-28', 'stdio-modern'],
  'cancel-unknown': ['client.cancel-valid', '2025-11-25', 'legacy'],
  'no-resume': ['client.sse-resume', '2025-11-25', 'resumable'],
  'early-retry': ['client.sse-retry', '2025-11-25', 'resumable'],
};

const CLIENTS = fileURLToPath(new URL('../fixtures/check-clients.js', import.meta.url));
/** A real client (Switchboard's, or the official SDK v1 or v2) as test/fixtures/check-clients.ts runs it. */
export const realClient = (kind: 'switchboard' | 'v1' | 'v2') => ({
  command: process.execPath,
  args: [CLIENTS, kind],
});

/** The revisions a client spoke with the scripted servers. */
export const spoken = (report: CheckReport) =>
  report.revisions.filter((r) => r.supported).map((r) => r.revision);

/** The bugs of `bugs` that were not flagged with their rule, with what was flagged instead. */
export async function missedClientBugs(bugs: readonly ClientBug[]): Promise<string[]> {
  const missed: string[] = [];
  for (const bug of bugs) {
    const [id, revision, scenario] = EXPECTED[bug];
    const report = await checkClient(rawClient(bug), { timeoutMs: 20_000, scenarios: [scenario] });
    const found = report.checks
      .filter((c) => c.status === 'failed' || c.status === 'warning')
      .map((c) => `${c.revision} ${c.id}`);
    if (!found.includes(`${revision} ${id}`))
      missed.push(`${bug}: expected ${revision} ${id}, got ${found.join(', ') || 'nothing'}`);
  }
  return missed;
}

/** The bugs in three parts, one per test file. */
export const PARTS = [CLIENT_BUGS.slice(0, 7), CLIENT_BUGS.slice(7, 14), CLIENT_BUGS.slice(14)] as const;

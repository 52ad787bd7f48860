/**
 * The client-mode detection tests (client-detection-*.test.ts): a hand-written client
 * (test/fixtures/check-client-raw.ts) scores clean, and each client bug seeded into it is flagged
 * with the rule it breaks. Split in three files so each stays well inside the per-file time limit.
 */
import { fileURLToPath } from 'node:url';
import type { Revision } from 'switchboard';
import { type CheckReport, checkClient } from 'switchboard/check';
import { CLIENT_BUGS, type ClientBug } from '../fixtures/check-client-bugs.js';

const CLIENT = fileURLToPath(new URL('../fixtures/check-client-raw.js', import.meta.url));
export const rawClient = (bug?: ClientBug) => ({
  command: process.execPath,
  args: bug ? [CLIENT, bug] : [CLIENT],
});

/** Each seeded bug: the rule that must flag it, and a revision it is flagged in. */
export const EXPECTED: Record<ClientBug, readonly [string, Revision]> = {
  'bad-jsonrpc': ['client.messages-valid', '2025-11-25'],
  'initialize-late': ['client.initialize-first', '2025-11-25'],
  'no-initialized': ['client.initialized', '2025-11-25'],
  'stay-on-newer': ['client.version-fallback', '2025-03-26'],
  'no-fallback': ['client.legacy-fallback', '2026-07-28'],
  'no-envelope': ['client.envelope', '2026-07-28'],
  'no-version-header': ['client.protocol-version-header', '2026-07-28'],
  'wrong-method-header': ['client.method-header', '2026-07-28'],
  'json-only-accept': ['client.accept', '2026-07-28'],
  'drop-session': ['client.session-id', '2025-11-25'],
  'no-reinit': ['client.reinitialize-on-404', '2025-11-25'],
  'forge-cursor': ['client.cursor-opaque', '2025-11-25'],
  'bad-elicitation': ['client.elicitation', '2026-07-28'],
  'bad-sampling': ['client.sampling', '2025-11-25'],
  'relative-root': ['client.roots', '2025-11-25'],
  'drop-request-state': ['client.input-required', '2026-07-28'],
};

export const failures = (report: CheckReport) =>
  report.checks.filter((c) => c.status === 'failed').map((c) => `${c.revision} ${c.id}`);

/** The bugs of `bugs` that were not flagged with their rule, with what was flagged instead. */
export async function missedClientBugs(bugs: readonly ClientBug[]): Promise<string[]> {
  const missed: string[] = [];
  for (const bug of bugs) {
    const [id, revision] = EXPECTED[bug];
    const report = await checkClient(rawClient(bug), { timeoutMs: 20_000 });
    const found = failures(report);
    if (!found.includes(`${revision} ${id}`))
      missed.push(`${bug}: expected ${revision} ${id}, got ${found.join(', ') || 'nothing'}`);
  }
  return missed;
}

/** The bugs in three parts, one per test file. */
export const PARTS = [CLIENT_BUGS.slice(0, 5), CLIENT_BUGS.slice(5, 11), CLIENT_BUGS.slice(11)] as const;

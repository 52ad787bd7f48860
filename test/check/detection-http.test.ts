/**
 * `switchboard check` flags HTTP-level bugs, each with its requirement: a correct Switchboard
 * server behind a rewrite that breaks one rule of the Streamable HTTP transport (legacy sessions,
 * the 2026-07-28 status table, the Origin check), over real loopback HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Revision } from 'switchboard';
import { brokenStatus, checkServer, levelIn, requirement } from 'switchboard/check';
import { HTTP_BUGS, type HttpBug, startBrokenHttp } from '../fixtures/check-http-server.js';

const EXPECTED: Record<HttpBug, readonly [string, Revision]> = {
  'origin-unchecked': ['security.origin', '2025-11-25'],
  'notification-200': ['http.notification-202', '2025-11-25'],
  'unknown-session-400': ['http.unknown-session', '2025-06-18'],
  'missing-session-404': ['http.missing-session', '2025-11-25'],
  'unknown-method-400': ['http.unknown-method-404', '2026-07-28'],
  'unsupported-version-200': ['http.unsupported-version-400', '2026-07-28'],
  'header-mismatch-unchecked': ['http.header-mismatch', '2026-07-28'],
  'get-200': ['http.get-405', '2026-07-28'],
  'delete-405-missing': ['http.delete-405', '2026-07-28'],
  'delete-keeps-session': ['http.delete-session', '2025-06-18'],
  'get-stream-json': ['http.get-stream', '2025-03-26'],
  'host-unchecked': ['security.host', '2025-11-25'],
  'sequential-session-ids': ['http.session-id-entropy', '2025-11-25'],
  'no-body-limit': ['security.body-limit', '2026-07-28'],
  'sse-stray-line': ['http.sse-framing', '2025-11-25'],
  'event-ids-repeated': ['http.event-ids-unique', '2025-11-25'],
  'resume-ignored': ['http.resume', '2025-06-18'],
  'resume-foreign': ['http.resume-same-stream', '2025-11-25'],
  'sse-endpoint-not-first': ['http.sse-endpoint-event', '2024-11-05'],
  'protocol-version-unchecked': ['http.protocol-version-400', '2025-06-18'],
  'batch-refused': ['jsonrpc.batch', '2025-03-26'],
};

/** Bugs whose rule applies in more revisions than EXPECTED names: each must be flagged there too. */
const ALSO: readonly (readonly [HttpBug, string, Revision])[] = [
  ['origin-unchecked', 'security.origin', '2025-03-26'],
  ['protocol-version-unchecked', 'http.protocol-version-400', '2025-11-25'],
];

/** The bugs of the HTTP+SSE transport are seen at its endpoint, /sse. */
const urlFor = (bug: HttpBug, url: string) =>
  bug.startsWith('sse-endpoint') ? url.replace(/\/mcp$/, '/sse') : url;

/** The bugs whose rule `bug` must flag; in two halves, each a test well inside the per-test time limit. */
async function missedHttpBugs(bugs: readonly HttpBug[]): Promise<string[]> {
  const missed: string[] = [];
  for (const bug of bugs) {
    const [id, revision] = EXPECTED[bug];
    const server = await startBrokenHttp(bug);
    try {
      const report = await checkServer(
        { kind: 'http', url: urlFor(bug, server.url) },
        { revisions: [revision], timeoutMs: 5_000 },
      );
      const entry = report.checks.find((c) => c.id === id && c.revision === revision);
      const wanted = brokenStatus(levelIn(requirement(id), revision));
      if (entry?.status !== wanted || !entry.evidence?.length) {
        missed.push(`${bug}: ${id} in ${revision} is ${entry?.status} (${entry?.message}), not ${wanted}`);
      }
    } finally {
      await server.close();
    }
  }
  return missed;
}

const HALF = Math.ceil(HTTP_BUGS.length / 2);
test('switchboard check flags every seeded HTTP bug with its requirement (first half)', async () => {
  assert.deepEqual(await missedHttpBugs(HTTP_BUGS.slice(0, HALF)), []);
});
test('switchboard check flags every seeded HTTP bug with its requirement (second half)', async () => {
  assert.deepEqual(await missedHttpBugs(HTTP_BUGS.slice(HALF)), []);
});

test('the bugs of rules of several revisions are flagged in each (Origin at 2025-03-26 too)', async () => {
  const missed: string[] = [];
  for (const [bug, id, revision] of ALSO) {
    const server = await startBrokenHttp(bug);
    try {
      const report = await checkServer(
        { kind: 'http', url: server.url },
        { revisions: [revision], timeoutMs: 5_000, only: ['http', 'security'] },
      );
      const entry = report.checks.find((c) => c.id === id && c.revision === revision);
      if (entry?.status !== 'failed') missed.push(`${bug}: ${id} in ${revision} is ${entry?.status}`);
    } finally {
      await server.close();
    }
  }
  assert.deepEqual(missed, []);
});

test('a server that speaks only 2026-07-28 refuses GET and DELETE with 405: passed, not flagged', async () => {
  const server = await startBrokenHttp('modern-only');
  try {
    const report = await checkServer({ kind: 'http', url: server.url }, { timeoutMs: 5_000 });
    const status = (id: string) =>
      report.checks.find((c) => c.id === id && c.revision === '2026-07-28')?.status;
    assert.deepEqual([status('http.get-405'), status('http.delete-405')], ['passed', 'passed']);
    assert.equal(report.summary.failed, 0);
  } finally {
    await server.close();
  }
});

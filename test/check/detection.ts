/**
 * The detection tests (test/check/detection-*.test.ts): a hand-written server
 * (test/fixtures/check-server.ts) scores clean, and each protocol bug seeded into it is flagged with
 * the requirement it breaks, in the revision where that rule applies. Over real stdio pipes. Split
 * by area into several files so each stays well inside the per-file time limit on a loaded machine.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { Revision } from 'switchboard';
import { type Area, brokenStatus, checkServer, levelIn, requirement } from 'switchboard/check';
import { BUGS, type Bug } from '../fixtures/check-server-bugs.js';

const SERVER = fileURLToPath(new URL('../fixtures/check-server.js', import.meta.url));
export const target = (bug?: Bug) => ({
  kind: 'stdio' as const,
  command: process.execPath,
  args: bug ? [SERVER, bug] : [SERVER],
});

/** Each seeded bug: the requirement that must flag it, and the revision it is checked in. */
export const EXPECTED: Record<Bug, readonly [string, Revision]> = {
  'jsonrpc-version': ['jsonrpc.version', '2025-11-25'],
  'wrong-id': ['jsonrpc.response-id', '2025-11-25'],
  'result-and-error': ['jsonrpc.result-or-error', '2025-11-25'],
  'string-error-code': ['jsonrpc.error-code', '2025-11-25'],
  'unknown-method-ok': ['jsonrpc.unknown-method', '2025-11-25'],
  'reply-to-notification': ['jsonrpc.notification-no-reply', '2025-06-18'],
  'no-parse-error': ['jsonrpc.parse-error', '2025-11-25'],
  'no-invalid-request': ['jsonrpc.invalid-request', '2025-11-25'],
  'no-server-info': ['lifecycle.initialize', '2025-11-25'],
  'ping-not-empty': ['ping.empty-result', '2025-03-26'],
  'ping-null': ['ping.empty-result', '2025-11-25'],
  'tool-schema-not-object': ['tools.input-schema-object', '2026-07-28'],
  'tool-bad-name': ['tools.name-format', '2025-11-25'],
  'tool-duplicate': ['tools.name-unique', '2025-11-25'],
  'no-input-validation': ['tools.invalid-arguments', '2025-06-18'],
  'valid-arguments-refused': ['tools.valid-arguments', '2026-07-28'],
  'bad-structured-content': ['tools.output-schema', '2025-06-18'],
  'no-structured-content': ['tools.output-schema', '2026-07-28'],
  'unknown-tool-ok': ['tools.unknown-tool', '2025-11-25'],
  'bad-template': ['resources.template-syntax', '2025-11-25'],
  'listed-resource-unreadable': ['resources.read-listed', '2024-11-05'],
  'missing-resource-empty': ['resources.not-found-modern', '2026-07-28'],
  'prompt-arguments-unchecked': ['prompts.missing-arguments', '2025-11-25'],
  'prompt-fails': ['prompts.get', '2025-03-26'],
  'unknown-prompt-ok': ['prompts.unknown-prompt', '2026-07-28'],
  'too-many-completions': ['completion.values', '2025-06-18'],
  'cursor-loop': ['pagination.walk', '2025-11-25'],
  'cursor-ignored': ['pagination.invalid-cursor', '2026-07-28'],
  'set-level-fails': ['logging.set-level', '2025-11-25'],
  'bad-level-accepted': ['logging.invalid-level', '2024-11-05'],
  'no-result-type': ['envelope.result-type', '2026-07-28'],
  'no-cache-fields': ['caching.fields', '2026-07-28'],
  'mixed-cache-scope': ['caching.same-scope', '2026-07-28'],
  'no-server-info-meta': ['envelope.server-info', '2026-07-28'],
  'stdout-noise': ['stdio.messages-only', '2025-11-25'],
  'undeclared-served': ['capabilities.undeclared-refused', '2025-11-25'],
  'declared-missing': ['capabilities.declared-implemented', '2025-06-18'],
  'sampling-request': ['capabilities.client-respected', '2025-11-25'],
  'early-request': ['lifecycle.no-requests-before-initialized', '2025-11-25'],
  'version-ignored': ['lifecycle.unsupported-version', '2026-07-28'],
  'envelope-unchecked': ['lifecycle.missing-envelope', '2026-07-28'],
  'later-revision-field': ['schema.revision-fields', '2025-03-26'],
  'schema-invalid': ['schema.server-messages', '2025-11-25'],
  'modern-server-request': ['lifecycle.no-server-requests', '2026-07-28'],
  'ignore-eof': ['stdio.exit-on-eof', '2025-06-18'],
  'progress-decreasing': ['progress.increasing', '2025-11-25'],
  'progress-after-result': ['progress.stops', '2025-06-18'],
  'progress-unknown-token': ['progress.active-token', '2026-07-28'],
  'cancel-ignored': ['cancellation.no-response', '2025-11-25'],
  'cancel-crash': ['cancellation.graceful', '2024-11-05'],
  'subscribe-missing': ['capabilities.declared-implemented', '2025-03-26'],
  'no-ack': ['subscriptions.acknowledged', '2026-07-28'],
  'unrequested-notification': ['subscriptions.requested-only', '2026-07-28'],
  'no-subscription-id': ['subscriptions.subscription-id', '2026-07-28'],
  'updated-wrong-uri': ['subscriptions.updated-uri', '2025-11-25'],
  'template-unreadable': ['resources.template-read', '2025-11-25'],
  'stale-cursor-crash': ['pagination.stale-cursor', '2025-06-18'],
  'batch-ignored': ['jsonrpc.batch', '2025-03-26'],
  'batch-served': ['jsonrpc.batch-refused', '2025-06-18'],
  'version-echoed': ['lifecycle.version-echo', '2025-11-25'],
  'level-ignored': ['logging.level-respected', '2025-11-25'],
  'log-without-level': ['logging.request-level', '2026-07-28'],
  'string-id': ['jsonrpc.response-id', '2025-11-25'],
  'split-frame': ['stdio.messages-only', '2025-06-18'],
  'skills-list-missing': ['skills.list', '2026-07-28'],
  'skills-cursor-loop': ['pagination.walk', '2024-11-05'],
  'skills-get-missing': ['skills.get', '2025-11-25'],
  'skills-get-unlisted': ['skills.get-unlisted', '2026-07-28'],
  'skills-get-unknown-ok': ['skills.get-unknown', '2025-06-18'],
  'skills-other-scheme': ['skills.uri-scheme', '2024-11-05'],
  'skills-uri-name': ['skills.uri-name', '2026-07-28'],
  'skills-bad-name': ['skills.name', '2025-11-25'],
  'skills-no-description': ['skills.frontmatter', '2025-03-26'],
  'skills-frontmatter-differs': ['skills.frontmatter-identical', '2026-07-28'],
  'skills-no-resources': ['skills.resources', '2025-11-25'],
  'skills-incomplete': ['skills.resources-complete', '2025-06-18'],
  'skills-outside': ['skills.resources-within', '2026-07-28'],
  'skills-wrong-size': ['skills.size', '2024-11-05'],
  'skills-wrong-digest': ['skills.digest', '2025-11-25'],
  'skills-md-plain': ['skills.skill-md-mime', '2026-07-28'],
  'skills-md-named-file': ['skills.skill-md-name', '2025-06-18'],
  'skills-md-undescribed': ['skills.skill-md-description', '2026-07-28'],
  'skills-too-many-files': ['skills.limits', '2025-06-18'],
  'skills-duplicate-names': ['skills.names-unique', '2025-11-25'],
  'skills-no-directory-read': ['skills.directory-read', '2026-07-28'],
  'skills-directory-file-ok': ['skills.directory-not-directory', '2025-06-18'],
};

/** Runs each bug whose rule is in one of `areas`; returns the bugs it missed, with what was seen. */
export async function missedBugs(areas: readonly Area[]): Promise<string[]> {
  const bugs = BUGS.filter((bug) => areas.includes(requirement(EXPECTED[bug][0]).area));
  assert.ok(bugs.length > 0, `no seeded bug breaks a rule of ${areas.join(', ')}`);
  const missed: string[] = [];
  // Two at a time: each run spawns one server process.
  const queue = [...bugs];
  const worker = async () => {
    for (let bug = queue.shift(); bug !== undefined; bug = queue.shift()) {
      const [id, revision] = EXPECTED[bug];
      const report = await checkServer(target(bug), { revisions: [revision], timeoutMs: 3_000 });
      const entry = report.checks.find((c) => c.id === id && c.revision === revision);
      const wanted = brokenStatus(levelIn(requirement(id), revision));
      if (entry?.status !== wanted || !entry.evidence?.length) {
        missed.push(
          `${bug}: ${id} in ${revision} is ${entry?.status} (${entry?.message}), not ${wanted} with evidence`,
        );
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return missed;
}

/**
 * The report for a terminal: the score, then each revision by area, failures and warnings with
 * their evidence, and at the end what was not tested and why. Plain text, readable without
 * colours; the server's own text in it is escaped by the caller.
 */
import { AREAS } from '../requirements.js';
import type { CheckEntry, Status } from '../results.js';
import type { CheckReport } from '../run.js';

const TAG: Record<Status, string> = {
  passed: 'PASS',
  failed: 'FAIL',
  warning: 'WARN',
  'not-applicable': 'N/A ',
  'not-tested': 'SKIP',
};

export function formatText(
  report: CheckReport,
  options: { readonly expected?: ReadonlySet<string> } = {},
): string {
  const { summary } = report;
  const lines: string[] = [];
  lines.push(
    `switchboard check: ${report.target} (${report.role === 'client' ? 'client over ' : ''}${report.transport})`,
  );
  if (report.server) lines.push(`server: ${report.server.name} ${report.server.version}`);
  for (const note of report.scenarios ?? []) lines.push(`  ${note}`);
  for (const r of report.revisions)
    lines.push(`  ${r.revision}  ${r.supported ? 'checked' : 'not spoken'}: ${r.note}`);
  lines.push('');
  for (const r of report.revisions.filter((r) => r.supported)) {
    const entries = report.checks.filter((c) => c.revision === r.revision);
    if (entries.length === 0) continue;
    lines.push(`${r.revision}`);
    for (const area of AREAS) {
      const inArea = entries.filter((c) => c.area === area);
      if (inArea.length === 0) continue;
      lines.push(`  ${area.padEnd(13)} ${counts(inArea)}`);
      for (const entry of inArea) {
        if (entry.status !== 'failed' && entry.status !== 'warning') continue;
        const expected =
          options.expected?.has(entry.id) || options.expected?.has(`${entry.revision}:${entry.id}`);
        lines.push(
          `    ${TAG[entry.status]} ${entry.id} [${entry.level}]${expected ? ' (expected)' : ''}: ${entry.message}`,
        );
        for (const item of entry.evidence?.slice(1) ?? []) lines.push(`         ${item}`);
      }
    }
    lines.push('');
  }
  const untested = report.checks.filter((c) => c.status === 'not-tested');
  if (untested.length > 0) {
    lines.push('Not tested:');
    for (const entry of untested)
      lines.push(`  ${entry.revision} ${entry.id} [${entry.level}]: ${entry.message}`);
    lines.push('');
  }
  lines.push(
    `Score ${summary.score}/100: ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warning(s), ${summary.skipped} skipped (${(report.durationMs / 1000).toFixed(1)} s)`,
  );
  return `${lines.join('\n')}\n`;
}

function counts(entries: readonly CheckEntry[]): string {
  const by = (status: Status) => entries.filter((e) => e.status === status).length;
  const parts = [
    [by('passed'), 'passed'],
    [by('failed'), 'failed'],
    [by('warning'), 'warning(s)'],
    [by('not-applicable'), 'not applicable'],
    [by('not-tested'), 'not tested'],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ');
}

/**
 * The report as one self-contained HTML page (no script, no network): the score, failures and
 * warnings first with their evidence folded, then every check by revision.
 */
import { requirement, specUrl } from '../requirements.js';
import type { CheckEntry } from '../results.js';
import type { CheckReport } from '../run.js';
import { escapeMarkup } from './markup.js';

/** The look of the reports (also `switchboard test --html`). */
export const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.score{font-size:3rem;font-weight:700}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.failed{color:#b00020;font-weight:600}.warning{color:#9a6700;font-weight:600}.advice{color:#0b5cad}.passed{color:#1a7f37}
.not-applicable,.not-tested{color:#666}pre{white-space:pre-wrap;background:#f6f8fa;padding:.5rem;margin:.3rem 0}`;

function row(entry: CheckEntry): string {
  const link = specUrl(requirement(entry.id), entry.revision);
  const evidence = entry.evidence?.length
    ? `<details><summary>evidence</summary><pre>${escapeMarkup(entry.evidence.join('\n'))}</pre></details>`
    : '';
  return `<tr><td class="${entry.status}">${entry.status}</td><td>${entry.revision}</td><td><a href="${escapeMarkup(link)}">${escapeMarkup(entry.id)}</a></td><td>${entry.level}</td><td>${escapeMarkup(entry.message)}${evidence}</td></tr>`;
}

export function formatHtml(report: CheckReport): string {
  const { summary } = report;
  // Failures, then warnings, then advice (MAY and hardening rules: never in the score).
  const rank: Partial<Record<string, number>> = { failed: 0, warning: 1, advice: 2 };
  const problems = report.checks.filter((c) => rank[c.status] !== undefined);
  problems.sort((a, b) => rank[a.status]! - rank[b.status]!);
  const rest = report.checks.filter((c) => rank[c.status] === undefined);
  const head =
    '<tr><th>status</th><th>revision</th><th>requirement</th><th>level</th><th>what was seen</th></tr>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>switchboard check: ${escapeMarkup(report.target)}</title><style>${STYLE}</style></head>
<body><h1>switchboard check: ${escapeMarkup(report.target)} (${report.transport})</h1>
<p class="score">${summary.score}/100</p>
<p>${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warning(s), ${summary.advice} advice, ${summary.skipped} skipped. ${escapeMarkup(report.server ? `${report.server.name} ${report.server.version}` : '')} Checked ${escapeMarkup(report.startedAt)} in ${(report.durationMs / 1000).toFixed(1)} s.</p>
<ul>${report.revisions.map((r) => `<li>${r.revision}: ${r.supported ? 'checked' : 'not spoken'} (${escapeMarkup(r.note)})</li>`).join('')}</ul>
<h2>Failures, warnings and advice</h2>
${problems.length === 0 ? '<p>None.</p>' : `<table>${head}${problems.map(row).join('')}</table>`}
<h2>Every check</h2>
<table>${head}${rest.map(row).join('')}</table>
</body></html>
`;
}

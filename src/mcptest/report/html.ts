/**
 * The run as one self-contained HTML page (no script, no network), in the look of the check
 * report: the counts, failures first with their diffs, then every test by file.
 */
import { STYLE } from '../../check/report/html.js';
import { escapeMarkup } from '../../check/report/markup.js';
import type { TestReport, TestResult } from '../run.js';
import { formatFailure } from './text.js';

const EXTRA = '.not-run{color:#666}';

function row(r: TestResult): string {
  const detail =
    r.status === 'failed'
      ? `<details open><summary>${escapeMarkup((r.failures ?? []).map((f) => f.message).join('; '))}</summary><pre>${escapeMarkup((r.failures ?? []).map(formatFailure).join('\n'))}</pre></details>`
      : r.status === 'not-run'
        ? escapeMarkup(`not run: ${r.reason ?? ''}`)
        : escapeMarkup(r.snapshot ? `snapshot ${r.snapshot}` : '');
  return `<tr><td class="${r.status}">${r.status}</td><td>${escapeMarkup(r.revision ?? '')}</td><td>${escapeMarkup(r.name)}</td><td>${Math.round(r.durationMs)} ms</td><td>${detail}</td></tr>`;
}

export function formatTestHtml(report: TestReport): string {
  const { summary } = report;
  const head = '<tr><th>status</th><th>revision</th><th>test</th><th>time</th><th>what was seen</th></tr>';
  const failed = report.files.flatMap((f) => f.results.filter((r) => r.status === 'failed'));
  const files = report.files
    .map(
      (f) =>
        `<h3>${escapeMarkup(f.file)}</h3><p>${escapeMarkup(f.server)}: ${f.summary.passed} passed, ${f.summary.failed} failed, ${f.summary.notRun} not run.</p>${f.notes.map((n) => `<pre>${escapeMarkup(n)}</pre>`).join('')}<table>${head}${f.results.map(row).join('')}</table>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>switchboard test</title><style>${STYLE}${EXTRA}</style></head>
<body><h1>switchboard test</h1>
<p class="score">${summary.passed}/${summary.total}</p>
<p>${summary.passed} passed, ${summary.failed} failed, ${summary.notRun} not run, in ${report.files.length} file(s). Run ${escapeMarkup(report.startedAt)} in ${(report.durationMs / 1000).toFixed(1)} s.</p>
<h2>Failures</h2>
${failed.length === 0 ? '<p>None.</p>' : `<table>${head}${failed.map(row).join('')}</table>`}
<h2>Every test</h2>
${files}
</body></html>
`;
}

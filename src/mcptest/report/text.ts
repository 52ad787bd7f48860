/**
 * What `switchboard test` prints: a line per test as it ends, then each failure with what was
 * expected, what came and a diff, then the counts. Not-run tests are counted apart, never as passed.
 */
import type { Failure } from '../evaluate.js';
import type { FileReport, ProgressEvent, TestReport, TestResult } from '../run.js';

const MARK = { passed: '✓', failed: '✗', 'not-run': '-' } as const;

const label = (r: TestResult) => `${r.name}${r.revision ? ` [${r.revision}]` : ''}`;

/** The progress line for one event. */
export function formatProgress(event: ProgressEvent): string {
  if (event.kind === 'file') return `${event.file} (${event.server})\n`;
  const r = event.result;
  const detail =
    r.status === 'not-run'
      ? ` (not run: ${r.reason})`
      : `${r.snapshot === 'written' ? ' (snapshot written)' : r.snapshot === 'updated' ? ' (snapshot updated)' : ''} ${Math.round(r.durationMs)} ms`;
  return `  ${MARK[r.status]} ${label(r)}${detail}\n`;
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');
}

export function formatFailure(failure: Failure): string {
  const parts = [`    ${failure.message}`];
  if (failure.diff !== undefined)
    parts.push('    diff (- expected, + actual):', indent(failure.diff, '      '));
  else {
    if (failure.expected !== undefined) parts.push('    expected:', indent(failure.expected, '      '));
    if (failure.actual !== undefined) parts.push('    actual:', indent(failure.actual, '      '));
  }
  return parts.join('\n');
}

/** The failures in full, the notes, and the counts: of a run, or of one file (`runTestFile`). */
export function formatSummary(run: TestReport | FileReport): string {
  const report: Pick<TestReport, 'files' | 'summary'> & { durationMs?: number } =
    'results' in run ? { files: [run], summary: run.summary } : run;
  const out: string[] = [];
  const failed = report.files.flatMap((f) => f.results.filter((r) => r.status === 'failed'));
  if (failed.length > 0) {
    out.push('', 'Failures:');
    for (const r of failed) {
      out.push('', `  ✗ ${label(r)}  (${r.file}:${r.at.line}:${r.at.column})`);
      for (const failure of r.failures ?? []) out.push(formatFailure(failure));
    }
  }
  const notes = report.files.flatMap((f: FileReport) => f.notes.map((n) => `  ${f.file}: ${n}`));
  if (notes.length > 0) out.push('', 'Notes:', ...notes);
  const { summary } = report;
  out.push(
    '',
    `${summary.passed} passed, ${summary.failed} failed, ${summary.notRun} not run (${report.files.length} file${report.files.length === 1 ? '' : 's'}${report.durationMs === undefined ? '' : `, ${(report.durationMs / 1000).toFixed(1)} s`})`,
  );
  return `${out.join('\n')}\n`;
}

/**
 * The run as JUnit XML for CI: one test suite per file, one test case per test and revision.
 * A failure carries each condition that did not hold with its diff; a test that did not run is
 * `skipped` with the reason (CI shows it apart; the exit status still fails the run).
 */
import { escapeMarkup } from '../../check/report/markup.js';
import type { TestReport } from '../run.js';
import { formatFailure } from './text.js';

export function formatTestJunit(report: TestReport): string {
  const { summary } = report;
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites name="switchboard test" tests="${summary.total}" failures="${summary.failed}" skipped="${summary.notRun}" time="${(report.durationMs / 1000).toFixed(3)}">`,
  );
  for (const file of report.files) {
    const time = file.results.reduce((total, r) => total + r.durationMs, 0) / 1000;
    out.push(
      `  <testsuite name="${escapeMarkup(file.file)}" tests="${file.summary.total}" failures="${file.summary.failed}" skipped="${file.summary.notRun}" time="${time.toFixed(3)}">`,
    );
    for (const r of file.results) {
      const name = `${r.name}${r.revision ? ` [${r.revision}]` : ''}`;
      const open = `    <testcase classname="${escapeMarkup(file.file)}" name="${escapeMarkup(name)}" time="${(r.durationMs / 1000).toFixed(3)}" file="${escapeMarkup(r.file)}" line="${r.at.line}"`;
      if (r.status === 'passed') out.push(`${open}/>`);
      else if (r.status === 'not-run') {
        out.push(
          `${open}>`,
          `      <skipped message="${escapeMarkup(`not run: ${r.reason ?? ''}`)}"/>`,
          '    </testcase>',
        );
      } else {
        const failures = r.failures ?? [];
        out.push(
          `${open}>`,
          `      <failure message="${escapeMarkup(failures.map((f) => f.message).join('; '))}" type="assertion">${escapeMarkup(failures.map(formatFailure).join('\n'))}</failure>`,
          '    </testcase>',
        );
      }
    }
    if (file.notes.length > 0)
      out.push(`    <system-out>${escapeMarkup(file.notes.join('\n'))}</system-out>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * The report as JUnit XML for CI: one test suite per revision and area, one test case per check.
 * MUST failures are failures; SHOULD warnings pass with the warning in system-out, so a CI gate
 * follows the exit status; not applicable and not tested checks are skipped, with the reason.
 */
import type { CheckReport } from '../run.js';
import { escapeMarkup } from './markup.js';

export function formatJunit(report: CheckReport): string {
  const suites = new Map<string, CheckReport['checks'][number][]>();
  for (const entry of report.checks) {
    const key = `${entry.revision} ${entry.area}`;
    let list = suites.get(key);
    if (!list) {
      list = [];
      suites.set(key, list);
    }
    list.push(entry);
  }
  const seconds = (report.durationMs / 1000).toFixed(3);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const { summary } = report;
  out.push(
    `<testsuites name="${escapeMarkup(`switchboard check ${report.target}`)}" tests="${report.checks.length}" failures="${summary.failed}" skipped="${summary.skipped}" time="${seconds}">`,
  );
  for (const [name, entries] of suites) {
    const failures = entries.filter((e) => e.status === 'failed').length;
    const skipped = entries.filter((e) => e.status === 'not-applicable' || e.status === 'not-tested').length;
    out.push(
      `  <testsuite name="${escapeMarkup(name)}" tests="${entries.length}" failures="${failures}" skipped="${skipped}">`,
    );
    for (const e of entries) {
      const open = `    <testcase classname="${escapeMarkup(`${e.revision}.${e.area}`)}" name="${escapeMarkup(`${e.id} [${e.level}]`)}"`;
      const evidence = escapeMarkup((e.evidence ?? [e.message]).join('\n'));
      if (e.status === 'failed') {
        out.push(
          `${open}>`,
          `      <failure message="${escapeMarkup(e.message)}" type="${e.level}">${evidence}</failure>`,
          '    </testcase>',
        );
      } else if (e.status === 'warning' || e.status === 'advice') {
        // Neither fails the build: a SHOULD warns, a MAY or hardening rule advises.
        out.push(`${open}>`, `      <system-out>${e.status}: ${evidence}</system-out>`, '    </testcase>');
      } else if (e.status === 'passed') {
        out.push(`${open}/>`);
      } else {
        out.push(
          `${open}>`,
          `      <skipped message="${escapeMarkup(`${e.status}: ${e.message}`)}"/>`,
          '    </testcase>',
        );
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

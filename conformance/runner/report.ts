/** The summary printed at the end of a run: one table per suite, then what was skipped and why. */
import type { Plan, Wire } from './plan.js';
import type { ScenarioResult } from './results.js';
import { ACCEPTED_WARNINGS, type Suite } from './suites.js';

export interface Outcome {
  readonly suite: Suite;
  readonly role: 'server' | 'client';
  readonly wire: Wire;
  readonly result: ScenarioResult;
}

function cell(result: ScenarioResult | undefined): string {
  if (!result) return '·';
  if (result.verdict === 'fail') return '✗ FAIL';
  if (result.verdict === 'skipped') return 'n/a';
  return `✓ ${result.counts.SUCCESS}`;
}

/** `names` after `head`, comma-separated, wrapped under it at 110 columns. */
function wrap(head: string, names: readonly string[]): string {
  const indent = ' '.repeat(head.length);
  const lines = [head];
  names.forEach((name, i) => {
    const item = i < names.length - 1 ? `${name}, ` : name;
    if (lines.at(-1)!.length + item.length > 110 && lines.at(-1) !== head) lines.push(indent);
    lines[lines.length - 1] += item;
  });
  return lines.map((line) => line.trimEnd()).join('\n');
}

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function report(
  suites: readonly Suite[],
  plans: readonly Plan[],
  outcomes: readonly Outcome[],
): string {
  const lines: string[] = [];
  for (const suite of suites) {
    for (const role of ['server', 'client'] as const) {
      const mine = outcomes.filter((o) => o.suite === suite && o.role === role);
      if (mine.length === 0) continue;
      const wires = [...new Set(mine.map((o) => o.wire))].sort();
      const scenarios = [...new Set(mine.map((o) => o.result.scenario))];
      const rows = [[`${role} scenario`, ...wires]];
      for (const scenario of scenarios) {
        rows.push([
          scenario,
          ...wires.map((wire) =>
            cell(mine.find((o) => o.wire === wire && o.result.scenario === scenario)?.result),
          ),
        ]);
      }
      const passed = mine.filter((o) => o.result.verdict !== 'fail').length;
      lines.push(
        `\n@modelcontextprotocol/conformance ${suite.version}: ${role} (${passed}/${mine.length} passed; ✓ n = n checks passed, n/a = the scenario skipped itself, · = not applicable)`,
        table(rows),
      );
    }
  }
  const failures = outcomes.filter((o) => o.result.verdict === 'fail');
  if (failures.length > 0) {
    lines.push('\nFailures:');
    for (const { suite, role, wire, result } of failures) {
      lines.push(`  ${suite.version} ${role} ${result.scenario} @ ${wire}:`);
      for (const problem of result.problems) lines.push(`    - ${problem}`);
    }
  }
  const accepted = [...new Set(outcomes.flatMap((o) => o.result.accepted))];
  if (accepted.length > 0) {
    lines.push('\nAccepted warnings:');
    for (const key of accepted) lines.push(`  - ${key}: ${ACCEPTED_WARNINGS[key]}`);
  }
  const skips = plans.flatMap((plan) => plan.skips);
  if (skips.length > 0) {
    lines.push('\nNot run:');
    const byReason = new Map<string, Map<string, string[]>>();
    for (const skip of skips) {
      const groups = byReason.get(skip.reason) ?? new Map<string, string[]>();
      const group = `${skip.suite.version} ${skip.role}`;
      groups.set(group, [...(groups.get(group) ?? []), skip.scenario]);
      byReason.set(skip.reason, groups);
    }
    for (const [reason, groups] of byReason) {
      lines.push(`  - ${reason}:`);
      for (const [group, names] of groups) lines.push(wrap(`      ${group} (${names.length}): `, names));
    }
  }
  return lines.join('\n');
}

/** Reading the suite's `checks.json` files and judging each scenario run. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ACCEPTED_WARNINGS } from './suites.js';

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

export interface Check {
  readonly id: string;
  readonly name: string;
  readonly status: CheckStatus;
  readonly description?: string;
  readonly errorMessage?: string;
}

/** `pass`; `fail`; `skipped`: the suite ran it but every check skipped itself (nothing applied). */
export type Verdict = 'pass' | 'fail' | 'skipped';

export interface ScenarioResult {
  readonly scenario: string;
  readonly verdict: Verdict;
  readonly counts: Readonly<Record<CheckStatus, number>>;
  /** Failures and unaccepted warnings, one line each. */
  readonly problems: readonly string[];
  /** Accepted warnings, as `scenario:check-id`. */
  readonly accepted: readonly string[];
}

/** The suite names result directories `[server-]<scenario>-<ISO timestamp with : and . as ->`. */
const RESULT_DIR = /^(?:server-)?(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/**
 * Every scenario result under an output directory (one directory per scenario run). A scenario
 * named with a slash (`auth/metadata-default`) gets a directory inside one named by its prefix.
 */
export function readResults(outputDir: string, prefix = ''): Map<string, Check[]> {
  const found = new Map<string, Check[]>();
  if (!existsSync(outputDir)) return found;
  for (const entry of readdirSync(outputDir)) {
    const dir = join(outputDir, entry);
    if (!statSync(dir).isDirectory()) continue;
    const match = RESULT_DIR.exec(entry);
    const file = join(dir, 'checks.json');
    if (match && existsSync(file)) {
      found.set(`${prefix}${match[1]!}`, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
    } else if (prefix === '') {
      for (const [name, checks] of readResults(dir, `${entry}/`)) found.set(name, checks);
    }
  }
  return found;
}

/** The suite adds this check to every scenario that exchanged messages: it says nothing of the scenario's own. */
const WIRE_CHECK = 'wire-schema-valid';

export function judge(
  scenario: string,
  checks: readonly Check[],
  extraProblems: readonly string[] = [],
): ScenarioResult {
  const counts: Record<CheckStatus, number> = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 };
  const problems = [...extraProblems];
  const accepted: string[] = [];
  let ownSuccesses = 0;
  for (const check of checks) {
    if (check.status === 'SUCCESS' && check.id !== WIRE_CHECK) ownSuccesses++;
    counts[check.status] = (counts[check.status] ?? 0) + 1;
    const key = `${scenario}:${check.id}`;
    if (check.status === 'WARNING' && key in ACCEPTED_WARNINGS) accepted.push(key);
    else if (check.status === 'FAILURE' || check.status === 'WARNING') {
      problems.push(`${check.status} ${check.id}: ${check.errorMessage ?? check.description ?? check.name}`);
    }
  }
  const verdict: Verdict =
    problems.length > 0 ? 'fail' : ownSuccesses === 0 && counts.SKIPPED > 0 ? 'skipped' : 'pass';
  return { scenario, verdict, counts, problems, accepted };
}

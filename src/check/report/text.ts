/**
 * The report for a terminal. Each finding (a rule failed, warned or advised on) comes once, with
 * the revisions it occurs in, what was seen (folded to a few lines), what to change, and the
 * spec's sentence with its link; then one line per revision and the score. Lines are kept to the
 * terminal's width. `verbose` adds each revision's evidence and every check not tested. Plain
 * text, readable without colours; the server's own text in it is escaped by the caller.
 */
import { AREAS, requirement, sourceIn, specUrl } from '../requirements.js';
import type { CheckEntry, Status } from '../results.js';
import type { CheckReport } from '../run.js';

const TAG: Record<Status, string> = {
  passed: 'PASS',
  failed: 'FAIL',
  warning: 'WARN',
  advice: 'NOTE',
  'not-applicable': 'N/A ',
  'not-tested': 'SKIP',
};

/** The order findings come in: failures first, advice last. */
const RANK: Partial<Record<Status, number>> = { failed: 0, warning: 1, advice: 2 };

/** Width when the output is no terminal (a file, a CI log). */
export const DEFAULT_WIDTH = 100;
/** Lines of evidence a finding shows without `verbose`. */
const FOLDED_LINES = 2;
/** Characters of the spec's sentence a finding quotes. */
const QUOTE_CHARS = 160;

export interface TextOptions {
  /** Failures the user expects (`--expected-failures`): ids, or `revision:id`. */
  readonly expected?: ReadonlySet<string>;
  /** Longest line, in characters (default 100). */
  readonly width?: number;
  /** Every revision's evidence, and every check not tested. */
  readonly verbose?: boolean;
}

export function formatText(report: CheckReport, options: TextOptions = {}): string {
  const width = Math.max(40, options.width ?? DEFAULT_WIDTH);
  const { summary } = report;
  const lines: string[] = [];
  const put = (text: string, indent = '') => lines.push(...wrap(text, width, indent));
  // The target as given, whole: it is copied from here.
  lines.push(
    `switchboard check: ${report.target} (${report.role === 'client' ? 'client over ' : ''}${report.transport})`,
  );
  if (report.server) put(`server: ${report.server.name} ${report.server.version}`);
  for (const note of report.scenarios ?? []) put(note, '  ');
  for (const r of report.revisions)
    put(`${r.revision}  ${r.supported ? 'checked' : 'not spoken'}: ${r.note}`, '  ');
  lines.push('');

  for (const finding of findings(report.checks)) {
    const first = finding.entries[0]!;
    const expected = finding.entries.every(
      (e) => options.expected?.has(e.id) || options.expected?.has(`${e.revision}:${e.id}`),
    );
    const revisions = finding.entries.map((e) => e.revision).join(', ');
    put(`${TAG[first.status]} ${first.id} [${first.level}]${expected ? ' (expected)' : ''} in ${revisions}`);
    if (options.verbose) {
      for (const entry of finding.entries) {
        put(`${entry.revision}: ${entry.message}`, '  ');
        for (const item of entry.evidence?.slice(1) ?? []) put(item, '    ');
      }
    } else {
      const more =
        (first.evidence?.length ?? 1) -
        1 +
        finding.entries.slice(1).filter((e) => e.message !== first.message).length;
      lines.push(...fold(first.message, width, '  ', more > 0 ? ` (+${more} more with --verbose)` : ''));
    }
    const rule = requirement(first.id);
    put(`Change: ${rule.text}`, '  ');
    const source = sourceIn(rule, first.revision);
    put(
      source ? `Spec: "${short(source.quote)}"` : `Advice, not in the spec: ${short(rule.reading ?? '')}`,
      '  ',
    );
    put(specUrl(rule, first.revision), '  ');
    lines.push('');
  }

  for (const r of report.revisions.filter((r) => r.supported)) {
    const entries = report.checks.filter((c) => c.revision === r.revision);
    if (entries.length === 0) continue;
    put(`${r.revision}: ${counts(entries)}`);
    if (options.verbose) {
      for (const area of AREAS) {
        const inArea = entries.filter((c) => c.area === area);
        if (inArea.length > 0) put(`${area.padEnd(13)} ${counts(inArea)}`, '  ');
      }
    }
  }
  const untested = report.checks.filter((c) => c.status === 'not-tested');
  if (untested.length > 0) {
    if (options.verbose) {
      lines.push('', 'Not tested:');
      for (const entry of untested)
        put(`${entry.revision} ${entry.id} [${entry.level}]: ${entry.message}`, '  ');
    } else {
      put(`${untested.length} check(s) not tested (--verbose says which, and why).`);
    }
  }
  lines.push('');
  put(
    `Score ${summary.score}/100: ${summary.passed} passed, ${summary.failed} failed, ${summary.warnings} warning(s), ${summary.advice} advice, ${summary.skipped} skipped (${(report.durationMs / 1000).toFixed(1)} s)`,
  );
  return `${lines.join('\n')}\n`;
}

interface Finding {
  readonly entries: readonly CheckEntry[];
}

/** The failed, warned and advised entries, one finding per rule and status, worst first. */
function findings(checks: readonly CheckEntry[]): Finding[] {
  const groups = new Map<string, CheckEntry[]>();
  for (const entry of checks) {
    if (RANK[entry.status] === undefined) continue;
    const key = `${entry.status}\u0000${entry.id}`;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  return [...groups.values()]
    .sort((a, b) => RANK[a[0]!.status]! - RANK[b[0]!.status]!)
    .map((entries) => ({ entries }));
}

const short = (text: string) => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS - 1)}…` : text);

/** `text` in lines of at most `width` characters, each after `indent`, broken between words. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const room = Math.max(20, width - indent.length);
  const lines: string[] = [];
  let line = '';
  // Split on single spaces: a run of them (an aligned column) is kept.
  for (const word of text.split(' ')) {
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= room) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
    // A word longer than the line (a JSON value without spaces) is cut where the line ends.
    while (line.length > room) {
      lines.push(line.slice(0, room));
      line = line.slice(room);
    }
  }
  lines.push(line);
  return lines.map((l) => `${indent}${l}`);
}

/** `text` wrapped and folded to FOLDED_LINES lines, the last ending with `suffix`. */
function fold(text: string, width: number, indent: string, suffix: string): string[] {
  const lines = wrap(`${text}${suffix}`, width, indent);
  if (lines.length <= FOLDED_LINES) return lines;
  const kept = lines.slice(0, FOLDED_LINES);
  const tail = ` …${suffix}`;
  const last = kept[FOLDED_LINES - 1]!;
  kept[FOLDED_LINES - 1] = `${last.slice(0, Math.max(indent.length, width - tail.length))}${tail}`;
  return kept;
}

function counts(entries: readonly CheckEntry[]): string {
  const by = (status: Status) => entries.filter((e) => e.status === status).length;
  const parts = [
    [by('passed'), 'passed'],
    [by('failed'), 'failed'],
    [by('warning'), 'warning(s)'],
    [by('advice'), 'advice'],
    [by('not-applicable'), 'not applicable'],
    [by('not-tested'), 'not tested'],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ');
}

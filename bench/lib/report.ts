/**
 * Results and their markdown tables. Every figure is kept per run; a ratio to the raw limit is taken
 * inside each run (both sides saw the same machine state), then quoted as median [min-max] over runs.
 */
import { type Spread, spread } from './stats.js';

/** Whether a bigger figure is better (throughput) or worse (time, CPU, bytes). */
export type Better = 'higher' | 'lower';

export interface Row {
  readonly metric: string;
  readonly unit: string;
  readonly better: Better;
  /** Per implementation column, one value per run (NaN: not measured in that run). */
  readonly values: Map<string, number[]>;
  /** Rows such as import time have no meaningful raw figure: no ratio column is filled. */
  readonly noRatio?: boolean;
}

export interface Section {
  readonly title: string;
  /** Column ids in display order; `reference` is the raw limit the ratios divide by. */
  readonly columns: readonly string[];
  readonly reference: string;
  readonly notes: string[];
  readonly rows: Row[];
}

export function section(title: string, columns: readonly string[], reference: string): Section {
  return { title, columns, reference, notes: [], rows: [] };
}

/** The row for `metric` in `s`, created on first use. */
export function row(s: Section, metric: string, unit: string, better: Better, noRatio = false): Row {
  let found = s.rows.find((r) => r.metric === metric);
  if (!found) {
    found = { metric, unit, better, values: new Map(), noRatio };
    s.rows.push(found);
  }
  return found;
}

/** Records `value` for `column` in run `run`. */
export function record(r: Row, column: string, run: number, value: number | undefined): void {
  let list = r.values.get(column);
  if (!list) {
    list = [];
    r.values.set(column, list);
  }
  while (list.length <= run) list.push(Number.NaN);
  list[run] = value ?? Number.NaN;
}

/** Per-run ratios `column / reference` (for every unit: >1 means more of it than raw). */
export function ratios(r: Row, column: string, reference: string): number[] {
  const values = r.values.get(column) ?? [];
  const refs = r.values.get(reference) ?? [];
  return values.map((v, i) => {
    const ref = refs[i];
    return ref === undefined || !Number.isFinite(ref) || ref === 0 ? Number.NaN : v / ref;
  });
}

export function formatNumber(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

/** `median [min-max]` with `suffix` after the median, or '-' when there is no figure. */
export function formatSpread(s: Spread | undefined, suffix = ''): string {
  if (!s) return '-';
  const m = `${formatNumber(s.median)}${suffix}`;
  return s.n === 1 || s.min === s.max ? m : `${m} [${formatNumber(s.min)}-${formatNumber(s.max)}]`;
}

/** The section as a markdown table: figures per column, then each column's ratio to the reference. */
export function renderSection(s: Section): string {
  const others = s.columns.filter((c) => c !== s.reference);
  const header = ['metric', 'unit', ...s.columns, ...others.map((c) => `${c} / ${s.reference}`)];
  const align = ['---', '---', ...header.slice(2).map(() => '---:')];
  const lines = [`### ${s.title}`, '', `| ${header.join(' | ')} |`, `| ${align.join(' | ')} |`];
  for (const r of s.rows) {
    const cells = [r.metric, `${r.unit} (${r.better === 'higher' ? 'more is better' : 'less is better'})`];
    for (const c of s.columns) cells.push(formatSpread(spread(r.values.get(c) ?? [])));
    for (const c of others) cells.push(r.noRatio ? '' : formatSpread(spread(ratios(r, c, s.reference)), 'x'));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  if (s.notes.length > 0) lines.push('', ...s.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

/** The median ratio of `column` to the section's reference for `metric`, for target checks. */
export function medianRatio(s: Section, metric: string, column: string): number | undefined {
  const r = s.rows.find((x) => x.metric === metric);
  return r ? spread(ratios(r, column, s.reference))?.median : undefined;
}

/** The median figure of `column` for `metric`. */
export function medianValue(s: Section, metric: string, column: string): number | undefined {
  const r = s.rows.find((x) => x.metric === metric);
  return r ? spread(r.values.get(column) ?? [])?.median : undefined;
}

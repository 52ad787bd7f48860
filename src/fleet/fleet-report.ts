/**
 * The fleet's reports: the table printed after `check --config`, its JUnit (one suite per server)
 * and HTML (one page for the fleet), and `switchboard report`'s page: each server's score over time
 * as a line chart, and what changed when.
 */
import { escapeMarkup } from '../check/report/markup.js';
import type { FleetResult } from './fleet-check.js';
import type { FleetRun } from './history.js';

const TRANSPORT: Record<string, string> = { stdio: 'stdio', http: 'Streamable HTTP', sse: 'HTTP+SSE' };

function rows(results: readonly FleetResult[]): string[][] {
  return results.map((r) => [
    r.name,
    TRANSPORT[r.served ?? r.transport] ?? r.transport,
    r.error ? '-' : r.revisions.join(', ') || 'none',
    r.error ? '-' : String(r.score),
    r.error ? '-' : String(r.mustFailures),
    r.error ? `not checked: ${r.error.split('\n')[0]}` : r.changes.join('; ') || 'none',
  ]);
}

const HEADER = [
  'server',
  'transport',
  'revisions spoken',
  'score',
  'MUST failures',
  'changes since the last run',
];

export function formatFleetTable(results: readonly FleetResult[]): string {
  const table = [HEADER, ...rows(results)];
  const widths = HEADER.map((_h, i) => Math.max(...table.map((row) => row[i]!.length)));
  return `${table
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n')}\n`;
}

export function formatFleetJunit(results: readonly FleetResult[]): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const tests = results.reduce((n, r) => n + (r.report?.checks.length ?? 1), 0);
  const failures = results.reduce((n, r) => n + r.failed, 0);
  const errors = results.filter((r) => r.error).length;
  out.push(
    `<testsuites name="switchboard check --config" tests="${tests}" failures="${failures}" errors="${errors}">`,
  );
  for (const r of results) {
    const checks = r.report?.checks ?? [];
    out.push(
      `  <testsuite name="${escapeMarkup(r.name)}" tests="${checks.length || 1}" failures="${r.failed}" errors="${r.error ? 1 : 0}">`,
    );
    if (r.error) {
      out.push(
        `    <testcase classname="${escapeMarkup(r.name)}" name="check">`,
        `      <error message="${escapeMarkup(r.error.split('\n')[0]!)}">${escapeMarkup(r.error)}</error>`,
        '    </testcase>',
      );
    }
    for (const e of checks) {
      const open = `    <testcase classname="${escapeMarkup(`${r.name}.${e.revision}.${e.area}`)}" name="${escapeMarkup(`${e.id} [${e.level}]`)}"`;
      if (e.status === 'failed')
        out.push(
          `${open}>`,
          `      <failure message="${escapeMarkup(e.message)}" type="${e.level}">${escapeMarkup((e.evidence ?? [e.message]).join('\n'))}</failure>`,
          '    </testcase>',
        );
      else if (e.status === 'not-applicable' || e.status === 'not-tested')
        out.push(
          `${open}>`,
          `      <skipped message="${escapeMarkup(`${e.status}: ${e.message}`)}"/>`,
          '    </testcase>',
        );
      else out.push(`${open}/>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#1b1b1f;background:#fff}
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:#f2f2f5}.bad{color:#a4000f;font-weight:600}.ok{color:#0a6b2c}svg text{font:12px system-ui,sans-serif}
@media (prefers-color-scheme:dark){body{background:#16161a;color:#e8e8ee}th{background:#26262c}td,th{border-color:#444}.bad{color:#ff8a8a}.ok{color:#7fdc9b}}`;

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeMarkup(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`;
}

function tableHtml(results: readonly FleetResult[]): string {
  const body = rows(results)
    .map((row, i) => {
      const r = results[i]!;
      const cls = r.error || r.mustFailures > 0 ? ' class="bad"' : ' class="ok"';
      return `<tr>${row.map((cell, j) => `<td${j === 3 || j === 4 ? cls : ''}>${escapeMarkup(cell)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<table><thead><tr>${HEADER.map((h) => `<th scope="col">${escapeMarkup(h)}</th>`).join('')}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export function formatFleetHtml(results: readonly FleetResult[], source: string, at: string): string {
  return page(
    `Fleet check: ${source}`,
    `<h1>Fleet check</h1>\n<p>${escapeMarkup(source)}, ${escapeMarkup(at)}: ${results.length} servers, ${results.filter((r) => !r.error && r.mustFailures === 0).length} without a MUST failure.</p>\n${tableHtml(results)}`,
  );
}

/** Distinct colours for the chart's lines (a colour-blind-safe palette), with a dash pattern each as well. */
const COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#7a5b00', '#444'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3'];

/** `switchboard report FILE --html OUT`: scores over time and what changed when. */
export function formatHistoryHtml(runs: readonly FleetRun[], file: string): string {
  const names = [...new Set(runs.flatMap((r) => r.servers.map((s) => s.name)))];
  const width = 720;
  const height = 260;
  const left = 40;
  const bottom = 30;
  const x = (i: number) =>
    left + (runs.length <= 1 ? (width - left) / 2 : (i * (width - left - 10)) / (runs.length - 1));
  const y = (score: number) => 10 + ((100 - score) * (height - bottom - 10)) / 100;
  const grid = [0, 25, 50, 75, 100]
    .map(
      (s) =>
        `<line x1="${left}" x2="${width}" y1="${y(s)}" y2="${y(s)}" stroke="#8884"/><text x="${left - 6}" y="${y(s) + 4}" text-anchor="end">${s}</text>`,
    )
    .join('');
  const lines = names
    .map((name, n) => {
      const points = runs.flatMap((run, i) => {
        const s = run.servers.find((r) => r.name === name);
        return s && !s.error ? [[x(i), y(s.score), s.score] as const] : [];
      });
      const colour = COLOURS[n % COLOURS.length]!;
      const dash = DASHES[Math.floor(n / COLOURS.length) % DASHES.length] || DASHES[n % DASHES.length]!;
      const path = points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
      const dots = points
        .map(
          ([px, py, score]) =>
            `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="3.5" fill="${colour}"><title>${escapeMarkup(`${name}: ${score}`)}</title></circle>`,
        )
        .join('');
      return `<polyline fill="none" stroke="${colour}" stroke-width="2.5"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${path}"/>${dots}`;
    })
    .join('\n');
  const dates = runs
    .map((run, i) =>
      runs.length <= 8 || i % Math.ceil(runs.length / 8) === 0
        ? `<text x="${x(i)}" y="${height - 8}" text-anchor="middle">${escapeMarkup(run.at.slice(5, 16).replace('T', ' '))}</text>`
        : '',
    )
    .join('');
  const legend = names
    .map((name, n) => {
      const latest = [...runs]
        .reverse()
        .find((r) => r.servers.some((s) => s.name === name))!
        .servers.find((s) => s.name === name)!;
      return `<li><svg width="28" height="10" aria-hidden="true"><line x1="0" x2="28" y1="5" y2="5" stroke="${COLOURS[n % COLOURS.length]}" stroke-width="3"${DASHES[n % DASHES.length] ? ` stroke-dasharray="${DASHES[n % DASHES.length]}"` : ''}/></svg> ${escapeMarkup(name)}: ${latest.error ? 'not checked' : `${latest.score} now`}</li>`;
    })
    .join('');
  const changes = runs
    .flatMap((run) =>
      run.servers
        .filter((s) => s.changes.length > 0 && !(s.changes.length === 1 && s.changes[0] === 'first run'))
        .map(
          (s) =>
            `<tr><td>${escapeMarkup(run.at)}</td><td>${escapeMarkup(s.name)}</td><td>${escapeMarkup(s.changes.join('; '))}</td></tr>`,
        ),
    )
    .join('\n');
  const summary = `Scores of ${names.length} server${names.length === 1 ? '' : 's'} over ${runs.length} run${runs.length === 1 ? '' : 's'}`;
  return page(
    `Fleet history: ${file}`,
    `<h1>Fleet history</h1>\n<p>${escapeMarkup(file)}: ${runs.length} runs, ${escapeMarkup(runs[0]?.at ?? '')} to ${escapeMarkup(runs.at(-1)?.at ?? '')}.</p>
<figure><svg role="img" aria-label="${summary}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><title>${summary}</title>${grid}${lines}${dates}</svg>
<figcaption><ul style="list-style:none;padding:0">${legend}</ul></figcaption></figure>
<h2>What changed when</h2>
${changes ? `<table><thead><tr><th scope="col">run</th><th scope="col">server</th><th scope="col">changes</th></tr></thead><tbody>\n${changes}\n</tbody></table>` : '<p>Nothing changed between runs.</p>'}
<h2>The last run</h2>\n${tableHtml((runs.at(-1)?.servers ?? []) as FleetResult[])}`,
  );
}

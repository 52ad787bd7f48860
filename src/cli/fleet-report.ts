/**
 * `switchboard report FILE [--html OUT]`: a history file of `check --config --history` runs, as
 * each server's score over time (a chart in the HTML page) and what changed when.
 */
import { writeFileSync } from 'node:fs';
import { FleetError } from '../fleet/errors.js';
import { formatHistoryHtml } from '../fleet/fleet-report.js';
import { readRuns } from '../fleet/history.js';
import { errorMessage } from '../util/guards.js';
import type { CliIo } from './io.js';
import { escapeControls } from './terminal-text.js';
import { parseCommandLine, UsageError } from './usage-error.js';

export const REPORT_HELP = `Usage:
  switchboard report FILE [--html OUT]

Reads a history file (switchboard check --config CONFIG --history FILE) and
prints each server's scores over the runs and what changed when; --html writes
a page with each server's score over time as a chart.
`;

export function runReportCli(argv: readonly string[], io: CliIo): number {
  try {
    const { values, positionals } = parseCommandLine(
      argv,
      { html: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      'report',
    );
    if (values.help) {
      io.out(REPORT_HELP);
      return 0;
    }
    const [file, ...extra] = positionals;
    if (file === undefined) throw new UsageError('Missing FILE, the history file to read.', 'report');
    if (extra.length > 0) throw new UsageError(`Unexpected ${JSON.stringify(extra[0])}.`, 'report');
    const runs = readRuns(file, false);
    if (runs.length === 0) throw new FleetError(`${file} holds no run yet.`);
    const names = [...new Set(runs.flatMap((r) => r.servers.map((s) => s.name)))];
    const lines = [`${file}: ${runs.length} run(s), ${runs[0]!.at} to ${runs.at(-1)!.at}`];
    for (const name of names) {
      const scores = runs
        .map((r) => r.servers.find((s) => s.name === name))
        .map((s) => (s === undefined ? '·' : s.error ? 'x' : String(s.score)));
      lines.push(`  ${name}: ${scores.join(' → ')}`);
    }
    for (const run of runs)
      for (const s of run.servers)
        if (s.changes.length > 0 && s.changes[0] !== 'first run')
          lines.push(`  ${run.at} ${s.name}: ${s.changes.join('; ')}`);
    io.out(escapeControls(`${lines.join('\n')}\n`));
    if (values.html) {
      writeFileSync(values.html, formatHistoryHtml(runs, file));
      io.out(`Wrote ${values.html}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`switchboard: ${error.message}\nRun "switchboard report --help" for usage.\n`);
      return 2;
    }
    if (error instanceof FleetError || (error as NodeJS.ErrnoException).code !== undefined) {
      io.err(`switchboard: ${escapeControls(errorMessage(error))}\n`);
      return 1;
    }
    throw error;
  }
}

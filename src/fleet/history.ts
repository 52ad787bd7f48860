/**
 * `--history FILE`: each fleet run appended as one JSON line (`switchboard-fleet-run/1`), so the file
 * only grows and a run cut short leaves the earlier ones whole. `report` reads it back.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { isPlainObject } from '../util/guards.js';
import { FleetError } from './errors.js';
import type { FleetResult } from './fleet-check.js';

export const RUN_FORMAT = 'switchboard-fleet-run/1';

export interface FleetRun {
  readonly format: typeof RUN_FORMAT;
  readonly at: string;
  /** The config or server.json checked. */
  readonly source: string;
  readonly servers: readonly Omit<FleetResult, 'report'>[];
}

/** One run of the checks of `source` (a config file, a gateway's URL), as history keeps it. */
export function fleetRun(
  source: string,
  results: readonly FleetResult[],
  at = new Date().toISOString(),
): FleetRun {
  return { format: RUN_FORMAT, at, source, servers: results.map(forHistory) };
}

export function appendRun(file: string, run: FleetRun): void {
  appendFileSync(file, `${JSON.stringify(run)}\n`);
}

/** Every run in the file, oldest first; a missing file has none. A line that is not a run is an error naming it. */
export function readRuns(file: string, missingIsEmpty = true): FleetRun[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (missingIsEmpty && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new FleetError(`${file}: cannot be read (${(error as Error).message}).`);
  }
  const runs: FleetRun[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new FleetError(`${file}:${index + 1}: not JSON: each line of a history file is one run.`);
    }
    if (!isPlainObject(value) || value.format !== RUN_FORMAT || !Array.isArray(value.servers))
      throw new FleetError(`${file}:${index + 1}: not a fleet run (${RUN_FORMAT}).`);
    runs.push(value as unknown as FleetRun);
  });
  return runs;
}

/** Each server's latest result in the runs. */
export function latestResults(runs: readonly FleetRun[]): Map<string, FleetResult> {
  const latest = new Map<string, FleetResult>();
  for (const run of runs) for (const server of run.servers) latest.set(server.name, server as FleetResult);
  return latest;
}

/** A result as history keeps it: without the whole report. */
export function forHistory(result: FleetResult): Omit<FleetResult, 'report'> {
  const { report: _report, ...kept } = result;
  return kept;
}

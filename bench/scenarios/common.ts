/** What the stdio and HTTP scenarios share: running cells, recording load results, interleaving. */
import type { Config } from '../config.js';
import { runJob } from '../lib/harness.js';
import { type Row, record, row, type Section } from '../lib/report.js';
import type { Job, LoadResult } from '../worker.js';

export interface Context {
  readonly config: Config;
  /** Progress lines (stderr). */
  log(line: string): void;
  /** Cells that failed, with why. */
  readonly failures: string[];
  /** Further Node binaries the cold-start sections run on, beside the one running the bench. */
  readonly nodes?: readonly string[];
}

/** Runs one cell; a failure is logged and recorded, and the cell stays empty. */
export async function cell<T>(
  ctx: Context,
  what: string,
  job: Job,
  onStep?: (step: string) => Promise<void>,
): Promise<T | undefined> {
  const started = Date.now();
  try {
    const result = await runJob<T>(job, ctx.config.jobTimeoutMs, onStep);
    ctx.log(`  ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    ctx.failures.push(`${what}: ${message}`);
    ctx.log(`  ${what} FAILED: ${message.split('\n')[0]}`);
    return undefined;
  }
}

/** `items` rotated by `run`, so no implementation always runs first (or right after a heavy one). */
export function rotated<T>(items: readonly T[], run: number): T[] {
  const k = run % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Runs `body` for every item of run `run`: one after another in rotated order (measurements must
 * not share the machine), or all at once in the smoke pass, which only proves that every cell runs.
 */
export async function inTurn<T>(
  ctx: Context,
  items: readonly T[],
  run: number,
  body: (item: T) => Promise<void>,
): Promise<void> {
  if (ctx.config.smoke) {
    await Promise.all(items.map(body));
    return;
  }
  for (const item of rotated(items, run)) await body(item);
}

/** Records the usual rows of a throughput cell under `prefix` (e.g. `seq`). */
export function recordLoad(
  s: Section,
  prefix: string,
  column: string,
  run: number,
  result: LoadResult | undefined,
  which: { latency?: boolean; client?: boolean; server?: boolean } = {
    latency: true,
    client: true,
    server: true,
  },
): void {
  const put = (r: Row, v: number | undefined) => record(r, column, run, v);
  put(row(s, `${prefix} throughput`, 'calls/s', 'higher'), result?.callsPerSecond);
  if (which.latency) {
    put(row(s, `${prefix} latency p50`, 'us', 'lower'), result?.p50Us);
    put(row(s, `${prefix} latency p99`, 'us', 'lower'), result?.p99Us);
  }
  if (which.client) put(row(s, `${prefix} client CPU per call`, 'us', 'lower'), result?.clientCpuUsPerCall);
  if (which.server) put(row(s, `${prefix} server CPU per call`, 'us', 'lower'), result?.serverCpuUsPerCall);
}

/**
 * Records a cell of the client x server matrix: a library's client against the raw server (`client`
 * alone) or the raw client against a library's server (`server` alone); the raw pair is both.
 */
export function recordAlone(
  s: Section,
  side: 'client' | 'server',
  column: string,
  run: number,
  result: LoadResult | undefined,
): void {
  record(row(s, `${side} alone: throughput`, 'calls/s', 'higher'), column, run, result?.callsPerSecond);
  const cpu = side === 'client' ? result?.clientCpuUsPerCall : result?.serverCpuUsPerCall;
  record(row(s, `${side} alone: ${side} CPU per call`, 'us', 'lower'), column, run, cpu);
}

/**
 * Which fetch the Switchboard HTTP client should run on: the same client against the raw HTTP
 * server, 64 calls in flight, in both eras, on each fetch (see clients/fetches.ts), with the raw
 * client as the limit.
 *
 * A client's CPU per call is a few percent apart from one fetch to another, well inside what this
 * shared machine's load moves it by from one process to the next. So every variant runs in one
 * load process against one server, connected side by side, and each round measures them one after
 * another in rotated order for a short window: whatever else the machine does weighs on all of them
 * alike. Each round is one "run" of the report (its ratios are taken inside the round).
 */
import type { FetchKind } from '../clients/fetches.js';
import type { Era } from '../clients/types.js';
import { startServer } from '../lib/harness.js';
import { type Section, section } from '../lib/report.js';
import type { LoadResult } from '../worker.js';
import { type Context, cell, recordLoad } from './common.js';

const COLUMNS: readonly { id: string; fetch: FetchKind | 'raw' }[] = [
  { id: 'nodeFetch', fetch: 'node' },
  { id: 'nodeFetch + AbortSignal', fetch: 'node-signal' },
  { id: 'undici request()', fetch: 'undici' },
  { id: 'global fetch', fetch: 'global' },
  { id: 'raw', fetch: 'raw' },
];

export async function httpFetchSections(ctx: Context): Promise<Section[]> {
  const { config } = ctx;
  const rounds = config.smoke ? 1 : config.runs * 4;
  const s = section(
    `HTTP client fetches: the Switchboard client alone (raw server), ${config.inFlight} calls in flight`,
    COLUMNS.map((c) => c.id),
    'raw',
  );
  for (const era of ['legacy', 'modern'] as const satisfies readonly Era[]) {
    ctx.log(`HTTP client fetches, ${era}: ${rounds} rounds of ${COLUMNS.length} clients in one process`);
    const what = `fetches x raw server (${era})`;
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer('raw-http', []);
    } catch (error) {
      ctx.failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    try {
      const results = await cell<LoadResult[][]>(ctx, what, {
        type: 'fetches',
        client: 'switchboard',
        era,
        target: { kind: 'http', url: server.url },
        serverPid: server.pid,
        fetches: COLUMNS.map((c) => c.fetch),
        inFlight: config.inFlight,
        rounds,
        warmupMs: config.smoke ? 50 : 200,
        durationMs: config.smoke ? 150 : 600,
      });
      COLUMNS.forEach((col, i) => {
        results?.[i]?.forEach((result, round) => {
          recordLoad(s, era, col.id, round, result, { latency: true, client: true });
        });
      });
    } finally {
      await server.stop();
    }
  }
  s.notes.push(
    '`legacy`: 2025-11-25 sessions; `modern`: 2026-07-28. Every column but `raw` is the Switchboard `Client` on ' +
      '`StreamableHttpClientChannel` with the fetch its column names; `raw` is the raw client (node:http, ' +
      "keep-alive agent). All of an era's clients run in one load process against one raw server, measured in " +
      `turn for ${config.smoke ? 150 : 600} ms each, ${rounds} rounds; the figures are median [min-max] over rounds.`,
  );
  return [s];
}

/**
 * Issue #9's server-side goal, measured on its own: the raw client at 64 in flight over HTTP against
 * the raw `node:http` server and against the Switchboard server, alternating, in both eras, in one
 * process tree. Prints each run and the medians of throughput and server CPU per call, as ratios to
 * the raw server's of the same run (goal: throughput >= 0.8x, CPU per call <= 1.5x).
 *
 *   npm run bench:server -- [--runs N] [--ms N] [--in-flight N] [--era legacy|modern|both]
 *                           [--servers raw-http,switchboard-http]   (fixtures; ratios are to the first)
 */
import { loadavg } from 'node:os';
import type { Era } from './clients/types.js';
import { runJob, startServer } from './lib/harness.js';
import { median } from './lib/stats.js';
import type { LoadResult } from './worker.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1]!;
}

const times = (ratio: number): string => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a');

/** The median of the finite values (NaN when there are none). */
function medianOf(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? Number.NaN : median(finite);
}

async function measure(server: string, era: Era, inFlight: number, ms: number): Promise<LoadResult> {
  const running = await startServer(server, []);
  try {
    return await runJob<LoadResult>(
      {
        type: 'load',
        client: 'raw',
        era,
        tool: 'echo',
        inFlight,
        warmupMs: 300,
        durationMs: ms,
        target: { kind: 'http', url: running.url },
        serverPid: running.pid,
      },
      ms + 60_000,
    );
  } finally {
    await running.stop();
  }
}

async function main(): Promise<void> {
  const runs = Number(option('--runs', '5'));
  const ms = Number(option('--ms', '1500'));
  const inFlight = Number(option('--in-flight', '64'));
  const which = option('--era', 'both');
  const servers = option('--servers', 'raw-http,switchboard-http').split(',');
  const eras = (which === 'both' ? ['legacy', 'modern'] : [which]) as Era[];
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const load = () => loadavg()[0]!.toFixed(2);
  const loads = () => loadavg().map((l) => l.toFixed(2));
  out(`load average at start: ${loads().join(' ')}`);
  for (const era of eras) {
    const throughput = new Map<string, number[]>(servers.map((s) => [s, []]));
    const ratios = new Map<string, number[]>(servers.map((s) => [s, []]));
    const cpu = new Map<string, number[]>(servers.map((s) => [s, []]));
    for (let run = 0; run < runs; run++) {
      // Rotate which goes first, so none always runs on a machine another just warmed.
      const k = run % servers.length;
      const order = [...servers.slice(k), ...servers.slice(0, k)];
      const got = new Map<string, LoadResult>();
      for (const server of order) got.set(server, await measure(server, era, inFlight, ms));
      const base = got.get(servers[0]!)!;
      const parts: string[] = [];
      for (const server of servers) {
        const r = got.get(server)!;
        // A cell with no call in its window (a starved machine) has no figure: n/a, left out of medians.
        const ratio = r.calls > 0 && base.calls > 0 ? r.callsPerSecond / base.callsPerSecond : Number.NaN;
        const cpuRatio = (r.serverCpuUsPerCall ?? Number.NaN) / (base.serverCpuUsPerCall ?? Number.NaN);
        throughput.get(server)!.push(r.callsPerSecond);
        ratios.get(server)!.push(ratio);
        cpu.get(server)!.push(cpuRatio);
        parts.push(
          `${server} ${Math.round(r.callsPerSecond)}/s ${r.serverCpuUsPerCall?.toFixed(1) ?? 'n/a'} us/call` +
            (server === servers[0] ? '' : ` (${times(ratio)}, CPU ${times(cpuRatio)})`),
        );
      }
      out(`${era} run ${run + 1}: ${parts.join('; ')} [load ${load()}]`);
    }
    for (const server of servers.slice(1)) {
      out(
        `${era} median, ${server} vs ${servers[0]}: ${Math.round(median(throughput.get(server)!))}/s vs ` +
          `${Math.round(median(throughput.get(servers[0]!)!))}/s, throughput ${times(medianOf(ratios.get(server)!))}, ` +
          `CPU/call ${times(medianOf(cpu.get(server)!))}`,
      );
    }
  }
  out(`load average at end: ${loads().join(' ')}`);
}

await main();

/**
 * Profiles one side of an implementation's stdio path with `node --cpu-prof` and prints its hottest
 * functions (self time, as a share of the non-idle samples). The other side is the raw limit, so the
 * profile shows only the side under study.
 *
 *   npm run bench:profile -- [--transport stdio|http] [--side server|client]
 *                            [--impl switchboard|sdk-v1|sdk-v2|tmcp] [--era legacy|modern]
 *                            [--in-flight N] [--ms N] [--top N] [--fetch node|undici|global]
 *                            [--fixture NAME]   (HTTP: profile this fixture server instead of --impl's)
 *                            [--gateway]        (server side: profile a gateway fronting the Switchboard
 *                                                fixture over --transport; the load calls `up__echo`)
 *
 * The .cpuprofile files stay in a temporary directory (printed) for Chrome DevTools or speedscope.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchKind } from './clients/fetches.js';
import type { ClientKind, Era } from './clients/types.js';
import { fixture, runJob, startServer } from './lib/harness.js';
import type { LoadResult } from './worker.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const SERVERS: Record<string, string> = {
  switchboard: 'switchboard-stdio',
  'sdk-v1': 'sdk-v1-stdio',
  'sdk-v2': 'sdk-v2-stdio',
  raw: 'raw-stdio',
};

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1]!;
}

/** Self time per function, summed over every node of that function, as [label, ms] sorted. */
export function hottest(profile: CpuProfile): { total: number; rows: [string, number][] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const file = frame.url
      .replace(/^file:\/\//, '')
      .replace(/^.*\/node_modules\//, '')
      .replace(/^.*\/build\//, '');
    const label = `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
    self.set(label, (self.get(label) ?? 0) + dt);
    total += dt;
  });
  return { total, rows: [...self.entries()].sort((a, b) => b[1] - a[1]) };
}

const HTTP_SERVERS: Record<string, { fixture: string; args: string[] }> = {
  switchboard: { fixture: 'switchboard-http', args: [] },
  'sdk-v1': { fixture: 'sdk-v1-http', args: ['--mode', 'sessions'] },
  'sdk-v2': { fixture: 'sdk-v2-http', args: ['--mode', 'sessions'] },
  tmcp: { fixture: 'tmcp-http', args: [] },
  raw: { fixture: 'raw-http', args: [] },
};

async function main(): Promise<void> {
  const transport = option('--transport', 'stdio');
  const side = option('--side', 'server');
  const impl = option('--impl', 'switchboard');
  const era = option('--era', 'legacy') as Era;
  const inFlight = Number(option('--in-flight', '64'));
  const ms = Number(option('--ms', '4000'));
  const top = Number(option('--top', '25'));
  const fetch = option('--fetch', 'node') as FetchKind;
  const gateway = process.argv.includes('--gateway');
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-prof-'));
  const prof = ['--cpu-prof', '--cpu-prof-dir', dir];
  const client = (side === 'client' ? impl : 'raw') as ClientKind;
  const load = {
    type: 'load' as const,
    client,
    era,
    tool: 'echo' as const,
    ...(gateway ? { toolName: 'up__echo' } : {}),
    inFlight,
    fetch,
    warmupMs: 500,
    durationMs: ms,
  };
  let result: LoadResult;
  if (transport === 'http') {
    const named = option('--fixture', '');
    const upstream = gateway ? await startServer('switchboard-http', []) : undefined;
    const spec = upstream
      ? { fixture: 'gateway-http', args: ['http', upstream.url] }
      : named
        ? { fixture: named, args: [] }
        : HTTP_SERVERS[side === 'server' ? impl : 'raw']!;
    const server = await startServer(spec.fixture, spec.args, 20_000, side === 'server' ? prof : []);
    try {
      result = await runJob<LoadResult>(
        { ...load, target: { kind: 'http', url: server.url }, serverPid: server.pid },
        ms + 60_000,
        undefined,
        side === 'client' ? prof : [],
      );
    } finally {
      await server.stop();
      await upstream?.stop();
    }
  } else {
    const server = gateway ? 'gateway-stdio' : side === 'server' ? SERVERS[impl]! : 'raw-stdio';
    const args = [...(side === 'server' ? prof : []), fixture(server), ...(gateway ? ['stdio'] : [])];
    result = await runJob<LoadResult>(
      { ...load, target: { kind: 'stdio', command: process.execPath, args } },
      ms + 60_000,
      undefined,
      side === 'client' ? prof : [],
    );
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile was written to ${dir}`);
  const { total, rows } = hottest(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
  process.stdout.write(
    `${impl} ${side} over ${transport} (${era}, ${inFlight} in flight): ${Math.round(result.callsPerSecond)} calls/s, ` +
      `client ${result.clientCpuUsPerCall.toFixed(1)} us/call, server ${result.serverCpuUsPerCall?.toFixed(1)} us/call\n` +
      `profile: ${join(dir, file)} (${total.toFixed(0)} ms of non-idle samples, whole process lifetime)\n\n`,
  );
  for (const [label, t] of rows.slice(0, top)) {
    process.stdout.write(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${label}\n`);
  }
}

await main();

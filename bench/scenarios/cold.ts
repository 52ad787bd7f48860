/**
 * Cold start: how long a minimal stdio server (one tool) takes from spawn to its first answer, against
 * a bare Node script answering the same line (`raw`, fixture cold-bare), and how long importing the
 * library takes. Switchboard runs as users get it (the bundles of build/dist) and, for comparison,
 * from tsc's unbundled modules (`switchboard-unbundled`: the same file importing build/src).
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fixture } from '../lib/harness.js';
import { record, row, type Section, section } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import type { ColdServer } from '../worker.js';
import { type Context, cell, inTurn } from './common.js';

/** tsc's module of a `switchboard` specifier: what its bundle is made from (build/src). */
const tscModule = (specifier: string): string =>
  new URL(
    `../../src/${specifier === 'switchboard' ? 'index' : specifier.slice('switchboard/'.length)}.js`,
    import.meta.url,
  ).href;

/**
 * The cold server on tsc's modules: its fixture with each `switchboard` import pointing at the module
 * the bundle is made from, written beside it. No resolve hook: a hook's thread would count in the row.
 */
function writeUnbundledFixture(): void {
  const source = readFileSync(fixture('cold-switchboard'), 'utf8');
  writeFileSync(
    fixture('cold-switchboard-unbundled'),
    source.replace(
      /(from ')(switchboard(?:\/[a-z]+)?)(')/g,
      (_, from, specifier, quote) => `${from}${tscModule(specifier)}${quote}`,
    ),
  );
}

interface ServerSpec {
  readonly id: string;
  readonly era: ColdServer['era'];
  readonly fixture: string;
}

const SERVERS: readonly ServerSpec[] = [
  { id: 'switchboard', era: 'legacy', fixture: 'cold-switchboard' },
  // Node's compile cache on, as the CLI has it (Node >= 22.1; on Node 20 the same as `switchboard`).
  { id: 'switchboard-cached', era: 'legacy', fixture: 'cold-switchboard-cached' },
  { id: 'switchboard-modern', era: 'modern', fixture: 'cold-switchboard' },
  { id: 'switchboard-unbundled', era: 'legacy', fixture: 'cold-switchboard-unbundled' },
  { id: 'sdk-v1', era: 'legacy', fixture: 'cold-sdk-v1' },
  { id: 'sdk-v2', era: 'legacy', fixture: 'cold-sdk-v2' },
  { id: 'sdk-v2-modern', era: 'modern', fixture: 'cold-sdk-v2' },
  { id: 'raw', era: 'legacy', fixture: 'cold-bare' },
];

const serversOn = (node: string): ColdServer[] =>
  SERVERS.map(({ id, era, fixture: name }) => ({
    id,
    era,
    target: { kind: 'stdio', command: node, args: [fixture(name)] },
  }));

/** What each implementation's server imports before it can answer (and node's arguments for it). */
const IMPORTS: readonly { id: string; specifiers: readonly string[] }[] = [
  { id: 'switchboard', specifiers: ['switchboard', 'switchboard/stdio'] },
  { id: 'switchboard-unbundled', specifiers: ['switchboard', 'switchboard/stdio'].map(tscModule) },
  {
    id: 'sdk-v1',
    specifiers: [
      '@modelcontextprotocol/sdk/server/mcp.js',
      '@modelcontextprotocol/sdk/server/stdio.js',
      'zod',
    ],
  },
  { id: 'sdk-v2', specifiers: ['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio', 'zod'] },
  { id: 'raw', specifiers: [] },
];

const execFileAsync = promisify(execFile);

/**
 * One section per Node binary: the one running the bench, then each of `ctx.nodes` (run.ts's
 * `--node`; by default the full run adds Node 24 when it runs on another version, and Node 20
 * when it runs on 24). Every server and import of a section runs on that section's binary.
 */
export async function coldSections(ctx: Context): Promise<Section[]> {
  writeUnbundledFixture();
  const sections: Section[] = [];
  for (const node of [process.execPath, ...(ctx.nodes ?? [])]) sections.push(await coldSection(ctx, node));
  return sections;
}

async function coldSection(ctx: Context, node: string): Promise<Section> {
  const { config } = ctx;
  const { stdout: version } = await execFileAsync(node, ['--version'], { encoding: 'utf8' });
  const servers = serversOn(node);
  const cold = section(
    `stdio cold start on Node ${version.trim()}: a minimal server (one tool) answering its first request`,
    servers.map((s) => s.id),
    'raw',
  );
  for (let run = 0; run < config.runs; run++) {
    ctx.log(`stdio cold start on Node ${version.trim()}, run ${run + 1}/${config.runs}`);
    const result = await cell<Record<string, number[]>>(ctx, 'cold starts', {
      type: 'cold',
      client: 'raw',
      servers,
      iterations: config.coldIterations,
    });
    for (const { id } of servers) {
      // The first round warms the disk cache and is not counted.
      const ms = result?.[id]?.slice(1).sort((a, b) => a - b);
      record(row(cold, 'spawn to first answer p50', 'ms', 'lower'), id, run, ms && median(ms));
      record(row(cold, 'spawn to first answer p90', 'ms', 'lower'), id, run, ms && percentile(ms, 90));
    }
    await inTurn(ctx, IMPORTS, run, async ({ id, specifiers }) => {
      const args = [fixture('import-time'), ...specifiers];
      const { stdout } = await execFileAsync(node, args, { encoding: 'utf8' });
      record(row(cold, 'import of the library', 'ms', 'lower', true), id, run, JSON.parse(stdout).ms);
    });
  }
  cold.notes.push(
    'spawn to first answer: one load client (the raw one, so only the servers differ) spawns each server ' +
      'and times until it holds the answer to `initialize` (`-modern`: `server/discover`); ' +
      `${config.coldIterations} rounds, each starting every server once in an order ` +
      'rotated from round to round and reversed every other round; the first round warms the disk cache ' +
      'and is dropped. Each server is one file with one tool: raw JSON Schema for Switchboard, zod for the ' +
      'SDKs (as their documentation writes tools); `raw` is a bare Node script answering the same line.',
    '`switchboard`: the package as shipped (bundles, build/dist); `switchboard-unbundled`: the same server ' +
      "on tsc's modules (build/src), one file per source module; `switchboard-cached`: the shipped server " +
      "with Node's compile cache on (`module.enableCompileCache()`, as the CLI does; Node >= 22.1, so on " +
      'Node 20 it is the plain server), warmed by the dropped first round.',
    'import: a fresh `node` importing only the library (no server made); `raw` imports nothing.',
  );
  return cold;
}

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

const server = (id: string, era: ColdServer['era'], name: string): ColdServer => ({
  id,
  era,
  target: { kind: 'stdio', command: process.execPath, args: [fixture(name)] },
});

const SERVERS: readonly ColdServer[] = [
  server('switchboard', 'legacy', 'cold-switchboard'),
  server('switchboard-modern', 'modern', 'cold-switchboard'),
  server('switchboard-unbundled', 'legacy', 'cold-switchboard-unbundled'),
  server('sdk-v1', 'legacy', 'cold-sdk-v1'),
  server('sdk-v2', 'legacy', 'cold-sdk-v2'),
  server('sdk-v2-modern', 'modern', 'cold-sdk-v2'),
  server('raw', 'legacy', 'cold-bare'),
];

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

export async function coldSections(ctx: Context): Promise<Section[]> {
  writeUnbundledFixture();
  const { config } = ctx;
  const cold = section(
    'stdio cold start: a minimal server (one tool) answering its first request',
    SERVERS.map((s) => s.id),
    'raw',
  );
  for (let run = 0; run < config.runs; run++) {
    ctx.log(`stdio cold start, run ${run + 1}/${config.runs}`);
    const result = await cell<Record<string, number[]>>(ctx, 'cold starts', {
      type: 'cold',
      client: 'raw',
      servers: SERVERS,
      iterations: config.coldIterations,
    });
    for (const { id } of SERVERS) {
      // The first round warms the disk cache and is not counted.
      const ms = result?.[id]?.slice(1).sort((a, b) => a - b);
      record(row(cold, 'spawn to first answer p50', 'ms', 'lower'), id, run, ms && median(ms));
      record(row(cold, 'spawn to first answer p90', 'ms', 'lower'), id, run, ms && percentile(ms, 90));
    }
    await inTurn(ctx, IMPORTS, run, async ({ id, specifiers }) => {
      const args = [fixture('import-time'), ...specifiers];
      const { stdout } = await execFileAsync(process.execPath, args, { encoding: 'utf8' });
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
      "on tsc's modules (build/src), one file per source module.",
    'import: a fresh `node` importing only the library (no server made); `raw` imports nothing.',
  );
  return [cold];
}

/**
 * The stdio scenarios. Each implementation is a load client spawning its own fixture server over
 * pipes; `raw` is the limit (no MCP library on either side) every ratio divides by.
 */
import type { ClientKind, Era, Target } from '../clients/types.js';
import { fixture } from '../lib/harness.js';
import { record, row, type Section, section } from '../lib/report.js';
import type { LoadResult } from '../worker.js';
import { type Context, cell, inTurn, recordAlone, recordLoad } from './common.js';

interface Impl {
  readonly id: string;
  readonly client: ClientKind;
  readonly era: Era;
  readonly server: string;
}

const IMPLS: readonly Impl[] = [
  { id: 'switchboard', client: 'switchboard', era: 'legacy', server: 'switchboard-stdio' },
  { id: 'switchboard-modern', client: 'switchboard', era: 'modern', server: 'switchboard-stdio' },
  { id: 'sdk-v1', client: 'sdk-v1', era: 'legacy', server: 'sdk-v1-stdio' },
  { id: 'sdk-v2', client: 'sdk-v2', era: 'legacy', server: 'sdk-v2-stdio' },
  { id: 'sdk-v2-modern', client: 'sdk-v2', era: 'modern', server: 'sdk-v2-stdio' },
  { id: 'raw', client: 'raw', era: 'legacy', server: 'raw-stdio' },
];

/** The one-side-alone cells: each library's client against the raw server, and its server under the raw client. */
const SIDES: readonly { id: string; client: ClientKind; server: string }[] = [
  { id: 'switchboard', client: 'switchboard', server: 'switchboard-stdio' },
  { id: 'sdk-v1', client: 'sdk-v1', server: 'sdk-v1-stdio' },
  { id: 'sdk-v2', client: 'sdk-v2', server: 'sdk-v2-stdio' },
];

const stdio = (server: string, extra: readonly string[] = []): Target => ({
  kind: 'stdio',
  command: process.execPath,
  args: [fixture(server), ...extra],
});

const KB = (n: number) => (n >= 1e6 ? `${n / 1e6} MB` : `${n / 1e3} KB`);

export async function stdioSections(ctx: Context): Promise<Section[]> {
  const { config } = ctx;
  const main = section(
    'stdio: client + server of each implementation',
    IMPLS.map((i) => i.id),
    'raw',
  );
  const sides = section(
    `stdio: one side alone, ${config.inFlight} calls in flight (client x server matrix)`,
    [...SIDES.map((s) => s.id), 'raw'],
    'raw',
  );
  const runs = config.runs;

  const each = async (title: string, body: (impl: Impl, run: number) => Promise<void>, times = runs) => {
    for (let run = 0; run < times; run++) {
      ctx.log(`stdio ${title}, run ${run + 1}/${times}`);
      await inTurn(ctx, IMPLS, run, (impl) => body(impl, run));
    }
  };
  const load = { warmupMs: config.load.warmupMs, durationMs: config.load.durationMs };
  const spec = (impl: Impl, server = impl.server, extra: readonly string[] = []) => ({
    client: impl.client,
    era: impl.era,
    target: stdio(server, extra),
  });

  await each(
    'sequential echo',
    async (impl, run) => {
      const result = await cell<LoadResult>(ctx, `${impl.id} seq`, {
        type: 'load',
        ...spec(impl),
        tool: 'echo',
        inFlight: 1,
        ...load,
      });
      recordLoad(main, 'seq', impl.id, run, result);
    },
    config.load.runs,
  );

  await each(
    `${config.inFlight} in flight echo`,
    async (impl, run) => {
      const result = await cell<LoadResult>(ctx, `${impl.id} conc`, {
        type: 'load',
        ...spec(impl),
        tool: 'echo',
        inFlight: config.inFlight,
        ...load,
      });
      recordLoad(main, `${config.inFlight} in flight`, impl.id, run, result);
    },
    config.load.runs,
  );

  await each(
    'sequential add (structured output)',
    async (impl, run) => {
      const result = await cell<LoadResult>(ctx, `${impl.id} add`, {
        type: 'load',
        ...spec(impl),
        tool: 'add',
        inFlight: 1,
        ...load,
      });
      recordLoad(main, 'seq add', impl.id, run, result, { client: true, server: true });
    },
    config.load.runs,
  );

  await each('echo payloads', async (impl, run) => {
    const result = await cell<{ ms: number[] }>(ctx, `${impl.id} payload`, {
      type: 'payload',
      ...spec(impl),
      sizes: config.payload.sizes,
      reps: config.payload.reps,
    });
    config.payload.sizes.forEach((size, i) => {
      record(row(main, `echo ${KB(size)} round trip p50`, 'ms', 'lower'), impl.id, run, result?.ms[i]);
    });
  });

  const tools = config.list.tools;
  await each(`tools/list of ${tools} tools`, async (impl, run) => {
    const result = await cell<LoadResult>(ctx, `${impl.id} list`, {
      type: 'list',
      ...spec(impl, impl.server, ['--tools', String(tools)]),
      expectTools: tools + 2,
      warmupMs: config.list.warmupMs,
      durationMs: config.list.durationMs,
    });
    const label = `tools/list of ${tools.toLocaleString('en-US')} tools`;
    record(
      row(main, `${label}: lists per second`, 'lists/s', 'higher'),
      impl.id,
      run,
      result?.callsPerSecond,
    );
    record(
      row(main, `${label}: server CPU per list`, 'us', 'lower'),
      impl.id,
      run,
      result?.serverCpuUsPerCall,
    );
  });

  for (let run = 0; run < runs; run++) {
    ctx.log(`stdio one side alone, run ${run + 1}/${runs}`);
    const load = {
      type: 'load' as const,
      tool: 'echo' as const,
      inFlight: config.inFlight,
      ...config.matrix,
    };
    const raw = await cell<LoadResult>(ctx, 'raw client x raw server', {
      ...load,
      client: 'raw',
      era: 'legacy',
      target: stdio('raw-stdio'),
    });
    recordAlone(sides, 'client', 'raw', run, raw);
    recordAlone(sides, 'server', 'raw', run, raw);
    await inTurn(ctx, SIDES, run, async (side) => {
      const client = await cell<LoadResult>(ctx, `${side.id} client x raw server`, {
        ...load,
        client: side.client,
        era: 'legacy',
        target: stdio('raw-stdio'),
      });
      recordAlone(sides, 'client', side.id, run, client);
      const server = await cell<LoadResult>(ctx, `raw client x ${side.id} server`, {
        ...load,
        client: 'raw',
        era: 'legacy',
        target: stdio(side.server),
      });
      recordAlone(sides, 'server', side.id, run, server);
    });
  }

  main.notes.push(
    '`switchboard`, `sdk-v1`, `sdk-v2`: the legacy era (2025-11-25, `initialize`); `-modern`: 2026-07-28 ' +
      '(`server/discover`, the `_meta` envelope on every request). `raw`: no MCP library on either side ' +
      '(newline-delimited JSON-RPC, `JSON.parse`/`JSON.stringify`, one write per message).',
    'seq: one call in flight; echo of `"hello"`. CPU per call: user+system time of the load-client process ' +
      '(`process.cpuUsage`) and of the server process (`/proc/PID/stat`) over the measured window, divided by calls.',
    `tools/list: ${tools} extra tools (plus echo and add) in one page for everyone (Switchboard's pageSize raised).`,
  );
  sides.notes.push(
    "`client alone`: the implementation's client against the raw server (isolates client cost); " +
      "`server alone`: the raw client against the implementation's server. `raw` = raw client x raw server.",
  );
  return [main, sides];
}

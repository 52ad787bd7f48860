/**
 * The HTTP scenarios (Streamable HTTP). Each cell starts a fresh fixture server process, then a load
 * client process against it, so no cell inherits another's sessions or garbage.
 *
 * Two eras, two tables: legacy (2025-11-25 sessions, `initialize`) and modern (2026-07-28, stateless).
 * Columns pair a client with a server; tmcp has no client, so the raw client drives it. A "one side
 * alone" table per era pairs each library's client with the raw server and the raw client with each
 * library's server.
 */
import type { ClientKind, Era } from '../clients/types.js';
import { JobError, type MemoryReport, type ServerProcess, startServer } from '../lib/harness.js';
import { record, row, type Section, section } from '../lib/report.js';
import type { ClientSpec, Job, LoadResult } from '../worker.js';
import { type Context, cell, inTurn, recordAlone, recordLoad } from './common.js';

interface ServerSpec {
  readonly fixture: string;
  readonly args: readonly string[];
}

interface Column {
  readonly id: string;
  readonly client: ClientKind;
  readonly era: Era;
  readonly server: ServerSpec;
}

type EraName = 'legacy' | 'modern';

const SERVERS: Record<EraName, Record<string, ServerSpec>> = {
  legacy: {
    switchboard: { fixture: 'switchboard-http', args: [] },
    'sdk-v1': { fixture: 'sdk-v1-http', args: ['--mode', 'sessions'] },
    'sdk-v2': { fixture: 'sdk-v2-http', args: ['--mode', 'sessions'] },
    tmcp: { fixture: 'tmcp-http', args: [] },
    raw: { fixture: 'raw-http', args: [] },
  },
  modern: {
    switchboard: { fixture: 'switchboard-http', args: [] },
    'sdk-v1': { fixture: 'sdk-v1-http', args: ['--mode', 'stateless'] },
    'sdk-v2': { fixture: 'sdk-v2-http', args: ['--mode', 'stateless'] },
    tmcp: { fixture: 'tmcp-http', args: [] },
    raw: { fixture: 'raw-http', args: [] },
  },
};

/** Each column's own client (tmcp has none: the raw client stands in). */
const CLIENT: Record<string, ClientKind> = {
  switchboard: 'switchboard',
  'sdk-v1': 'sdk-v1',
  'sdk-v2': 'sdk-v2',
  tmcp: 'raw',
  raw: 'raw',
};

const COLUMN_IDS = ['switchboard', 'sdk-v1', 'sdk-v2', 'tmcp', 'raw'] as const;

/** The era a column's client speaks in `eraName`: v1 has no modern era and is served statelessly instead. */
const eraFor = (id: string, eraName: EraName): Era =>
  eraName === 'modern' && id !== 'sdk-v1' ? 'modern' : 'legacy';

function columns(eraName: EraName): Column[] {
  return COLUMN_IDS.map((id) => ({
    id,
    client: CLIENT[id]!,
    era: eraFor(id, eraName),
    server: SERVERS[eraName][id]!,
  }));
}

export async function httpSections(ctx: Context): Promise<Section[]> {
  const { config } = ctx;

  /** Starts `server`, runs `body` against it, stops it. Undefined (a failed cell) when it cannot start. */
  const withServer = async <T>(
    what: string,
    server: ServerSpec,
    body: (running: ServerProcess) => Promise<T | undefined>,
  ): Promise<T | undefined> => {
    let running: ServerProcess;
    try {
      running = await startServer(server.fixture, server.args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      ctx.failures.push(`${what}: ${message}`);
      ctx.log(`  ${what} FAILED: ${message}`);
      return undefined;
    }
    try {
      return await body(running);
    } finally {
      await running.stop();
    }
  };

  /** One load-type cell: `client` in `era` against a fresh `server`. */
  const loadCell = <T>(
    what: string,
    client: ClientKind,
    era: Era,
    server: ServerSpec,
    job: (base: Pick<ClientSpec, 'client' | 'era' | 'target' | 'serverPid'>) => Job,
  ): Promise<T | undefined> => {
    return withServer(what, server, (running) =>
      cell<T>(
        ctx,
        what,
        job({ client, era, target: { kind: 'http', url: running.url }, serverPid: running.pid }),
      ),
    );
  };

  const sections: Section[] = [];
  for (const eraName of ['legacy', 'modern'] as const) {
    const cols = columns(eraName);
    const title =
      eraName === 'legacy'
        ? 'HTTP legacy (2025-11-25 sessions): client + server of each implementation'
        : 'HTTP modern (2026-07-28, stateless): client + server of each implementation';
    const main = section(title, COLUMN_IDS, 'raw');
    const sides = section(
      `HTTP ${eraName}: one side alone, ${config.inFlight} calls in flight (client x server matrix)`,
      COLUMN_IDS,
      'raw',
    );
    const runs = config.runs;
    const each = async (what: string, body: (col: Column, run: number) => Promise<void>) => {
      for (let run = 0; run < runs; run++) {
        ctx.log(`HTTP ${eraName} ${what}, run ${run + 1}/${runs}`);
        await inTurn(ctx, cols, run, (col) => body(col, run));
      }
    };
    const load = (inFlight: number) => ({
      type: 'load' as const,
      tool: 'echo' as const,
      inFlight,
      warmupMs: config.http.warmupMs,
      durationMs: config.http.durationMs,
    });

    await each('sequential echo', async (col, run) => {
      const result = await loadCell<LoadResult>(`${col.id} seq`, col.client, col.era, col.server, (base) => ({
        ...base,
        ...load(1),
      }));
      recordLoad(main, 'seq', col.id, run, result);
    });

    await each(`${config.inFlight} in flight echo`, async (col, run) => {
      const result = await loadCell<LoadResult>(
        `${col.id} conc`,
        col.client,
        col.era,
        col.server,
        (base) => ({
          ...base,
          ...load(config.inFlight),
        }),
      );
      recordLoad(main, `${config.inFlight} in flight`, col.id, run, result);
    });

    const clients = config.http.mixClients;
    await each(`${clients} clients, tools/list + 9 tools/call`, async (col, run) => {
      const result = await loadCell<LoadResult>(`${col.id} mix`, col.client, col.era, col.server, (base) => ({
        ...base,
        type: 'mix',
        clients,
        warmupMs: config.http.warmupMs,
        durationMs: config.http.durationMs,
      }));
      const label = `${clients} clients (1 tools/list : 9 tools/call)`;
      record(row(main, `${label}: throughput`, 'calls/s', 'higher'), col.id, run, result?.callsPerSecond);
      record(row(main, `${label}: latency p50`, 'us', 'lower'), col.id, run, result?.p50Us);
      record(
        row(main, `${label}: server CPU per call`, 'us', 'lower'),
        col.id,
        run,
        result?.serverCpuUsPerCall,
      );
    });

    if (eraName === 'legacy') {
      const { warm, count } = config.http.sessions;
      /** Opens `count` sessions with `client` and reports the server's memory growth per session. */
      const sessions = async (what: string, client: ClientKind, server: ServerSpec) => {
        return withServer(what, server, async (running) => {
          let before: MemoryReport | undefined;
          let after: MemoryReport | undefined;
          const result = await cell<{ initP50Ms: number }>(
            ctx,
            what,
            {
              type: 'sessions',
              client,
              era: 'legacy',
              target: { kind: 'http', url: running.url },
              warm,
              count,
            },
            async (step) => {
              if (step === 'warm') before = await running.memory();
              else if (step === 'opened') after = await running.memory();
              else throw new JobError(`unexpected step ${step}`);
            },
          );
          if (!result || !before || !after) return undefined;
          return {
            initP50Ms: result.initP50Ms,
            rssPerSession: (after.rss - before.rss) / count,
            heapPerSession: (after.heapUsed + after.external - before.heapUsed - before.external) / count,
          };
        });
      };
      await each(`${count} sessions`, async (col, run) => {
        const result = await sessions(`${col.id} sessions`, col.client, col.server);
        record(
          row(main, 'sessions: server memory per session', 'B', 'lower'),
          col.id,
          run,
          result?.rssPerSession,
        );
        record(
          row(main, 'sessions: server heap per session', 'B', 'lower'),
          col.id,
          run,
          result?.heapPerSession,
        );
        record(row(main, 'sessions: initialize p50', 'ms', 'lower'), col.id, run, result?.initP50Ms);
      });
      await each(`${count} sessions, raw client`, async (col, run) => {
        if (col.id === 'tmcp' || col.id === 'raw') {
          // Their own cells above already used the raw client.
          for (const metric of ['server memory per session', 'server heap per session']) {
            const source = main.rows.find((r) => r.metric === `sessions: ${metric}`)?.values.get(col.id)?.[
              run
            ];
            record(row(sides, `server alone: sessions, ${metric}`, 'B', 'lower'), col.id, run, source);
          }
          return;
        }
        const result = await sessions(`raw client x ${col.id} sessions`, 'raw', col.server);
        record(
          row(sides, 'server alone: sessions, server memory per session', 'B', 'lower'),
          col.id,
          run,
          result?.rssPerSession,
        );
        record(
          row(sides, 'server alone: sessions, server heap per session', 'B', 'lower'),
          col.id,
          run,
          result?.heapPerSession,
        );
      });
    }

    // One side alone: each client against the raw server, the raw client against each server.
    for (let run = 0; run < runs; run++) {
      ctx.log(`HTTP ${eraName} one side alone, run ${run + 1}/${runs}`);
      const conc = load(config.inFlight);
      const rawServer = SERVERS[eraName].raw!;
      const raw = await loadCell<LoadResult>(
        'raw client x raw server',
        'raw',
        eraFor('raw', eraName),
        rawServer,
        (base) => ({
          ...base,
          ...conc,
        }),
      );
      recordAlone(sides, 'client', 'raw', run, raw);
      recordAlone(sides, 'server', 'raw', run, raw);
      await inTurn(
        ctx,
        cols.filter((c) => c.id !== 'raw'),
        run,
        async (col) => {
          if (col.client !== 'raw' && !(eraName === 'modern' && col.id === 'sdk-v1')) {
            const client = await loadCell<LoadResult>(
              `${col.id} client x raw server`,
              col.client,
              col.era,
              rawServer,
              (base) => ({
                ...base,
                ...conc,
              }),
            );
            recordAlone(sides, 'client', col.id, run, client);
          }
          const server = await loadCell<LoadResult>(
            `raw client x ${col.id} server`,
            'raw',
            col.era,
            col.server,
            (base) => ({
              ...base,
              ...conc,
            }),
          );
          recordAlone(sides, 'server', col.id, run, server);
        },
      );
    }

    main.notes.push(
      eraName === 'legacy'
        ? "Columns pair each library's client with its server, one session per client (SDK servers: a session map with " +
            'one server + transport per session, as in their examples). `tmcp`: the tmcp server driven by the raw client ' +
            '(tmcp has no client). `raw`: `node:http` keep-alive client and server, no MCP library.'
        : "Columns pair each library's client with its server on 2026-07-28 (`_meta` envelope, `Mcp-Method`/`Mcp-Name` " +
            'headers, no session). `sdk-v1` has no 2026-07-28 era: its column is the v1 client on a stateless v1 server ' +
            "(a new McpServer + transport per request, the SDK's stateless example). `sdk-v2`: `createMcpHandler` + " +
            '`toNodeHandler`. `tmcp`: driven by the raw client.',
      `mix: ${clients} clients in one load process, each with one request in flight, cycling tools/list then nine ` +
        'tools/call (echo and add alternating).',
    );
    if (eraName === 'legacy') {
      main.notes.push(
        `sessions: ${config.http.sessions.count} sessions opened one after another (each a new client: initialize + ` +
          'initialized, and whatever streams the client opens) and kept open; server memory after a forced GC, ' +
          `(after - before) / ${config.http.sessions.count}. "memory" is RSS, "heap" is V8 heap + external.`,
      );
    }
    sides.notes.push(
      "`client alone`: each library's client against the raw server; `server alone`: the raw client against each " +
        "library's server. `raw` = raw client x raw server.",
    );
    sections.push(main, sides);
  }
  return sections;
}

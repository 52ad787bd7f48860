/**
 * The gateway's cost: the same load client calls the Switchboard fixture's `echo` directly and through
 * one gateway hop (`up__echo`), with the upstream over stdio and over HTTP, from a legacy client (the
 * gateway serves it in its own upstream session, as in production) and from a 2026-07-28 client (no
 * session: the gateway's own upstream session carries its calls). The `relay` column is the floor of
 * any hop: over stdio a process that copies bytes both ways and parses nothing, over HTTP a
 * `node:http` server passing each request on with `nodeFetch` (an HTTP server plus an HTTP client).
 * Over stdio, the `parse relay` column is the floor of a hop that reads what it forwards: each frame
 * parsed, its request id rewritten, serialized again, both ways.
 *
 * From outside (issue 21): one stdio server bridged to Streamable HTTP, one session, by the gateway
 * and by the proxies people use today (`mcp-proxy`, `supergateway`), against Switchboard's own HTTP
 * server answering the same call with no hop. The serving CPU per call is the hop's plus its
 * upstream's (the stdio server it spawned).
 *
 * And the library alone over stdio at 64 in flight (both eras against the raw pair), so that one
 * `--only gateway` run holds every figure issue 21's targets name (see gateway-targets.ts).
 */
import type { Era } from '../clients/types.js';
import { fixture, type ServerProcess, startServer } from '../lib/harness.js';
import { record, row, type Section, section } from '../lib/report.js';
import type { ClientSpec, LoadResult } from '../worker.js';
import { type Context, cell, inTurn, recordLoad } from './common.js';

const node = (script: string, args: readonly string[] = []): ClientSpec['target'] => ({
  kind: 'stdio',
  command: process.execPath,
  args: [fixture(script), ...args],
});

/** The columns both transports measure. */
type RelayPath = 'direct' | 'gateway' | 'relay';
type Path = RelayPath | 'parse relay';
/**
 * Both transports also measure the floor of any hop: over stdio a relay that copies bytes and
 * parses nothing; over HTTP a `node:http` server passing each request on with `nodeFetch`.
 */
const RELAY_PATHS: readonly RelayPath[] = ['direct', 'gateway', 'relay'];
/**
 * Over stdio, also the floor of a hop that must read each message (as a gateway must, to rewrite
 * ids): a relay that parses, rewrites the id and serializes every frame, both ways.
 */
const STDIO_PATHS: readonly Path[] = [...RELAY_PATHS, 'parse relay'];
/** The stdio fixture each stdio path spawns. */
const STDIO_TARGETS: Record<Path, ClientSpec['target']> = {
  direct: node('switchboard-stdio'),
  gateway: node('gateway-stdio', ['stdio']),
  relay: node('relay-stdio'),
  'parse relay': node('relay-parse-stdio'),
};
/** The downstream clients' eras, as the rows name them. */
export const ERAS: readonly { readonly era: Era; readonly label: string }[] = [
  { era: 'legacy', label: 'legacy' },
  { era: 'modern', label: '2026-07-28' },
];

/** From outside: what serves Streamable HTTP, bridging the stdio fixture (or, `no hop`, being it). */
type Bridge = 'no hop' | 'bridge floor' | 'gateway' | 'mcp-proxy' | 'supergateway';
const BRIDGES: readonly Bridge[] = ['no hop', 'bridge floor', 'gateway', 'mcp-proxy', 'supergateway'];
const BRIDGE_SERVERS: Record<Bridge, { fixture: string; args: string[]; tool: string }> = {
  'no hop': { fixture: 'switchboard-http', args: [], tool: 'echo' },
  'bridge floor': { fixture: 'relay-bridge', args: [], tool: 'echo' },
  gateway: { fixture: 'gateway-http', args: ['stdio'], tool: 'up__echo' },
  'mcp-proxy': { fixture: 'proxy-bridge', args: ['mcp-proxy'], tool: 'echo' },
  supergateway: { fixture: 'proxy-bridge', args: ['supergateway'], tool: 'echo' },
};

/** The library alone: Switchboard client + server in each era, and the raw pair they are divided by. */
const LIBRARY = [
  { id: 'switchboard', client: 'switchboard', era: 'legacy', server: 'switchboard-stdio' },
  { id: 'switchboard-modern', client: 'switchboard', era: 'modern', server: 'switchboard-stdio' },
  { id: 'raw', client: 'raw', era: 'legacy', server: 'raw-stdio' },
] as const;

export const SECTIONS = {
  stdio: 'gateway: stdio upstream, one hop vs direct',
  http: 'gateway: HTTP upstream, one hop vs direct',
  outside: 'gateway: from outside, one stdio server bridged to Streamable HTTP',
  library: 'gateway run: the library alone over stdio, 64 in flight',
} as const;

export async function gatewaySections(ctx: Context): Promise<Section[]> {
  const { config } = ctx;
  const stdio = section(SECTIONS.stdio, STDIO_PATHS, 'direct');
  const http = section(SECTIONS.http, RELAY_PATHS, 'direct');
  const load = { warmupMs: config.load.warmupMs, durationMs: config.load.durationMs };

  const measure = async <P extends Path>(
    s: Section,
    label: string,
    paths: readonly P[],
    target: (path: P) => { target: ClientSpec['target']; serverPid?: number },
  ) => {
    for (let run = 0; run < config.runs; run++) {
      ctx.log(`gateway ${label}, run ${run + 1}/${config.runs}`);
      for (const { era, label: eraLabel } of ERAS) {
        for (const [shape, inFlight] of [
          ['seq', 1],
          [`${config.inFlight} in flight`, config.inFlight],
        ] as const) {
          const prefix = `${eraLabel} ${shape}`;
          await inTurn(ctx, paths, run, async (path) => {
            const result = await cell<LoadResult>(ctx, `${label} ${path} ${prefix}`, {
              type: 'load',
              client: 'switchboard',
              era,
              ...target(path),
              tool: 'echo',
              ...(path === 'gateway' ? { toolName: 'up__echo' } : {}),
              inFlight,
              ...load,
            });
            recordLoad(s, prefix, path, run, result, { latency: true, server: true });
            record(
              row(s, `${prefix} upstream CPU per call`, 'us', 'lower', true),
              path,
              run,
              result?.upstreamCpuUsPerCall,
            );
          });
        }
      }
    }
  };

  // stdio: the client spawns the fixture, or the gateway, which spawns the fixture.
  await measure(stdio, 'stdio', STDIO_PATHS, (path) => ({ target: STDIO_TARGETS[path] }));

  // HTTP: one fixture server; the gateway and the relay (each its own process) in front of it.
  let upstream: ServerProcess | undefined;
  let gateway: ServerProcess | undefined;
  let relay: ServerProcess | undefined;
  try {
    upstream = await startServer('switchboard-http', []);
    gateway = await startServer('gateway-http', ['http', upstream.url]);
    relay = await startServer('relay-http', [upstream.url]);
    const servers: Record<RelayPath, ServerProcess> = { direct: upstream, gateway, relay };
    await measure(http, 'http', RELAY_PATHS, (path) => {
      const server = servers[path];
      return { target: { kind: 'http', url: server.url }, serverPid: server.pid };
    });
  } catch (error) {
    ctx.failures.push(`gateway http: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await relay?.stop();
    await gateway?.stop();
    await upstream?.stop();
  }

  const note =
    '`direct`: the Switchboard client and the Switchboard fixture server; `gateway`: the same ' +
    'client through `switchboard/gateway` fronting that server (calls `up__echo`; a legacy ' +
    "client's calls go in its own upstream session, a 2026-07-28 client's on the gateway's). Rows " +
    "by the downstream client's era. Server CPU per call: the process the client talks to (the " +
    'gateway alone in the gateway column); upstream CPU: what that process spawned (the stdio ' +
    'fixture behind the gateway or the relay). Targets: see Targets (issue 21).';
  stdio.notes.push(
    `${note} \`relay\`: the same fixture behind a process that copies bytes both ways and parses ` +
      'nothing, the floor of any stdio hop (two more pipe transfers and a third process). ' +
      '`parse relay`: the same fixture behind a process that, for each frame either way, does ' +
      "`JSON.parse`, rewrites the request id with its own (the client's restored on the answer) " +
      'and `JSON.stringify`, one write per chunk read: the floor of any stdio hop that reads ' +
      'what it forwards, as a gateway must.',
  );
  http.notes.push(
    `${note} \`relay\`: the same server behind a \`node:http\` server that passes each request on ` +
      "with the gateway's own HTTP client (`nodeFetch`) and copies the answer back, parsing no JSON: " +
      'the floor of any HTTP hop in Node (an HTTP server and an HTTP client, two more socket ' +
      'writes and reads per call).',
  );
  return [stdio, http, await fromOutside(ctx), await library(ctx)];
}

/**
 * One stdio server bridged to Streamable HTTP, 64 calls in flight on one legacy session (and one at a
 * time): each bridge is started fresh per run, so none inherits another's sessions or garbage.
 */
async function fromOutside(ctx: Context): Promise<Section> {
  const { config } = ctx;
  const s = section(SECTIONS.outside, BRIDGES, 'no hop');
  const load = { warmupMs: config.load.warmupMs, durationMs: config.load.durationMs };
  for (let run = 0; run < config.runs; run++) {
    ctx.log(`gateway from outside, run ${run + 1}/${config.runs}`);
    await inTurn(ctx, BRIDGES, run, async (bridge) => {
      const spec = BRIDGE_SERVERS[bridge];
      let server: ServerProcess | undefined;
      try {
        server = await startServer(spec.fixture, spec.args);
        for (const [prefix, inFlight] of [
          ['seq', 1],
          [`${config.inFlight} in flight`, config.inFlight],
        ] as const) {
          const result = await cell<LoadResult>(ctx, `outside ${bridge} ${prefix}`, {
            type: 'load',
            client: 'switchboard',
            era: 'legacy',
            target: { kind: 'http', url: server.url },
            serverPid: server.pid,
            tool: 'echo',
            toolName: spec.tool,
            inFlight,
            ...load,
          });
          recordLoad(s, prefix, bridge, run, result, { latency: true });
          const hop = result?.serverCpuUsPerCall;
          const upstream = result?.upstreamCpuUsPerCall;
          const put = (metric: string, value: number | undefined) =>
            record(row(s, `${prefix} ${metric}`, 'us', 'lower'), bridge, run, value);
          put('serving CPU per call (hop + upstream)', hop === undefined ? undefined : hop + (upstream ?? 0));
          put('hop CPU per call', hop);
          put('upstream CPU per call', upstream);
        }
      } catch (error) {
        ctx.failures.push(
          `gateway from outside ${bridge}: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        await server?.stop();
      }
    });
  }
  s.notes.push(
    "`no hop`: Switchboard's own HTTP fixture server answering `echo` (its hop CPU is the whole " +
      "server's; no upstream). `bridge floor`: the least any bridge does (relay-bridge.ts: a " +
      '`node:http` server writing each POST to the stdio fixture as a line and answering with the ' +
      'line of its id, reading only the ids; no MCP), the floor of the other columns. `gateway`: `switchboard/gateway` over HTTP spawning the Switchboard ' +
      'stdio fixture (calls `up__echo`). `mcp-proxy`, `supergateway` (stateful: one stdio child per ' +
      'session): the same stdio fixture behind each proxy. The client: Switchboard, legacy era, one ' +
      'session. Hop CPU: the bridging process; upstream CPU: the processes it spawned.',
  );
  return s;
}

/** The library's own stdio figure at 64 in flight, both eras, against the raw pair of the same runs. */
async function library(ctx: Context): Promise<Section> {
  const { config } = ctx;
  const s = section(
    SECTIONS.library,
    LIBRARY.map((l) => l.id),
    'raw',
  );
  const load = { warmupMs: config.load.warmupMs, durationMs: config.load.durationMs };
  for (let run = 0; run < config.runs; run++) {
    ctx.log(`gateway run: the library alone, run ${run + 1}/${config.runs}`);
    await inTurn(ctx, LIBRARY, run, async (l) => {
      const result = await cell<LoadResult>(ctx, `library ${l.id} ${config.inFlight} in flight`, {
        type: 'load',
        client: l.client,
        era: l.era,
        target: node(l.server),
        tool: 'echo',
        inFlight: config.inFlight,
        ...load,
      });
      recordLoad(s, `${config.inFlight} in flight`, l.id, run, result);
    });
  }
  s.notes.push(
    'The rows of "stdio: client + server" (`npm run bench -- --only stdio`), measured again in the ' +
      'gateway run: `switchboard` legacy era, `switchboard-modern` 2026-07-28, `raw` no MCP library.',
  );
  return s;
}

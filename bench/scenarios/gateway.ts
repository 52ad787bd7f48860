/**
 * The gateway's cost: the same load client calls the Switchboard fixture's `echo` directly and through
 * one gateway hop (`up__echo`), with the upstream over stdio and over HTTP. Legacy era downstream, so
 * the gateway serves each client in its own upstream session, as it does in production. Issue 12's
 * targets: the hop at most 1.25x the direct p50 latency, at least 0.7x the direct throughput with
 * 64 calls in flight.
 *
 * From outside (issue 21): one stdio server bridged to Streamable HTTP, one session, by the gateway
 * and by the proxies people use today (`mcp-proxy`, `supergateway`), against Switchboard's own HTTP
 * server answering the same call with no hop. The serving CPU per call is the hop's plus its
 * upstream's (the stdio server it spawned).
 */
import { fixture, type ServerProcess, startServer } from '../lib/harness.js';
import { record, row, type Section, section } from '../lib/report.js';
import type { ClientSpec, LoadResult } from '../worker.js';
import { type Context, cell, inTurn, recordLoad } from './common.js';

type Path = 'direct' | 'gateway' | 'relay';
const PATHS: readonly Path[] = ['direct', 'gateway'];
/** From outside: what serves Streamable HTTP, bridging the stdio fixture (or, `no hop`, being it). */
type Bridge = 'no hop' | 'gateway' | 'mcp-proxy' | 'supergateway';
const BRIDGES: readonly Bridge[] = ['no hop', 'gateway', 'mcp-proxy', 'supergateway'];
const BRIDGE_SERVERS: Record<Bridge, { fixture: string; args: string[]; tool: string }> = {
  'no hop': { fixture: 'switchboard-http', args: [], tool: 'echo' },
  gateway: { fixture: 'gateway-http', args: ['stdio'], tool: 'up__echo' },
  'mcp-proxy': { fixture: 'proxy-bridge', args: ['mcp-proxy'], tool: 'echo' },
  supergateway: { fixture: 'proxy-bridge', args: ['supergateway'], tool: 'echo' },
};
/** stdio also measures the floor of any hop: a relay that copies bytes and parses nothing. */
const STDIO_PATHS: readonly Path[] = ['direct', 'gateway', 'relay'];

const node = (script: string, args: readonly string[] = []): ClientSpec['target'] => ({
  kind: 'stdio',
  command: process.execPath,
  args: [fixture(script), ...args],
});

export async function gatewaySections(ctx: Context): Promise<Section[]> {
  const { config } = ctx;
  const stdio = section('gateway: stdio upstream, one hop vs direct', STDIO_PATHS, 'direct');
  const http = section('gateway: HTTP upstream, one hop vs direct', PATHS, 'direct');
  const load = { warmupMs: config.load.warmupMs, durationMs: config.load.durationMs };

  const measure = async (
    s: Section,
    label: string,
    paths: readonly Path[],
    target: (path: Path) => ClientSpec['target'],
  ) => {
    for (let run = 0; run < config.load.runs; run++) {
      ctx.log(`gateway ${label}, run ${run + 1}/${config.load.runs}`);
      for (const [prefix, inFlight] of [
        ['seq', 1],
        [`${config.inFlight} in flight`, config.inFlight],
      ] as const) {
        await inTurn(ctx, paths, run, async (path) => {
          const result = await cell<LoadResult>(ctx, `${label} ${path} ${prefix}`, {
            type: 'load',
            client: 'switchboard',
            era: 'legacy',
            target: target(path),
            tool: 'echo',
            ...(path === 'gateway' ? { toolName: 'up__echo' } : {}),
            inFlight,
            ...load,
          });
          recordLoad(s, prefix, path, run, result, { latency: true, server: true });
        });
      }
    }
  };

  // stdio: the client spawns the fixture, or the gateway, which spawns the fixture.
  await measure(stdio, 'stdio', STDIO_PATHS, (path) =>
    path === 'direct'
      ? node('switchboard-stdio')
      : path === 'relay'
        ? node('relay-stdio')
        : node('gateway-stdio', ['stdio']),
  );

  // HTTP: one fixture server; the gateway (its own process) in front of it.
  let upstream: ServerProcess | undefined;
  let gateway: ServerProcess | undefined;
  try {
    upstream = await startServer('switchboard-http', []);
    gateway = await startServer('gateway-http', ['http', upstream.url]);
    const urls = { direct: upstream.url, gateway: gateway.url };
    await measure(http, 'http', PATHS, (path) => ({ kind: 'http', url: urls[path as 'direct' | 'gateway'] }));
  } catch (error) {
    ctx.failures.push(`gateway http: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await gateway?.stop();
    await upstream?.stop();
  }

  const note =
    '`direct`: Switchboard client (legacy era) and the Switchboard fixture server; `gateway`: the same ' +
    'client through `switchboard/gateway` fronting that server (calls `up__echo`, forwarded in the ' +
    "client's own upstream session). Server CPU per call: the process the client talks to (the gateway " +
    'alone in the gateway column, without its upstream). Targets (issue 12): p50 ratio <= 1.25, ' +
    'throughput ratio >= 0.7.';
  stdio.notes.push(
    `${note} \`relay\`: the same fixture behind a process that copies bytes both ways and parses ` +
      'nothing, the floor of any stdio hop (two more pipe transfers and a third process).',
  );
  http.notes.push(note);
  return [stdio, http, await fromOutside(ctx)];
}

/**
 * One stdio server bridged to Streamable HTTP, 64 calls in flight on one legacy session (and one at a
 * time): each bridge is started fresh per run, so none inherits another's sessions or garbage.
 */
async function fromOutside(ctx: Context): Promise<Section> {
  const { config } = ctx;
  const s = section('gateway: from outside, one stdio server bridged to Streamable HTTP', BRIDGES, 'no hop');
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
      "server's; no upstream). `gateway`: `switchboard/gateway` over HTTP spawning the Switchboard " +
      'stdio fixture (calls `up__echo`). `mcp-proxy`, `supergateway` (stateful: one stdio child per ' +
      'session): the same stdio fixture behind each proxy. The client: Switchboard, legacy era, one ' +
      'session. Hop CPU: the bridging process; upstream CPU: the processes it spawned. Targets ' +
      '(issue 21): the gateway at least 0.95x the no-hop throughput at 64 in flight and at most 1.2x ' +
      'its serving CPU per call; at least 5x less serving CPU per call than each proxy, and a lower ' +
      'seq p50.',
  );
  return s;
}

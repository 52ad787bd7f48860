/**
 * Issue 21's "As fast as a relay" targets, read off the gateway sections of one run
 * (`npm run bench -- --only gateway`): one row per target with its goal, the figure measured
 * (median [min-max] of the per-run ratios or values) and whether it is met. This is the table
 * docs/benchmarks.md quotes under "The gateway hop".
 */
import { formatSpread, ratios, type Section } from './lib/report.js';
import { spread } from './lib/stats.js';
import { ERAS, SECTIONS } from './scenarios/gateway.js';

interface GatewayTarget {
  readonly what: string;
  readonly goal: string;
  /** The per-run figures, or undefined when the run has none. */
  readonly figures: (find: (title: string) => Section | undefined) => readonly number[] | undefined;
  readonly unit: 'x' | 'us';
  /** Undefined for a floor: a figure shown beside the targets it bounds, with no goal of its own. */
  readonly met: ((median: number) => boolean) | undefined;
}

/** Per run, `column / over` of one row (both measured in the same run). */
function perRun(s: Section | undefined, metric: string, column: string, over: string): number[] | undefined {
  const r = s?.rows.find((x) => x.metric === metric);
  return r && ratios(r, column, over);
}

function values(s: Section | undefined, metric: string, column: string): number[] | undefined {
  return s?.rows.find((x) => x.metric === metric)?.values.get(column);
}

const atLeast = (goal: number) => (v: number) => v >= goal;
const atMost = (goal: number) => (v: number) => v <= goal;

function targets(inFlight: number): GatewayTarget[] {
  const many = `${inFlight} in flight`;
  const list: GatewayTarget[] = [];
  for (const { label } of ERAS) {
    for (const [transport, title] of [
      ['stdio', SECTIONS.stdio],
      ['HTTP', SECTIONS.http],
    ] as const) {
      list.push({
        what: `${transport} upstream, ${label} client, ${many}: throughput, gateway / direct`,
        goal: '>= 0.7x',
        unit: 'x',
        figures: (find) => perRun(find(title), `${label} ${many} throughput`, 'gateway', 'direct'),
        met: atLeast(0.7),
      });
      list.push({
        what: `${transport} upstream, ${label} client, ${many}: the gateway's own CPU per forwarded call`,
        goal: '<= 20 us',
        unit: 'us',
        figures: (find) => values(find(title), `${label} ${many} server CPU per call`, 'gateway'),
        met: atMost(20),
      });
    }
    list.push({
      what: `stdio upstream, ${label} client, one call at a time: p50, gateway / the relay floor`,
      goal: '<= 1.25x',
      unit: 'x',
      figures: (find) => perRun(find(SECTIONS.stdio), `${label} seq latency p50`, 'gateway', 'relay'),
      met: atMost(1.25),
    });
    list.push({
      what: `HTTP upstream, ${label} client, one call at a time: p50, gateway / direct`,
      goal: '<= 1.5x',
      unit: 'x',
      figures: (find) => perRun(find(SECTIONS.http), `${label} seq latency p50`, 'gateway', 'direct'),
      met: atMost(1.5),
    });
    // The stdio parse relay (each frame parsed, its id rewritten, serialized, both ways; no MCP work)
    // bounds from below what any stdio hop that reads its messages, as a gateway must, can reach.
    list.push(
      {
        what: `stdio floor, ${label} client, ${many}: throughput, the parse relay / direct`,
        goal: 'floor',
        unit: 'x',
        figures: (find) =>
          perRun(find(SECTIONS.stdio), `${label} ${many} throughput`, 'parse relay', 'direct'),
        met: undefined,
      },
      {
        what: `stdio floor, ${label} client, ${many}: the parse relay's own CPU per call`,
        goal: 'floor',
        unit: 'us',
        figures: (find) =>
          values(find(SECTIONS.stdio), `${label} ${many} server CPU per call`, 'parse relay'),
        met: undefined,
      },
      {
        what: `stdio floor, ${label} client, one call at a time: p50, the parse relay / direct`,
        goal: 'floor',
        unit: 'x',
        figures: (find) => perRun(find(SECTIONS.stdio), `${label} seq latency p50`, 'parse relay', 'direct'),
        met: undefined,
      },
    );
    // The HTTP relay (an HTTP server plus the gateway's HTTP client, no MCP work) bounds the three
    // HTTP targets above from below: shown beside them, as the floor of any HTTP hop.
    list.push(
      {
        what: `HTTP floor, ${label} client, ${many}: throughput, the relay / direct`,
        goal: 'floor',
        unit: 'x',
        figures: (find) => perRun(find(SECTIONS.http), `${label} ${many} throughput`, 'relay', 'direct'),
        met: undefined,
      },
      {
        what: `HTTP floor, ${label} client, ${many}: the relay's own CPU per call`,
        goal: 'floor',
        unit: 'us',
        figures: (find) => values(find(SECTIONS.http), `${label} ${many} server CPU per call`, 'relay'),
        met: undefined,
      },
      {
        what: `HTTP floor, ${label} client, one call at a time: p50, the relay / direct`,
        goal: 'floor',
        unit: 'x',
        figures: (find) => perRun(find(SECTIONS.http), `${label} seq latency p50`, 'relay', 'direct'),
        met: undefined,
      },
    );
  }
  const outside = (find: (title: string) => Section | undefined) => find(SECTIONS.outside);
  list.push(
    {
      what: `from outside, ${many}: throughput, gateway / no hop`,
      goal: '>= 0.95x',
      unit: 'x',
      figures: (find) => perRun(outside(find), `${many} throughput`, 'gateway', 'no hop'),
      met: atLeast(0.95),
    },
    {
      what: `from outside, ${many}: serving CPU per call (hop + upstream), gateway / no hop`,
      goal: '<= 1.2x',
      unit: 'x',
      figures: (find) =>
        perRun(outside(find), `${many} serving CPU per call (hop + upstream)`, 'gateway', 'no hop'),
      met: atMost(1.2),
    },
    // The least any bridge does (an HTTP server writing each message to the stdio server and
    // answering with its reply, reading only ids) bounds the two targets above from below.
    {
      what: `from outside floor, ${many}: throughput, the bridge floor / no hop`,
      goal: 'floor',
      unit: 'x',
      figures: (find) => perRun(outside(find), `${many} throughput`, 'bridge floor', 'no hop'),
      met: undefined,
    },
    {
      what: `from outside floor, ${many}: serving CPU per call (hop + upstream), the bridge floor / no hop`,
      goal: 'floor',
      unit: 'x',
      figures: (find) =>
        perRun(outside(find), `${many} serving CPU per call (hop + upstream)`, 'bridge floor', 'no hop'),
      met: undefined,
    },
    {
      what: 'from outside floor, one call at a time: p50, the bridge floor / no hop',
      goal: 'floor',
      unit: 'x',
      figures: (find) => perRun(outside(find), 'seq latency p50', 'bridge floor', 'no hop'),
      met: undefined,
    },
  );
  for (const proxy of ['mcp-proxy', 'supergateway']) {
    list.push(
      {
        what: `from outside, ${many}: serving CPU per call, ${proxy} / gateway`,
        goal: '>= 5x',
        unit: 'x',
        figures: (find) =>
          perRun(outside(find), `${many} serving CPU per call (hop + upstream)`, proxy, 'gateway'),
        met: atLeast(5),
      },
      {
        what: `from outside, one call at a time: p50, gateway / ${proxy}`,
        goal: '< 1x',
        unit: 'x',
        figures: (find) => perRun(outside(find), 'seq latency p50', 'gateway', proxy),
        met: (v) => v < 1,
      },
    );
  }
  list.push({
    what: `the library over stdio, 2026-07-28 client + server, ${many}: throughput / raw`,
    goal: '>= 0.6x',
    unit: 'x',
    figures: (find) => perRun(find(SECTIONS.library), `${many} throughput`, 'switchboard-modern', 'raw'),
    met: atLeast(0.6),
  });
  return list;
}

/** The targets table, or '' when the run measured no gateway section. */
export function renderGatewayTargets(sections: readonly Section[], inFlight: number): string {
  const find = (title: string) => sections.find((s) => s.title === title);
  if (!find(SECTIONS.stdio) && !find(SECTIONS.http) && !find(SECTIONS.outside)) return '';
  const lines = [
    '### Targets (issue 21, as a relay)',
    '',
    '| target (issue 21) | goal | measured | met |',
    '| --- | ---: | ---: | :---: |',
  ];
  for (const t of targets(inFlight)) {
    const s = spread(t.figures(find) ?? []);
    const verdict = !s ? 'n/a' : t.met === undefined ? '-' : t.met(s.median) ? 'yes' : 'NO';
    lines.push(`| ${t.what} | ${t.goal} | ${formatSpread(s, t.unit === 'x' ? 'x' : ' us')} | ${verdict} |`);
  }
  lines.push(
    '',
    '- measured: median [min-max] over the runs of per-run ratios (both sides measured in the same run) or figures.',
    "- floor, `HTTP floor` rows: the HTTP `relay` column (an HTTP server passing each request on with the gateway's own HTTP client, parsing no JSON), which no HTTP hop in Node can beat; no goal of its own.",
    '- floor, `stdio floor` rows: the stdio `parse relay` column (each frame parsed, its request id rewritten, serialized again, both ways, one write per chunk read), the least a stdio hop that decodes its messages does; no goal of its own.',
  );
  return lines.join('\n');
}

/**
 * Issue #5's performance targets, read off the sections of the same run: each as a ratio to the raw
 * limit measured alongside (the official SDKs' figures from the same run in brackets).
 */
import { formatNumber, medianRatio, medianValue, type Section } from './lib/report.js';

interface Target {
  readonly what: string;
  readonly section: string;
  readonly metric: string;
  readonly column: string;
  /** `min`: the ratio must be at least `goal`; `max`: at most; `value-max`: the figure itself at most. */
  readonly kind: 'min' | 'max' | 'value-max';
  readonly goal: number;
  readonly unit?: string;
  /** Columns quoted for comparison. */
  readonly peers: readonly string[];
}

const TARGETS: readonly Target[] = [
  {
    what: 'stdio sequential calls/s',
    section: 'stdio: client + server',
    metric: 'seq throughput',
    column: 'switchboard',
    kind: 'min',
    goal: 0.8,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'stdio 64-in-flight calls/s',
    section: 'stdio: client + server',
    metric: '64 in flight throughput',
    column: 'switchboard',
    kind: 'min',
    goal: 0.5,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'stdio cold start, one-tool server (vs a bare Node script answering the same line)',
    section: 'stdio cold start',
    metric: 'spawn to first answer p50',
    column: 'switchboard',
    kind: 'max',
    goal: 1.3,
    peers: ['switchboard-unbundled', 'sdk-v1', 'sdk-v2'],
  },
  {
    what: 'stdio 10 MB echo',
    section: 'stdio: client + server',
    metric: 'echo 10 MB round trip p50',
    column: 'switchboard',
    kind: 'max',
    goal: 1.3,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'tools/list of 1,000 tools from a cached serialization: server CPU per list (raw serializes per call)',
    section: 'stdio: client + server',
    metric: 'tools/list of 1,000 tools: server CPU per list',
    column: 'switchboard',
    kind: 'max',
    goal: 1,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'HTTP 64-in-flight, Switchboard client + server (legacy sessions)',
    section: 'HTTP legacy',
    metric: '64 in flight throughput',
    column: 'switchboard',
    kind: 'min',
    goal: 0.5,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'HTTP 64-in-flight, Switchboard client + server (2026-07-28, stateless)',
    section: 'HTTP modern',
    metric: '64 in flight throughput',
    column: 'switchboard',
    kind: 'min',
    goal: 0.5,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'HTTP 64-in-flight, Switchboard client alone (vs raw server, legacy)',
    section: 'HTTP legacy: one side alone',
    metric: 'client alone: throughput',
    column: 'switchboard',
    kind: 'min',
    goal: 0.6,
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'HTTP 64-in-flight, Switchboard server alone (raw client, legacy)',
    section: 'HTTP legacy: one side alone',
    metric: 'server alone: throughput',
    column: 'switchboard',
    kind: 'min',
    goal: 0.6,
    peers: ['sdk-v1', 'sdk-v2', 'tmcp'],
  },
  {
    what: 'bytes per legacy HTTP session (own client: its standalone GET stream open)',
    section: 'HTTP legacy',
    metric: 'sessions: server memory per session',
    column: 'switchboard',
    kind: 'value-max',
    goal: 20_000,
    unit: 'B',
    peers: ['sdk-v1', 'sdk-v2'],
  },
  {
    what: 'bytes per legacy HTTP session (raw client: no standalone stream)',
    section: 'HTTP legacy: one side alone',
    metric: 'server alone: sessions, server memory per session',
    column: 'switchboard',
    kind: 'value-max',
    goal: 20_000,
    unit: 'B',
    peers: ['sdk-v1', 'sdk-v2', 'tmcp'],
  },
];

function figure(s: Section, t: Target, column: string): number | undefined {
  return t.kind === 'value-max' ? medianValue(s, t.metric, column) : medianRatio(s, t.metric, column);
}

function show(t: Target, v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '-';
  return t.kind === 'value-max' ? `${formatNumber(v)} ${t.unit ?? ''}`.trim() : `${formatNumber(v)}x`;
}

export function renderTargets(sections: readonly Section[]): string {
  if (!TARGETS.some((t) => sections.some((x) => x.title.startsWith(t.section)))) return '';
  const lines = [
    '### Targets (issue #5)',
    '',
    '| target | goal | switchboard | official SDKs, same run | met |',
    '| --- | ---: | ---: | --- | :---: |',
  ];
  for (const t of TARGETS) {
    const s = sections.find((x) => x.title.startsWith(t.section));
    if (!s) continue;
    const ours = figure(s, t, t.column);
    const goal =
      t.kind === 'min'
        ? `>= ${t.goal}x`
        : t.kind === 'max'
          ? `<= ${t.goal}x`
          : `<= ${formatNumber(t.goal)} ${t.unit}`;
    const peers = t.peers
      .filter((p) => s.columns.includes(p))
      .map((p) => `${p} ${show(t, figure(s, t, p))}`)
      .join(', ');
    const met =
      ours === undefined || !Number.isFinite(ours)
        ? 'n/a'
        : (t.kind === 'min' ? ours >= t.goal : ours <= t.goal)
          ? 'yes'
          : 'NO';
    lines.push(`| ${t.what} | ${goal} | ${show(t, ours)} | ${peers} | ${met} |`);
  }
  return lines.join('\n');
}

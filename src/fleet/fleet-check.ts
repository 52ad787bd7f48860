/**
 * Many servers checked at once (`switchboard check --config FILE`, `--server-json FILE`): each
 * through `checkServer`, a few at a time, each result cut down to what a fleet table and its history
 * need (transport, revisions spoken, score, MUST failures, the surface) and compared with the last
 * run of the same server.
 */
import { type CheckReport, type CheckTarget, checkServer } from '../check/run.js';
import { compareSurfaces, type Surface } from '../check/snapshot.js';
import type { GatewayConfig, UpstreamConfig } from '../gateway/config.js';
import { describeTarget } from '../node/target.js';
import type { Revision } from '../protocol/revisions.js';
import { errorMessage } from '../util/guards.js';
import { type HttpPackageStart, startHttpPackage } from './http-package.js';

export interface FleetTarget {
  readonly name: string;
  /** stdio, http (Streamable HTTP) or sse, as the config or server.json says. */
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly target: CheckTarget;
  /** A server.json package that serves HTTP: run before `target` (its URL) is checked, stopped after. */
  readonly start?: HttpPackageStart;
}

/** How long a package that serves HTTP may take to start serving, unless the check's timeout is longer. */
const START_TIMEOUT_MS = 30_000;

/** One server's result; everything but `report` goes into the history file. */
export interface FleetResult {
  readonly name: string;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly target: string;
  /** Why it could not be checked (did not start, speaks no MCP). */
  readonly error?: string;
  readonly server?: { readonly name: string; readonly version: string };
  readonly revisions: readonly Revision[];
  readonly score: number;
  readonly mustFailures: number;
  readonly failed: number;
  /** The ids of the failed checks, `revision:id`. */
  readonly failures: readonly string[];
  /** The transport the server was found to serve (a URL may serve HTTP+SSE). */
  readonly served?: 'stdio' | 'http' | 'sse';
  readonly surface?: Surface;
  /** What changed since the last run of this server ('first run' when there was none). */
  readonly changes: readonly string[];
  readonly report?: CheckReport;
}

/** The servers of a gateway config (mcpServers or VS Code's), as the checker runs them. */
export function configTargets(config: GatewayConfig): FleetTarget[] {
  return config.upstreams.map(upstreamTarget);
}

/** One server entry of a gateway config, as the checker runs it. */
export function upstreamTarget(u: UpstreamConfig): FleetTarget {
  return u.transport === 'stdio'
    ? {
        name: u.name,
        transport: 'stdio',
        target: {
          kind: 'stdio',
          command: u.command,
          args: u.args,
          env: u.env,
          ...(u.cwd ? { cwd: u.cwd } : {}),
        },
      }
    : { name: u.name, transport: u.transport, target: { kind: 'http', url: u.url, headers: u.headers } };
}

export interface FleetCheckOptions {
  readonly concurrency: number;
  readonly timeoutMs?: number;
  readonly revisions?: readonly Revision[];
  /** The last result of each server, from the history file. */
  readonly previous?: ReadonlyMap<string, FleetResult>;
  readonly onProgress?: (line: string) => void;
}

export async function checkFleet(
  targets: readonly FleetTarget[],
  options: FleetCheckOptions,
): Promise<FleetResult[]> {
  const results: FleetResult[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const index = next++;
      results[index] = await checkOne(targets[index]!, options);
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(options.concurrency, targets.length)) }, worker),
  );
  return results;
}

async function checkOne(target: FleetTarget, options: FleetCheckOptions): Promise<FleetResult> {
  const progress = options.onProgress;
  let sse = false;
  progress?.(`${target.name}: checking ${describeTarget(target.target)}`);
  let report: CheckReport;
  let running: Awaited<ReturnType<typeof startHttpPackage>> | undefined;
  try {
    if (target.start && target.target.kind === 'http') {
      progress?.(`${target.name}: starting ${[target.start.command, ...target.start.args].join(' ')}`);
      running = await startHttpPackage(
        target.start,
        String(target.target.url),
        Math.max(options.timeoutMs ?? 0, START_TIMEOUT_MS),
      );
    }
    report = await checkServer(target.target, {
      ...(options.revisions ? { revisions: options.revisions } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      surface: true,
      onProgress: (line) => {
        if (line.includes('serves the HTTP+SSE transport')) sse = true;
      },
    });
  } catch (error) {
    const failed = uncheckedResult(
      target.name,
      target.transport,
      describeTarget(target.target),
      errorMessage(error),
    );
    progress?.(`${target.name}: could not be checked: ${failed.error}`);
    return { ...failed, changes: changesSince(options.previous?.get(target.name), failed) };
  } finally {
    await running?.close();
  }
  const failedChecks = report.checks.filter((c) => c.status === 'failed');
  const result: FleetResult = {
    name: target.name,
    transport: target.transport,
    target: report.target,
    ...(report.server ? { server: report.server } : {}),
    revisions: report.revisions.filter((r) => r.supported).map((r) => r.revision),
    score: report.summary.score,
    mustFailures: failedChecks.filter((c) => c.level === 'MUST').length,
    failed: failedChecks.length,
    failures: [...new Set(failedChecks.map((c) => `${c.revision}:${c.id}`))],
    served: report.transport === 'stdio' ? 'stdio' : sse ? 'sse' : 'http',
    ...(report.surface ? { surface: report.surface } : {}),
    changes: [],
    report,
  };
  progress?.(`${target.name}: score ${result.score}, ${result.mustFailures} MUST failure(s)`);
  return { ...result, changes: changesSince(options.previous?.get(target.name), result) };
}

/** The result of a server that could not be checked. */
export function uncheckedResult(
  name: string,
  transport: FleetResult['transport'],
  target: string,
  error: string,
): FleetResult {
  return {
    name,
    transport,
    target,
    error,
    revisions: [],
    score: 0,
    mustFailures: 0,
    failed: 0,
    failures: [],
    changes: [],
  };
}

/** What differs between the last run of a server and this one, one line each. */
export function changesSince(before: FleetResult | undefined, after: FleetResult): string[] {
  if (before === undefined) return ['first run'];
  const changes: string[] = [];
  if (before.error === undefined && after.error !== undefined)
    changes.push(`no longer checkable: ${after.error}`);
  if (before.error !== undefined && after.error === undefined) changes.push('checkable again');
  if (before.score !== after.score) changes.push(`score ${before.score} → ${after.score}`);
  const version = (r: FleetResult) => r.server?.version;
  if (version(before) !== undefined && version(after) !== undefined && version(before) !== version(after))
    changes.push(`version ${version(before)} → ${version(after)}`);
  const added = after.revisions.filter((r) => !before.revisions.includes(r));
  const dropped = before.revisions.filter((r) => !after.revisions.includes(r));
  if (added.length > 0) changes.push(`now speaks ${added.join(', ')}`);
  if (dropped.length > 0 && after.error === undefined) changes.push(`no longer speaks ${dropped.join(', ')}`);
  const newFailures = after.failures.filter((f) => !before.failures.includes(f));
  const fixed = before.failures.filter((f) => !after.failures.includes(f));
  if (newFailures.length > 0) changes.push(`fails now: ${newFailures.join(', ')}`);
  if (fixed.length > 0 && after.error === undefined) changes.push(`passes now: ${fixed.join(', ')}`);
  if (before.surface && after.surface && before.surface.revision === after.surface.revision) {
    for (const c of compareSurfaces(before.surface, after.surface)) {
      // Sample answers may hold the time: not a change of the server.
      if (c.kind === 'sample') continue;
      changes.push(`${c.kind} ${c.name} ${c.change}${c.fields ? ` (${c.fields.join(', ')})` : ''}`);
    }
  }
  return changes;
}

/**
 * `checkServer`: scores one MCP server, over stdio or HTTP, in every revision it speaks. Each
 * revision gets a connection of its own (a fresh process on stdio), its handshake, and every probe;
 * the verdicts of all of them make the report.
 */
import type { Channel } from '../engine/channel.js';
import { nodeFetch } from '../node/fetch.js';
import { describeTarget, openTarget, type Target } from '../node/target.js';
import { isModernRevision, REVISIONS, type Revision } from '../protocol/revisions.js';
import { loadSchemaCatalog } from '../testing/load-schemas.js';
import { MessageSchemaChecker } from '../testing/message-schema-checker.js';
import { StdioClientChannel } from '../transports/stdio/client-channel.js';
import type { ProbeOptions } from './probes/context.js';
import { probeHttp } from './probes/http.js';
import { HttpProbe } from './probes/http-probe.js';
import { isSseEndpoint } from './probes/legacy-sse.js';
import { HttpTap } from './probes/sse.js';
import { AREAS, type Area, REQUIREMENTS, roleOf, type TransportKind } from './requirements.js';
import { type CheckEntry, type CheckSummary, summarize } from './results.js';
import { checkRevision, probeNegotiation, type RevisionOutcome, STDIO_SHUTDOWN_MS } from './revision-run.js';
import type { Surface } from './snapshot.js';

/**
 * The server to check: a command to spawn over stdio (it gets the whole environment of this
 * process, plus `env`) or an HTTP endpoint (with `headers` on every request, e.g. authorization).
 */
export type CheckTarget = Target;

export interface CheckOptions {
  /** The revisions to check (default: every revision; those the server does not speak are reported as such). */
  readonly revisions?: readonly Revision[];
  /** Call every tool, not only those annotated readOnlyHint: true (default false). */
  readonly callTools?: boolean;
  /** Longest wait for one answer, in ms (default 10 s). */
  readonly timeoutMs?: number;
  /** Keep only these checks in the report: requirement ids or areas. */
  readonly only?: readonly string[];
  /** Leave these checks out of the report: requirement ids or areas. */
  readonly skip?: readonly string[];
  /**
   * Put the server's surface in the report (`report.surface`): that of this revision, or with
   * `true` the newest revision the server speaks. `--snapshot` and `--against` use it.
   */
  readonly surface?: boolean | Revision;
  /** Told what the check is doing, one line at a time. */
  readonly onProgress?: (line: string) => void;
}

export interface RevisionReport {
  readonly revision: Revision;
  readonly supported: boolean;
  readonly note: string;
}

/** The whole result. Field names are a contract (`--json`). */
export interface CheckReport {
  readonly target: string;
  readonly transport: TransportKind;
  /** Set for a client check (`--client`); absent for a server check. */
  readonly role?: 'client';
  readonly server?: { readonly name: string; readonly version: string };
  readonly startedAt: string;
  readonly durationMs: number;
  readonly revisions: readonly RevisionReport[];
  readonly summary: CheckSummary;
  readonly checks: readonly CheckEntry[];
  /** Client mode: what the client did in each scenario. */
  readonly scenarios?: readonly string[];
  /** With the `surface` option: what the server offers (absent when it does not speak that revision). */
  readonly surface?: Surface;
}

/** The target could not be checked at all: it did not start, or speaks no revision of MCP. */
export class CheckTargetError extends Error {
  override readonly name = 'CheckTargetError';
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** The first answer of a freshly started server may take this long on a busy machine. */
const HANDSHAKE_TIMEOUT_MS = 30_000;

function openChannel(target: CheckTarget, tap: HttpTap | undefined, sse: boolean): Channel {
  return openTarget(target, {
    http: { ...(tap ? { fetch: tap.fetch } : {}), transport: sse ? 'sse' : 'streamable', rememberEra: false },
    stdio: { inheritEnv: true, stderr: 'pipe', shutdownTimeoutMs: STDIO_SHUTDOWN_MS },
  });
}

const checkersFor = (catalog: Awaited<ReturnType<typeof loadSchemaCatalog>>) => ({
  published: new MessageSchemaChecker(catalog, { strict: false }),
  strict: new MessageSchemaChecker(catalog, { strict: true }),
});

export async function checkServer(target: CheckTarget, options: CheckOptions = {}): Promise<CheckReport> {
  const started = Date.now();
  const progress = options.onProgress ?? (() => {});
  const transport: TransportKind = target.kind;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let probeOptions: ProbeOptions = {
    callTools: options.callTools ?? false,
    timeoutMs,
    handshakeTimeoutMs: Math.max(timeoutMs, HANDSHAKE_TIMEOUT_MS),
    slowCalls: new Map(),
  };
  // --only/--skip: the probes and revisions that can show none of the rules kept are not run.
  const kept = REQUIREMENTS.filter(
    (r) =>
      roleOf(r) === 'server' &&
      selectEntries(options)({ id: r.id, area: r.area } as CheckEntry) &&
      (r.transport === undefined || r.transport === transport),
  );
  const narrowed = (options.only?.length ?? 0) > 0 || (options.skip?.length ?? 0) > 0;
  if (narrowed && options.surface === undefined) {
    probeOptions = { ...probeOptions, areas: new Set(kept.map((r) => r.area)) };
  }
  const revisions = (options.revisions ?? REVISIONS).filter(
    (revision) => !narrowed || kept.some((r) => r.revisions.includes(revision)),
  );
  const catalog = await loadSchemaCatalog();
  const outcomes: RevisionOutcome[] = [];
  let lastTail = '';
  // A URL may be the endpoint of the HTTP+SSE transport (2024-11-05): then every revision goes over it.
  const sse = target.kind === 'http' && (await isSseEndpoint(new HttpProbe(target, timeoutMs)));
  if (sse) progress(`${describeTarget(target)} serves the HTTP+SSE transport (2024-11-05)`);
  for (const revision of revisions) {
    progress(`${revision}: connecting to ${describeTarget(target)}`);
    // Over HTTP, the event streams the server sends are read as they pass, for the SSE rules.
    const tap = target.kind === 'http' && !sse ? new HttpTap(nodeFetch) : undefined;
    const channel = openChannel(target, tap, sse);
    const checkers = checkersFor(catalog);
    const outcome = await checkRevision(revision, channel, transport, checkers, probeOptions, progress, tap);
    if (channel instanceof StdioClientChannel) lastTail = channel.stderrTail();
    if (!outcome.supported) progress(`${revision}: not spoken (${outcome.note})`);
    // A server that left one handshake unanswered will likely leave the others too: do not wait
    // the long handshake time again.
    if (outcome.handshakeTimedOut) probeOptions = { ...probeOptions, handshakeTimeoutMs: timeoutMs };
    outcomes.push(outcome);
  }
  const spoken = outcomes.filter((o) => o.supported);
  // A server whose answers broke the framing or the ids is reported (with the rules it broke), not
  // dismissed as speaking nothing.
  const broken = outcomes.some((o) => o.verdicts.entries().some((e) => e.status === 'failed'));
  if (spoken.length === 0 && !broken) {
    const why = outcomes.map((o) => `${o.revision}: ${o.note}`).join('\n  ');
    throw new CheckTargetError(
      `${describeTarget(target)} speaks none of the revisions checked, so it could not be checked:\n  ${why}` +
        (lastTail ? `\nIts stderr ended with:\n${lastTail}` : ''),
    );
  }
  const legacy = spoken.find((o) => !isModernRevision(o.revision));
  const wants = (...areas: Area[]) =>
    probeOptions.areas === undefined || areas.some((a) => probeOptions.areas!.has(a));
  if (legacy && wants('lifecycle')) {
    progress('version negotiation: initialize with a version no server supports');
    const channel = openChannel(target, undefined, sse);
    await probeNegotiation(
      channel,
      legacy,
      spoken.map((o) => o.revision),
      checkersFor(catalog),
      probeOptions,
    );
  }
  if (target.kind === 'http' && wants('http', 'security', 'authorization', 'jsonrpc')) {
    progress('HTTP: status codes and headers');
    await probeHttp(target, spoken, probeOptions, sse);
  }
  const checks = outcomes
    .flatMap((o) =>
      o.verdicts.entries(
        o.supported
          ? undefined
          : { status: 'not-applicable', why: `the server does not speak ${o.revision}: ${o.note}` },
      ),
    )
    .filter(selectEntries(options));
  const surface =
    options.surface === undefined || options.surface === false
      ? undefined
      : (options.surface === true ? spoken[0] : spoken.find((o) => o.revision === options.surface))?.surface;
  return {
    target: describeTarget(target),
    transport,
    ...(spoken[0]?.server ? { server: spoken[0].server } : {}),
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    revisions: outcomes.map(({ revision, supported, note }) => ({ revision, supported, note })),
    summary: summarize(checks),
    checks,
    ...(surface ? { surface } : {}),
  };
}

/** The filter `--only`/`--skip` make; each names requirement ids or areas. */
export function selectEntries(options: Pick<CheckOptions, 'only' | 'skip'>): (entry: CheckEntry) => boolean {
  const matches = (names: readonly string[], entry: CheckEntry) =>
    names.includes(entry.id) || names.includes(entry.area);
  return (entry) =>
    (options.only === undefined || options.only.length === 0 || matches(options.only, entry)) &&
    !(options.skip !== undefined && matches(options.skip, entry));
}

/** Names `--only`/`--skip` accept that the catalogue does not know (a typo would silently select nothing). */
export function unknownSelectors(names: readonly string[]): string[] {
  const known = new Set<string>([...AREAS, ...REQUIREMENTS.map((r) => r.id)]);
  return names.filter((name) => !known.has(name));
}

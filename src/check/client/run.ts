/**
 * `checkClient`: client mode. For each HTTP scenario a scripted server listens on loopback HTTP and
 * the client's command runs with the server's URL as its last argument; for each stdio scenario
 * the command runs with no URL, its stdin and stdout wired to a scripted server. When the client
 * exits (or its time is up) the traffic is judged against the `client.*` rules. Scenarios: a
 * 2026-07-28-only server, a legacy-only one (version fallback from 2026-07-28), one that answers
 * initialize with an older version, one that expires the session after the handshake
 * (re-initialise on 404), one that closes a response stream early (SSE retry and Last-Event-ID),
 * and the two eras over stdio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { serve } from '../../node/serve.js';
import { describeTarget } from '../../node/target.js';
import { LEGACY_REVISIONS, REVISIONS, type Revision } from '../../protocol/revisions.js';
import { loadSchemaCatalog } from '../../testing/load-schemas.js';
import { MessageSchemaChecker } from '../../testing/message-schema-checker.js';
import { createHttpHandler } from '../../transports/http/server/handler.js';
import { StdioServerChannel } from '../../transports/stdio/server-channel.js';
import type { TransportKind } from '../requirements.js';
import { summarize, Verdicts } from '../results.js';
import { type CheckReport, CheckTargetError, selectEntries } from '../run.js';
import {
  judgeScenario,
  PRIMING_EVENT_ID,
  RETRY_MS,
  type ScenarioName,
  type ScenarioTraffic,
} from './judge.js';

export type { ScenarioName } from './judge.js';

import { scriptedServer } from './scripted-server.js';
import { StdioTraffic, TrafficRecorder, type Trick } from './traffic.js';

export interface ClientCheckTarget {
  /** The client's command; over HTTP the scripted server's URL is appended to its arguments. */
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface ClientCheckOptions {
  /** How long the client gets to do its work in each scenario, in ms (default 30 s). */
  readonly timeoutMs?: number;
  /** Run only these scenarios (default: all, in the order of {@link CLIENT_SCENARIOS}). */
  readonly scenarios?: readonly ScenarioName[];
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  readonly onProgress?: (line: string) => void;
}

interface Scenario {
  readonly name: ScenarioName;
  readonly transport: TransportKind;
  readonly served: readonly Revision[];
  readonly trick?: () => Trick;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'modern', transport: 'http', served: ['2026-07-28'] },
  { name: 'legacy', transport: 'http', served: LEGACY_REVISIONS },
  { name: 'older-version', transport: 'http', served: ['2025-03-26'] },
  { name: 'expired-session', transport: 'http', served: LEGACY_REVISIONS, trick: expireSession },
  { name: 'resumable', transport: 'http', served: ['2025-11-25'], trick: dropStream },
  { name: 'stdio-modern', transport: 'stdio', served: ['2026-07-28'] },
  { name: 'stdio-legacy', transport: 'stdio', served: LEGACY_REVISIONS },
];

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/**
 * Closes the stream of the first tool call after the handshake right after a priming event (an
 * event id, empty data, `retry:`), as 2025-11-25 lets a server do, and serves the call's real
 * answer on the GET that resumes from that event id (`Last-Event-ID`).
 */
function dropStream(): Trick {
  let initialized = false;
  let pending: Promise<Response> | undefined;
  return (exchange, forward) => {
    const message = exchange.message as { method?: unknown } | undefined;
    if (message?.method === 'notifications/initialized') initialized = true;
    if (initialized && !pending && message?.method === 'tools/call') {
      pending = forward();
      const session = exchange.headers['mcp-session-id'];
      return {
        what: 'stream closed after its priming event',
        response: new Response(`id: ${PRIMING_EVENT_ID}\nretry: ${RETRY_MS}\ndata:\n\n`, {
          headers: { ...SSE_HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
        }),
      };
    }
    if (exchange.httpMethod !== 'GET' || !pending || exchange.headers['last-event-id'] !== PRIMING_EVENT_ID)
      return undefined;
    const answer = pending;
    pending = undefined;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    void answer
      .then(async (response) => {
        if (response.body && (response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
          return response.body.pipeTo(writable);
        const writer = writable.getWriter();
        await writer.write(new TextEncoder().encode(`id: resumed\ndata: ${await response.text()}\n\n`));
        return writer.close();
      })
      .catch(() => writable.abort().catch(() => {}));
    return { what: 'the resumed stream', response: new Response(readable, { headers: SSE_HEADERS }) };
  };
}

/**
 * Ends the session at the first request after the handshake: that request and every later one
 * naming the session are answered 404, as a server that lost the session (a restart) answers.
 */
function expireSession(): Trick {
  let dead: string | undefined;
  let initialized = false;
  return (exchange) => {
    const session = exchange.headers['mcp-session-id'];
    const message = exchange.message as { method?: unknown; id?: unknown } | undefined;
    if (message?.method === 'notifications/initialized') initialized = true;
    const request = message !== undefined && typeof message.method === 'string' && 'id' in message;
    if (dead === undefined && initialized && session !== undefined && request && message.method !== 'ping')
      dead = session;
    if (session === undefined || session !== dead) return undefined;
    return {
      what: 'session expired',
      response: new Response(
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
        {
          status: 404,
          headers: { 'content-type': 'application/json' },
        },
      ),
    };
  };
}

/** The scenarios' names, in the order they run. */
export const CLIENT_SCENARIOS: readonly ScenarioName[] = SCENARIOS.map((s) => s.name);

const DEFAULT_TIMEOUT_MS = 30_000;
const STDERR_TAIL = 2_000;

/**
 * Runs the client (with the URL as its last argument, or over stdio handed to `attach`) and
 * resolves with how it ended.
 */
function runClient(
  target: ClientCheckTarget,
  connect: { url: string } | { attach: (child: ChildProcess) => void },
  timeoutMs: number,
) {
  return new Promise<{
    code: number | null;
    signal: string | null;
    timedOut: boolean;
    stderr: string;
    error?: Error;
  }>((resolve) => {
    let stderr = '';
    let timedOut = false;
    const child = spawn(
      target.command,
      [...(target.args ?? []), ...('url' in connect ? [connect.url] : [])],
      {
        cwd: target.cwd,
        env: { ...process.env, ...target.env },
        stdio: 'url' in connect ? ['ignore', 'ignore', 'pipe'] : ['pipe', 'pipe', 'pipe'],
      },
    );
    if ('attach' in connect) connect.attach(child);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, timedOut, stderr, error });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stderr });
    });
  });
}

/** Serves a scripted server over loopback HTTP while the client runs against its URL. */
async function overHttp(scenario: Scenario, target: ClientCheckTarget, timeoutMs: number) {
  const traffic = new TrafficRecorder(createHttpHandler(scriptedServer(scenario.served)), scenario.trick?.());
  const running = await serve(traffic, { port: 0, host: '127.0.0.1' });
  const url = new URL('/mcp', running.url).href;
  const outcome = await runClient(target, { url }, timeoutMs);
  await running.close();
  await traffic.close();
  await traffic.settled();
  return { traffic, outcome, unit: 'HTTP request(s)', count: traffic.exchanges.length };
}

/** Serves a scripted server on the client's own stdin and stdout while it runs. */
async function overStdio(scenario: Scenario, target: ClientCheckTarget, timeoutMs: number) {
  const traffic = new StdioTraffic();
  const server = scriptedServer(scenario.served);
  const outcome = await runClient(
    target,
    {
      attach: (child) => {
        const fromClient = new PassThrough();
        const toClient = new PassThrough();
        child.stdout?.on('data', (chunk: Buffer) => {
          traffic.client(chunk);
          fromClient.write(chunk);
        });
        child.stdout?.on('end', () => fromClient.end());
        // A client that exits before reading everything is its business, not an error here.
        child.stdin?.on('error', () => {});
        toClient.on('data', (chunk: Buffer) => {
          traffic.server(chunk);
          if (child.stdin?.writable) child.stdin.write(chunk);
        });
        server.connect(
          new StdioServerChannel({ stdin: fromClient, stdout: toClient, onSendError: () => {} }),
        );
      },
    },
    timeoutMs,
  );
  await server.close();
  return { traffic, outcome, unit: 'message(s) on stdout', count: traffic.exchanges.length };
}

export async function checkClient(
  target: ClientCheckTarget,
  options: ClientCheckOptions = {},
): Promise<CheckReport> {
  const started = Date.now();
  const progress = options.onProgress ?? (() => {});
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const catalog = await loadSchemaCatalog();
  /** Verdicts by transport, then revision. */
  const verdicts = new Map<TransportKind, Map<Revision, Verdicts>>();
  const verdictsFor = (transport: TransportKind) => (revision: Revision) => {
    let byRevision = verdicts.get(transport);
    if (!byRevision) {
      byRevision = new Map();
      verdicts.set(transport, byRevision);
    }
    let found = byRevision.get(revision);
    if (!found) {
      found = new Verdicts(revision, transport, 'client');
      byRevision.set(revision, found);
    }
    return found;
  };
  const name = describeTarget({ kind: 'stdio', ...target });
  const notes: string[] = [];
  let sentAnything = false;
  const chosen = options.scenarios ? SCENARIOS.filter((s) => options.scenarios?.includes(s.name)) : SCENARIOS;
  for (const scenario of chosen) {
    progress(
      `${scenario.name}: ${name} over ${scenario.transport} (server speaks ${scenario.served.join(', ')})`,
    );
    const { traffic, outcome, unit, count } =
      scenario.transport === 'http'
        ? await overHttp(scenario, target, timeoutMs)
        : await overStdio(scenario, target, timeoutMs);
    if (outcome.error)
      throw new CheckTargetError(`The client ${name} could not be started: ${outcome.error.message}`);
    const ended = outcome.timedOut
      ? `was stopped after ${timeoutMs} ms`
      : `exited with ${outcome.signal ?? `code ${outcome.code}`}`;
    notes.push(`${scenario.name}: ${count} ${unit}; the client ${ended}`);
    progress(`${scenario.name}: the client ${ended} after ${count} ${unit}`);
    if (count > 0) sentAnything = true;
    else if (outcome.stderr)
      notes.push(`${scenario.name}: its stderr ended with: ${outcome.stderr.trim().slice(-300)}`);
    const run: ScenarioTraffic = {
      scenario: scenario.name,
      transport: scenario.transport,
      served: scenario.served,
      traffic,
    };
    await judgeScenario(
      run,
      verdictsFor(scenario.transport),
      () => new MessageSchemaChecker(catalog, { strict: false }),
    );
  }
  if (!sentAnything) {
    throw new CheckTargetError(
      `The client ${name} sent nothing to any scripted server (over HTTP it gets the server's URL as its last argument; over stdio, no URL and the server on its stdin and stdout):\n  ${notes.join('\n  ')}`,
    );
  }
  const transports = [...new Set(chosen.map((s) => s.transport))];
  const spokenOver = (transport: TransportKind) => REVISIONS.filter((r) => verdicts.get(transport)?.has(r));
  const spoken = REVISIONS.filter((r) => transports.some((t) => spokenOver(t).includes(r)));
  const checks = transports
    .flatMap((transport) =>
      REVISIONS.flatMap((revision) => {
        const found = verdicts.get(transport)?.get(revision);
        return (found ?? new Verdicts(revision, transport, 'client')).entries(
          found
            ? {
                status: 'not-tested',
                why: `nothing the client did in ${revision} over ${transport} exercised this rule`,
              }
            : {
                status: 'not-applicable',
                why: `the client did not speak ${revision} over ${transport} with the scripted servers`,
              },
        );
      }),
    )
    .filter(selectEntries(options));
  return {
    target: name,
    transport: transports.includes('http') ? 'http' : 'stdio',
    role: 'client',
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    revisions: REVISIONS.map((revision) => {
      const over = transports.filter((t) => spokenOver(t).includes(revision));
      return {
        revision,
        supported: spoken.includes(revision),
        note: over.length > 0 ? `spoken over ${over.join(' and ')}` : 'not spoken with the scripted servers',
      };
    }),
    summary: summarize(checks),
    checks,
    scenarios: notes,
  };
}

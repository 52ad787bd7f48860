/**
 * `checkClient`: client mode. For each scenario a scripted server listens on loopback HTTP, the
 * client's command runs with the server's URL as its last argument, and when it exits (or its
 * time is up) the traffic is judged against the `client.*` rules. Scenarios: a 2026-07-28-only
 * server, a legacy-only one (version fallback from 2026-07-28), one that answers initialize with
 * an older version, and one that expires the session after the handshake (re-initialise on 404).
 */
import { spawn } from 'node:child_process';
import { serve } from '../../node/serve.js';
import { LEGACY_REVISIONS, REVISIONS, type Revision } from '../../protocol/revisions.js';
import { loadSchemaCatalog } from '../../testing/load-schemas.js';
import { MessageSchemaChecker } from '../../testing/message-schema-checker.js';
import { createHttpHandler } from '../../transports/http/server/handler.js';
import { summarize, Verdicts } from '../results.js';
import { type CheckReport, CheckTargetError, describeTarget, selectEntries } from '../run.js';
import { judgeScenario, type ScenarioName, type ScenarioTraffic } from './judge.js';
import { scriptedServer } from './scripted-server.js';
import { TrafficRecorder, type Trick } from './traffic.js';

export interface ClientCheckTarget {
  /** The client's command; the scripted server's URL is appended to its arguments. */
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface ClientCheckOptions {
  /** How long the client gets to do its work in each scenario, in ms (default 30 s). */
  readonly timeoutMs?: number;
  readonly only?: readonly string[];
  readonly skip?: readonly string[];
  readonly onProgress?: (line: string) => void;
}

interface Scenario {
  readonly name: ScenarioName;
  readonly served: readonly Revision[];
  readonly trick?: () => Trick;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'modern', served: ['2026-07-28'] },
  { name: 'legacy', served: LEGACY_REVISIONS },
  { name: 'older-version', served: ['2025-03-26'] },
  { name: 'expired-session', served: LEGACY_REVISIONS, trick: expireSession },
];

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

const DEFAULT_TIMEOUT_MS = 30_000;
const STDERR_TAIL = 2_000;

/** Runs the client against a URL and resolves with how it ended. */
function runClient(target: ClientCheckTarget, url: string, timeoutMs: number) {
  return new Promise<{
    code: number | null;
    signal: string | null;
    timedOut: boolean;
    stderr: string;
    error?: Error;
  }>((resolve) => {
    let stderr = '';
    let timedOut = false;
    const child = spawn(target.command, [...(target.args ?? []), url], {
      cwd: target.cwd,
      env: { ...process.env, ...target.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
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

export async function checkClient(
  target: ClientCheckTarget,
  options: ClientCheckOptions = {},
): Promise<CheckReport> {
  const started = Date.now();
  const progress = options.onProgress ?? (() => {});
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const catalog = await loadSchemaCatalog();
  const verdicts = new Map<Revision, Verdicts>();
  const verdictsOf = (revision: Revision) => {
    let found = verdicts.get(revision);
    if (!found) {
      found = new Verdicts(revision, 'http', 'client');
      verdicts.set(revision, found);
    }
    return found;
  };
  const name = describeTarget({ kind: 'stdio', ...target });
  const notes: string[] = [];
  let sentAnything = false;
  for (const scenario of SCENARIOS) {
    const server = scriptedServer(scenario.served);
    const handler = createHttpHandler(server);
    const traffic = new TrafficRecorder(handler, scenario.trick?.());
    const running = await serve(traffic, { port: 0, host: '127.0.0.1' });
    const url = new URL('/mcp', running.url).href;
    progress(`${scenario.name}: ${name} ${url} (server speaks ${scenario.served.join(', ')})`);
    const outcome = await runClient(target, url, timeoutMs);
    await running.close();
    await traffic.close();
    await traffic.settled();
    if (outcome.error)
      throw new CheckTargetError(`The client ${name} could not be started: ${outcome.error.message}`);
    const ended = outcome.timedOut
      ? `was stopped after ${timeoutMs} ms`
      : `exited with ${outcome.signal ?? `code ${outcome.code}`}`;
    notes.push(`${scenario.name}: ${traffic.exchanges.length} HTTP request(s); the client ${ended}`);
    progress(`${scenario.name}: the client ${ended} after ${traffic.exchanges.length} HTTP request(s)`);
    if (traffic.exchanges.length > 0) sentAnything = true;
    else if (outcome.stderr)
      notes.push(`${scenario.name}: its stderr ended with: ${outcome.stderr.trim().slice(-300)}`);
    const run: ScenarioTraffic = { scenario: scenario.name, served: scenario.served, traffic };
    await judgeScenario(run, verdictsOf, () => new MessageSchemaChecker(catalog, { strict: false }));
  }
  if (!sentAnything) {
    throw new CheckTargetError(
      `The client ${name} sent no HTTP request to any scripted server (it gets the server's URL as its last argument):\n  ${notes.join('\n  ')}`,
    );
  }
  const spoken = REVISIONS.filter((r) => verdicts.has(r));
  const checks = REVISIONS.flatMap((revision) =>
    (verdicts.get(revision) ?? new Verdicts(revision, 'http', 'client')).entries(
      verdicts.has(revision)
        ? { status: 'not-tested', why: `nothing the client did in ${revision} exercised this rule` }
        : { status: 'not-applicable', why: `the client did not speak ${revision} with the scripted servers` },
    ),
  ).filter(selectEntries(options));
  return {
    target: name,
    transport: 'http',
    role: 'client',
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    revisions: REVISIONS.map((revision) => ({
      revision,
      supported: spoken.includes(revision),
      note: spoken.includes(revision)
        ? 'spoken with the scripted servers'
        : 'not spoken with the scripted servers',
    })),
    summary: summarize(checks),
    checks,
    scenarios: notes,
  };
}

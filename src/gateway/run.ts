/**
 * `switchboard gateway CONFIG`: runs a gateway until SIGINT/SIGTERM (or, with `--stdio`, until its
 * client goes away), over HTTP at `http://HOST:PORT/mcp` with `/healthz` and `/readyz` beside it.
 * Prints what it serves and each upstream's state at start, and logs JSON lines on stderr.
 */
import { watch } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname } from 'node:path';
import { Redis } from 'ioredis';
import { nodeFetch } from '../node/fetch.js';
import { serve } from '../node/serve.js';
import { SwitchboardError } from '../protocol/errors.js';
import { type RedisStores, redisStores } from '../redis/stores.js';
import { redactSecrets } from '../server/redact.js';
import { createHttpHandler } from '../transports/http/server/handler.js';
import { isLoopbackHostname, type OriginPolicy } from '../transports/http/server/security.js';
import { serveStdio } from '../transports/stdio/serve.js';
import { clip } from '../util/clip.js';
import { errorMessage } from '../util/guards.js';
import type { Logger } from '../util/logger.js';
import { type CheckServer, withAdminEndpoints } from './admin.js';
import { AuditLog } from './audit.js';
import { DOWNSTREAM_SESSION_IDLE_MS, type GatewayConfig, loadGatewayConfig } from './config.js';
import { formatProblem } from './config-source.js';
import { frontDoor } from './front-door.js';
import { Gateway, type GatewayRuntimeOptions } from './gateway.js';
import { guard } from './guard.js';
import { withHealthEndpoints } from './health-endpoints.js';
import { RateLimits } from './rate-limits.js';
import type { TaskIdKeyring } from './task-ids.js';
import { exchangingFetch, TokenExchanger } from './token-exchange.js';

export interface RunOptions {
  readonly stdio: boolean;
  readonly host: string | undefined;
  readonly port: number | undefined;
  readonly version: string;
  /** The tool pins' lock file (`--lock`). */
  readonly lock?: string | undefined;
  /** `--watch`: apply the config file's changes while running. */
  readonly watch?: boolean;
  /** The fetch of each HTTP upstream (the CLI's: stored OAuth tokens, sign-in on 401). */
  readonly fetchFor?: GatewayRuntimeOptions['fetchFor'];
  /** `--insecure-no-auth`: listen on a non-loopback address without `gateway.auth` (warned at start). */
  readonly insecureNoAuth?: boolean;
  /** What the admin endpoint's `POST /admin/check` runs (the CLI's: the fleet checker). */
  readonly checkServer?: CheckServer;
  /**
   * Internal, for tests: how often (ms) each node re-reads the task id keys from Redis (default
   * 60 s), so a test sees a Redis that lost them healed without waiting a minute.
   */
  readonly taskKeyRefreshMs?: number;
}

/**
 * `--watch`: when the config file changes, applies it (only the servers whose entries changed
 * restart); a config with problems is reported and not applied. Returns what stops watching.
 */
function watchConfig(file: string, gateway: Gateway, report: (text: string) => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let applying = Promise.resolve();
  const apply = async () => {
    const loaded = loadGatewayConfig(file);
    if (!loaded.ok) {
      for (const problem of loaded.problems) {
        logLine(report, 'warn', `config not applied: ${formatProblem(problem)}`);
      }
      return;
    }
    const changes = await gateway.reconfigure(loaded.config);
    logLine(report, 'info', 'config applied', changes);
  };
  // Editors often replace the file (write a new one, rename it over): watch its folder.
  const watcher = watch(dirname(file), (_event, name) => {
    if (name !== basename(file)) return;
    clearTimeout(timer);
    // One apply per burst of writes, one at a time.
    timer = setTimeout(() => {
      applying = applying
        .then(apply)
        .catch((error: unknown) => logLine(report, 'error', errorMessage(error)));
    }, 100);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

/** One structured log line: a JSON object, secrets masked. */
function logLine(
  write: (line: string) => void,
  level: string,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  write(`${JSON.stringify(redactSecrets({ time: new Date().toISOString(), level, message, ...extra }))}\n`);
}

/** Structured logs: one JSON object per line on stderr, secrets masked. */
export function jsonLogger(write: (line: string) => void): Logger {
  const line = (level: string, message: string, extra?: Record<string, unknown>) =>
    logLine(write, level, message, extra);
  return {
    error: (error) => line('error', error.message, { error: error.name }),
    warn: (message) => line('warn', message),
  };
}

/** The gateway the command runs: JSON logs on `report`, the lock file if `--lock` gave one. */
function makeGateway(
  config: GatewayConfig,
  options: RunOptions,
  report: (text: string) => void,
  door?: FrontDoorParts,
  stores: RedisStores | undefined = door?.stores,
): Gateway {
  return new Gateway(config, {
    logger: jsonLogger(report),
    version: options.version,
    ...(options.lock !== undefined ? { lock: options.lock } : {}),
    ...(door ? { guard: (server) => guard(server, config, door) } : {}),
    ...(stores
      ? {
          shared: {
            requestStateKey: stores.server.requestStateKey,
            requestStateStore: stores.server.requestStateStore,
          },
          sharedPins: stores.pins,
          ...(door?.taskIdKey ? { taskIdKey: door.taskIdKey } : {}),
        }
      : {}),
    fetchFor: withTokenExchange(options.fetchFor),
  });
}

/**
 * The fetch of each HTTP upstream: the one given (the CLI's), and for a server with
 * `upstreamAuth.tokenExchange` the caller's exchanged token on each request made for a caller.
 */
function withTokenExchange(given: RunOptions['fetchFor']): NonNullable<GatewayRuntimeOptions['fetchFor']> {
  // One exchanger (one cache of exchanged tokens) per server entry, whatever channels it opens.
  const exchangers = new Map<string, TokenExchanger>();
  return (upstream) => {
    const base = given?.(upstream);
    const exchange = upstream.upstreamAuth?.tokenExchange;
    if (exchange === undefined) return base;
    const key = JSON.stringify([upstream.name, upstream.url.href, exchange]);
    let exchanger = exchangers.get(key);
    if (!exchanger) {
      exchanger = new TokenExchanger(exchange, upstream.url.href);
      exchangers.set(key, exchanger);
    }
    return exchangingFetch(exchanger, base ?? nodeFetch);
  };
}

/** The front door's parts that live as long as the gateway: the audit log and the rate counters. */
interface FrontDoorParts {
  readonly audit?: AuditLog;
  readonly limits?: RateLimits;
  readonly exchanges: boolean;
  /** `gateway.redis`: legacy sessions and 2026-07-28 request state shared by every node. */
  readonly stores?: RedisStores;
  /** With `stores`: the keys of the task ids' tags every node shares. */
  readonly taskIdKey?: TaskIdKeyring;
  close(): Promise<void>;
}

async function frontDoorParts(
  config: GatewayConfig,
  report: (text: string) => void,
  taskKeyRefreshMs?: number,
): Promise<FrontDoorParts> {
  const { audit: auditConfig, rateLimits, redis: redisUrl } = config.security;
  const audit = auditConfig ? new AuditLog(auditConfig) : undefined;
  if (audit)
    audit.onerror = (error) =>
      logLine(report, 'error', `audit: cannot write ${audit.file}: ${errorMessage(error)}`);
  const redis =
    redisUrl !== undefined && rateLimits.length > 0 ? new Redis(redisUrl, { lazyConnect: false }) : undefined;
  redis?.on('error', (error: Error) => logLine(report, 'warn', `redis: ${errorMessage(error)}`));
  const limits = rateLimits.length > 0 ? new RateLimits(rateLimits, redis ? { redis } : {}) : undefined;
  const stores =
    redisUrl === undefined
      ? undefined
      : await redisStores({
          url: redisUrl,
          prefix: 'switchboard:gateway:',
          logger: jsonLogger(report),
          ...(taskKeyRefreshMs !== undefined ? { taskIdKeys: { refreshMs: taskKeyRefreshMs } } : {}),
        });
  const taskIdKey = await stores?.taskIdKeys();
  return {
    ...(stores ? { stores } : {}),
    ...(taskIdKey ? { taskIdKey } : {}),
    ...(audit ? { audit } : {}),
    ...(limits ? { limits } : {}),
    exchanges: config.upstreams.some((u) => u.transport !== 'stdio' && u.upstreamAuth !== undefined),
    async close() {
      await audit?.close();
      redis?.disconnect();
      await stores?.close();
    },
  };
}

/**
 * Refuses to serve a non-loopback address to anyone without `gateway.auth`, unless the operator
 * said `--insecure-no-auth` (then warns, at every start).
 */
function checkExposure(
  config: GatewayConfig,
  host: string,
  options: RunOptions,
  report: (text: string) => void,
): void {
  if (config.security.auth !== undefined || isLoopbackHostname(host)) return;
  if (!options.insecureNoAuth) {
    throw new SwitchboardError(
      'CONFIG',
      `refusing to listen on ${host} without "auth": anyone who can reach the port could use every server. ` +
        'Add "auth": { "apiKeys": { "alice": "${ALICE_KEY}" } } (or "oauth") to "gateway" in the config ' +
        '(see docs/gateway.md, Security), listen on 127.0.0.1, or pass --insecure-no-auth if something in front of the gateway signs callers in.',
    );
  }
  logLine(
    report,
    'warn',
    `listening on ${host} with no sign-in (--insecure-no-auth): anyone who can reach the port can use every server`,
  );
}

/**
 * The Host/Origin rules of every path of the listener, the MCP endpoint's and the health paths':
 * the HTTP handler's defaults (loopback names on a loopback address, same-origin pages).
 */
const ORIGINS: OriginPolicy = {};

/** Serves until stopped; `report` writes the start-up summary and the JSON log lines (stderr). */
export async function runGateway(
  config: GatewayConfig,
  options: RunOptions,
  report: (text: string) => void,
): Promise<number> {
  const host = options.host ?? config.options.host;
  if (!options.stdio) checkExposure(config, host, options, report);
  const door = await frontDoorParts(config, report, options.taskKeyRefreshMs);
  const gateway = makeGateway(config, options, report, door);
  const unwatch = options.watch ? watchConfig(config.file, gateway, report) : () => {};
  if (options.stdio) {
    // One client, which lists as soon as it connects: it gets the lists once every eager upstream
    // was tried (each within its connect time).
    await gateway.start();
    const closed = new Promise<void>((resolve) => {
      serveStdio(gateway.server, { exit: false, onclose: resolve });
    });
    report(summary(gateway, 'stdio'));
    await closed;
    unwatch();
    await gateway.close();
    await door.close();
    return 0;
  }
  const { auth } = config.security;
  const authenticator = auth
    ? frontDoor(auth, {
        onRefused: (exchange) =>
          door.audit?.record({
            principal: null,
            client: null,
            session: exchange.header('mcp-session-id') ?? null,
            method: `${exchange.method} ${exchange.path}`,
            name: null,
            upstream: null,
            outcome: 'unauthenticated',
            durationMs: 0,
            argsDigest: null,
          }),
        onerror: (error) => logLine(report, 'warn', `auth: ${errorMessage(error)}`),
      })
    : undefined;
  const shared = door.stores
    ? { sessionStore: door.stores.http.sessionStore, eventStore: door.stores.http.eventStore }
    : {};
  const handler = createHttpHandler(gateway.server, {
    ...ORIGINS,
    sessionIdleTimeoutMs: DOWNSTREAM_SESSION_IDLE_MS,
    ...shared,
    ...(authenticator ? { auth: authenticator } : {}),
  });
  const running = await serve(handler, { host, port: options.port ?? config.options.port });
  gateway.telemetry.collectProcessMetrics();
  // /healthz, /readyz, /metrics and /admin/ beside the MCP endpoint, on the same listener, behind its Host/Origin rules.
  const [mcp] = running.server.listeners('request') as Array<
    (req: IncomingMessage, res: ServerResponse) => void
  >;
  running.server.removeAllListeners('request');
  running.server.on(
    'request',
    withAdminEndpoints(withHealthEndpoints(mcp!, gateway, config, ORIGINS), gateway, config, ORIGINS, {
      ...(authenticator ? { authenticator } : {}),
      ...(options.checkServer ? { check: options.checkServer } : {}),
      log: (message, extra) => logLine(report, 'info', message, extra),
      ...(door.audit ? { audit: door.audit } : {}),
    }),
  );
  // Listening first: a hung upstream delays nothing. The upstreams come up in the background (each
  // within its connect time), healthy ones served as soon as they are up; /readyz says who is not.
  report(
    `switchboard gateway: listening at ${running.url}, starting ${plural(config.upstreams.length, 'server')}\n`,
  );
  let stopping = false;
  void gateway.start().then(() => {
    if (!stopping) report(summary(gateway, running.url));
  });
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  stopping = true;
  unwatch();
  await running.close();
  await gateway.close();
  await door.close();
  return 0;
}

/** `switchboard gateway approve`: connects, pins the held tools' and skills' current definitions, stops. */
export async function approveTools(
  config: GatewayConfig,
  options: RunOptions,
  names: readonly string[],
  out: (text: string) => void,
  report: (text: string) => void,
): Promise<number> {
  // With gateway.redis the approval goes to the pins every node shares, and they show the tools at once.
  const redisUrl = config.security.redis;
  const stores =
    redisUrl === undefined
      ? undefined
      : await redisStores({ url: redisUrl, prefix: 'switchboard:gateway:', logger: jsonLogger(report) });
  const gateway = makeGateway(config, options, report, undefined, stores);
  let failed: Error | undefined;
  try {
    await gateway.start();
    const pins = gateway.pins!;
    pins.onerror = (error) => {
      failed = error;
    };
    const held = pins.pending().map((p) => p.name);
    const unknown = names.filter((name) => !held.includes(name));
    const approved = pins.approve(names);
    await pins.settled();
    if (failed) {
      report(`switchboard gateway: the approval did not reach the shared pins: ${failed.message}\n`);
      return 1;
    }
    for (const tool of approved) out(`approved ${tool.name} (${tool.found})\n`);
    if (approved.length === 0 && names.length === 0) out('no tool or skill is waiting for approval\n');
    for (const name of unknown) report(`switchboard gateway: ${name} is not waiting for approval.\n`);
    return unknown.length > 0 ? 1 : 0;
  } finally {
    await gateway.close();
    await stores?.close();
  }
}

/** What a person wants to see at start: where it listens, and each upstream with its state. */
export function summary(gateway: Gateway, where: string): string {
  const rows = gateway.health().map((health) => {
    const counts = gateway.exposed(health.name);
    const offered = [
      plural(counts.tools, 'tool'),
      plural(counts.prompts, 'prompt'),
      plural(counts.resources + counts.templates, 'resource'),
    ].join(', ');
    const detail =
      health.state === 'up'
        ? `${offered} (${health.revision})`
        : health.lastError !== undefined
          ? clip(health.lastError.split('\n')[0]!, 160)
          : health.state === 'idle'
            ? 'starts on first use'
            : '';
    return [health.name, health.state, health.transport, detail];
  });
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map(
    (r) => `  ${r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`,
  );
  const count = plural(rows.length, 'server');
  const head =
    where === 'stdio'
      ? `switchboard gateway: serving ${count} over stdio`
      : `switchboard gateway: serving ${count} at ${where}`;
  const held = gateway.pins?.pending().map((p) => p.name) ?? [];
  const pins =
    held.length === 0
      ? ''
      : `  hidden until approved (changed since pinned): ${held.join(', ')}\n` +
        `  review them, then: switchboard gateway approve --lock ${gateway.pins!.file} CONFIG\n`;
  return `${head}\n${lines.join('\n')}\n${pins}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Soak and leak checks (issue 15): long runs of the things a server or client does over and over,
 * with what is left afterwards measured. Each scenario reports the heap after GC before and after
 * (baseline taken after a warm-up round, so module loading and JIT do not count), the handles and
 * timers still active, and the bounded structures it drove to their bounds.
 *
 *   npm run soak                  the full run (10,000 sessions, 1,000 stdio servers; a few minutes)
 *   npm run soak -- --short       the CI form (test/bench/soak.test.ts): the same checks, fewer rounds
 *   options: --json (the report as JSON on stdout)   --only <scenario>
 *
 * A scenario fails when the heap after GC is more than 10% above its baseline, when handles or
 * timers are left, or when a bound is exceeded. Exits 1 if any failed.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EraMemory } from '../src/cli/era-memory.js';
import type { ResultCache } from '../src/client/cache.js';
import { Client } from '../src/extensions/client.js';
import { Server } from '../src/extensions/server.js';
import { serve } from '../src/node/serve.js';
import { MemoryRequestStateStore } from '../src/server/request-state.js';
import { defaultHttpEraStore, endpointKey } from '../src/transports/http/client/era-store.js';
import { MemoryEventStore } from '../src/transports/http/server/event-store.js';
import { createHttpHandler, type McpHttpHandler } from '../src/transports/http/server/handler.js';
import { createLinkedChannels } from '../src/transports/memory.js';
import { StdioClientChannel } from '../src/transports/stdio/client-channel.js';

const SHORT = process.argv.includes('--short');
const JSON_OUT = process.argv.includes('--json');
const ONLY = (() => {
  const at = process.argv.indexOf('--only');
  return at === -1 ? undefined : process.argv[at + 1];
})();

/** Rounds of each scenario, full and short. */
const N = SHORT
  ? { sessions: 400, expiring: 400, listens: 400, calls: 1000, spawns: 24, stubborn: 4 }
  : { sessions: 10_000, expiring: 10_000, listens: 10_000, calls: 10_000, spawns: 1000, stubborn: 100 };

/**
 * Rounds run before the baseline is taken: enough that what a process builds once (optimized code,
 * Node's pools of HTTP parsers and sockets) is there before, not counted as a leak after.
 */
const WARMUP = SHORT ? 200 : 1000;

export interface ScenarioReport {
  readonly name: string;
  readonly rounds: Record<string, number>;
  readonly heapBeforeMb: number;
  readonly heapAfterMb: number;
  /** Active handles by type, beyond those present before the scenario started. */
  readonly leftHandles: Record<string, number>;
  /** What the scenario checked besides memory and handles (bounds, maps emptied), as facts. */
  readonly facts: Record<string, number | string | boolean>;
  readonly problems: string[];
  readonly seconds: number;
}

// ---------------------------------------------------------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc;
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Heap used after full collections, in MiB. */
async function heapMb(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await turn();
  }
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Active handles and requests by type (Node's own view: sockets, timers, pipes, processes). */
function handles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/** Types whose count grew from `before` to `after`. */
function grown(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [type, count] of Object.entries(after)) {
    const extra = count - (before[type] ?? 0);
    if (extra > 0) out[type] = extra;
  }
  return out;
}

/** Waits for `condition`, checking every 20 ms, for at most `ms`. */
async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Runs `task(i)` for i in [0, count) with at most `width` at once. */
async function pool(count: number, width: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

interface Measure {
  facts: Record<string, number | string | boolean>;
  problems: string[];
}

/**
 * Runs one scenario: `setup` returns a `round(n)` that does n rounds of the work and a `finish()` that
 * waits for the work's after-effects (sessions expiring) and releases what the scenario created.
 */
async function scenario(
  name: string,
  rounds: Record<string, number>,
  body: (m: Measure, baseline: () => Promise<void>) => Promise<void>,
): Promise<ScenarioReport> {
  const started = Date.now();
  const handlesBefore = handles();
  const m: Measure = { facts: {}, problems: [] };
  let heapBefore = 0;
  await body(m, async () => {
    heapBefore = await heapMb();
  });
  const heapAfter = await heapMb();
  await until(() => Object.keys(grown(handlesBefore, handles())).length === 0, 5000);
  const leftHandles = grown(handlesBefore, handles());
  if (heapAfter > heapBefore * 1.1) {
    m.problems.push(
      `heap ${heapAfter.toFixed(1)} MiB after, more than 10% over ${heapBefore.toFixed(1)} MiB`,
    );
  }
  if (Object.keys(leftHandles).length > 0) m.problems.push(`handles left: ${JSON.stringify(leftHandles)}`);
  return {
    name,
    rounds,
    heapBeforeMb: round1(heapBefore),
    heapAfterMb: round1(heapAfter),
    leftHandles,
    facts: m.facts,
    problems: m.problems,
    seconds: round1((Date.now() - started) / 1000),
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function check(m: Measure, ok: boolean, problem: string): void {
  if (!ok) m.problems.push(problem);
}

// --- HTTP helpers ------------------------------------------------------------------------------

interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function http(
  agent: Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1' },
};

function soakServer(): Server {
  const server = new Server({ name: 'soak', version: '1.0.0' });
  server.registerTool(
    'echo',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => String(args.text),
  );
  server.registerTool(
    'hang',
    {},
    (_args, ctx) =>
      new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('gone'))),
  );
  server.registerResourceTemplate(
    'item',
    'soak://items/{id}',
    { cache: { ttlMs: 600_000 } },
    (_uri, { id }) => `item ${id}`,
  );
  return server;
}

// --- the scenarios -------------------------------------------------------------------------------

/** Legacy Streamable HTTP sessions: opened, used and closed with DELETE; then as many left to expire. */
function legacySessions(): Promise<ScenarioReport> {
  return scenario('legacy sessions', { closed: N.sessions, expired: N.expiring }, async (m, baseline) => {
    const server = soakServer();
    const idleMs = 1000;
    const handler = createHttpHandler(server, { sessionIdleTimeoutMs: idleMs });
    const running = await serve(handler);
    const url = new URL(running.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const core = handler as McpHttpHandler;
    const session = async (i: number, close: boolean) => {
      const init = await http(
        agent,
        url,
        'POST',
        JSON_HEADERS,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'soak', version: '1' },
          },
        }),
      );
      const sessionId = init.headers['mcp-session-id'] as string;
      const headers = { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      await http(agent, url, 'POST', headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
      const call = await http(
        agent,
        url,
        'POST',
        headers,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: `s${i}` } },
        }),
      );
      if (!call.body.includes(`"s${i}"`)) throw new Error(`session ${i}: ${call.status} ${call.body}`);
      if (close) await http(agent, url, 'DELETE', headers);
    };
    await pool(WARMUP, 16, (i) => session(i, true));
    await until(() => core.sessionCount === 0, 5000);
    await baseline();
    await pool(N.sessions, 16, (i) => session(i, true));
    m.facts.openAfterClosing = core.sessionCount;
    await pool(N.expiring, 16, (i) => session(i, false));
    // Sessions idle for a second are swept while the rest are being opened.
    m.facts.stillOpenAfterOpening = core.sessionCount;
    // The sweep runs every idle timeout: they are gone within two.
    const expired = await until(() => core.sessionCount === 0, 4 * idleMs + 5000);
    check(m, expired, `${core.sessionCount} sessions never expired`);
    m.facts.openAfterExpiry = core.sessionCount;
    m.facts.subscribersLeft = server.notifications.size;
    check(m, server.notifications.size === 0, `${server.notifications.size} notification subscribers left`);
    agent.destroy();
    await running.close();
  });
}

/** 2026-07-28 subscriptions/listen streams over HTTP, opened (acknowledged) and dropped by the client. */
function listenStreams(): Promise<ScenarioReport> {
  return scenario('listen streams', { dropped: N.listens }, async (m, baseline) => {
    const server = soakServer();
    const handler = createHttpHandler(server);
    const running = await serve(handler);
    const url = new URL(running.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: { _meta: ENVELOPE, notifications: { toolsListChanged: true } },
    });
    const headers = {
      ...JSON_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    };
    const listen = () =>
      new Promise<void>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers, agent }, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            // The acknowledgement arrived: the stream is open. Drop it, as a client that goes away.
            if (chunk.includes('acknowledged')) {
              req.destroy();
              resolve();
            }
          });
          res.on('error', () => {});
        });
        req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
        req.end(body);
      });
    await pool(WARMUP, 16, listen);
    await until(() => server.notifications.listens === 0, 5000);
    await baseline();
    await pool(N.listens, 16, listen);
    const closed = await until(() => server.notifications.listens === 0, 10_000);
    check(m, closed, `${server.notifications.listens} listen streams still open`);
    m.facts.listensLeft = server.notifications.listens;
    agent.destroy();
    await running.close();
  });
}

/** Client calls that time out and calls that are cancelled: the pending maps on both sides empty. */
function pendingMaps(): Promise<ScenarioReport> {
  return scenario(
    'timeouts and cancellations',
    { timedOut: N.calls, aborted: N.calls },
    async (m, baseline) => {
      const server = soakServer();
      const [clientEnd, serverEnd] = createLinkedChannels();
      const connection = server.connect(serverEnd);
      const client = new Client({ name: 'soak', version: '1' }, { version: 'legacy' });
      await client.connect(clientEnd);
      const peerOf = (x: unknown) =>
        (x as { peer: { pending?: Map<unknown, unknown>; inbound: Map<unknown, unknown> } }).peer;
      const timeouts = async (count: number) =>
        pool(count, 64, () => client.callTool('hang', {}, { timeoutMs: 5 }).catch(() => undefined));
      const aborts = async (count: number) =>
        pool(count, 64, async () => {
          const controller = new AbortController();
          const call = client.callTool('hang', {}, { signal: controller.signal }).catch(() => undefined);
          await turn();
          controller.abort();
          await call;
        });
      await timeouts(WARMUP);
      await aborts(WARMUP);
      await until(() => peerOf(connection).inbound.size === 0, 5000);
      await baseline();
      await timeouts(N.calls);
      await aborts(N.calls);
      await until(() => peerOf(connection).inbound.size === 0, 10_000);
      m.facts.clientPending = peerOf(client).pending?.size ?? 0;
      m.facts.serverInbound = peerOf(connection).inbound.size;
      check(m, m.facts.clientPending === 0, `${m.facts.clientPending} calls still pending on the client`);
      check(m, m.facts.serverInbound === 0, `${m.facts.serverInbound} requests still running on the server`);
      await client.close();
    },
  );
}

/** Every bounded cache driven past its bound: the client's result cache, the era memories, the nonce and event stores. */
function cachesAtBounds(): Promise<ScenarioReport> {
  return scenario(
    'caches at their bounds',
    { reads: 2000, endpoints: 1000, nonces: 200_000 },
    async (m, baseline) => {
      // The client's 2026-07-28 result cache: 500 entries, whatever is read.
      const server = soakServer();
      const [clientEnd, serverEnd] = createLinkedChannels();
      server.connect(serverEnd);
      const client = new Client({ name: 'soak', version: '1' }, { version: { pin: '2026-07-28' } });
      await client.connect(clientEnd);
      await baseline();
      await pool(2000, 32, (i) => client.readResource(`soak://items/${i}`));
      const cache = (client as unknown as { cache: ResultCache }).cache as unknown as {
        entries: Map<string, unknown>;
      };
      m.facts.resultCacheEntries = cache.entries.size;
      check(m, cache.entries.size <= 500, `the result cache holds ${cache.entries.size} entries`);
      await client.close();

      // The HTTP client's era memory: 256 endpoints.
      for (let i = 0; i < 1000; i++)
        defaultHttpEraStore.set(endpointKey(new URL(`http://127.0.0.1:${1000 + i}/mcp`)), 'modern');
      let remembered = 0;
      for (let i = 0; i < 1000; i++)
        if (defaultHttpEraStore.get(endpointKey(new URL(`http://127.0.0.1:${1000 + i}/mcp`)))) remembered++;
      m.facts.httpErasRemembered = remembered;
      check(m, remembered <= 256, `the HTTP era memory holds ${remembered} endpoints`);

      // The CLI's era file: 200 servers.
      const file = join(tmpdir(), `switchboard-soak-${process.pid}`, 'eras.json');
      const memory = new EraMemory(file);
      for (let i = 0; i < 300; i++) memory.remember(`stdio ${i}`, 'legacy');
      const saved = Object.keys(
        (JSON.parse(readFileSync(file, 'utf8')) as { servers: object }).servers,
      ).length;
      m.facts.cliErasKept = saved;
      check(m, saved <= 200, `the CLI era file holds ${saved} servers`);

      // The requestState nonce store: full of valid nonces, it refuses rather than grows or forgets.
      const store = new MemoryRequestStateStore(100_000);
      let refused = 0;
      const far = Date.now() + 600_000;
      for (let i = 0; i < 200_000; i++) await store.consume(`n${i}`, far).catch(() => refused++);
      m.facts.noncesKept = store.size;
      m.facts.noncesRefused = refused;
      check(
        m,
        store.size === 100_000 && refused === 100_000,
        `nonce store: ${store.size} kept, ${refused} refused`,
      );
      check(m, !(await store.consume('n0', far)), 'a remembered nonce was accepted again');

      // The HTTP event store: 64 MiB over every session.
      const events = new MemoryEventStore();
      const chunk = 'x'.repeat(64 * 1024);
      for (let s = 0; s < 300; s++)
        for (let seq = 1; seq <= 64; seq++) events.append(`s${s}`, 0, { seq, data: chunk });
      m.facts.eventStoreMb = round1(events.bytes / 2 ** 20);
      check(m, events.bytes <= 64 * 2 ** 20, `the event store holds ${events.bytes} bytes`);
      for (let s = 0; s < 300; s++) events.deleteSession(`s${s}`);
      check(m, events.bytes === 0, 'deleted sessions kept bytes');
    },
  );
}

/** Stdio servers spawned and closed, some of which ignore stdin EOF and SIGTERM: none left behind. */
function stdioSpawns(): Promise<ScenarioReport> {
  return scenario('stdio servers', { spawned: N.spawns, stubborn: N.stubborn }, async (m, baseline) => {
    const serverScript = fileURLToPath(new URL('./fixtures/switchboard-stdio.js', import.meta.url));
    // Answers one line, then ignores stdin EOF and SIGTERM: only SIGKILL ends it.
    const stubborn = [
      '-e',
      'process.on(\'SIGTERM\',()=>{});process.stdin.resume();setInterval(()=>{},1000);process.stdout.write(\'{"jsonrpc":"2.0","method":"ready"}\\n\')',
    ];
    const statuses: Record<string, number> = {};
    const spawnOne = async (i: number) => {
      const isStubborn = i % Math.max(1, Math.floor(N.spawns / N.stubborn)) === 0;
      if (isStubborn) {
        const channel = new StdioClientChannel({
          command: process.execPath,
          args: stubborn,
          stderr: 'ignore',
          shutdownTimeoutMs: 100,
        });
        await new Promise<void>((resolve) =>
          channel.start({ message: () => resolve(), malformed() {}, closed: () => resolve() }),
        );
        await channel.close();
        const status = channel.exitStatus?.signal ?? `code ${channel.exitStatus?.code}`;
        statuses[`stubborn ${status}`] = (statuses[`stubborn ${status}`] ?? 0) + 1;
        return;
      }
      const client = new Client({ name: 'soak', version: '1' }, { version: 'legacy' });
      const channel = new StdioClientChannel({
        command: process.execPath,
        args: [serverScript],
        stderr: 'ignore',
      });
      await client.connect(channel);
      await client.callTool('echo', { text: 'x' });
      await client.close();
      const status = channel.exitStatus?.signal ?? `code ${channel.exitStatus?.code}`;
      statuses[status] = (statuses[status] ?? 0) + 1;
    };
    let failures = 0;
    const counted = (i: number) =>
      spawnOne(i).catch((error: Error) => {
        if (failures++ === 0) m.problems.push(`a server failed: ${error.message}`);
      });
    await pool(4, 4, counted);
    await baseline();
    await pool(N.spawns, 8, counted);
    m.facts.failures = failures;
    for (const [status, count] of Object.entries(statuses)) m.facts[`exit: ${status}`] = count;
    const children = childProcesses();
    m.facts.childrenLeft = children.length;
    check(m, children.length === 0, `child processes left: ${children.join(', ')}`);
  });
}

/** Our child processes, zombies included (Linux: from /proc; elsewhere from ps). */
function childProcesses(): string[] {
  const me = String(process.pid);
  if (process.platform === 'linux') {
    const found: string[] = [];
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields[1] === me) found.push(`${pid} (${fields[0]})`);
      } catch {
        // Gone meanwhile.
      }
    }
    return found;
  }
  const ps = spawnSync('ps', ['-o', 'pid=,stat=', '--ppid', me], { encoding: 'utf8' });
  return ps.stdout.split('\n').filter((line) => line.trim() !== '');
}

// -----------------------------------------------------------------------------------------------

const SCENARIOS: Record<string, () => Promise<ScenarioReport>> = {
  sessions: legacySessions,
  listens: listenStreams,
  pending: pendingMaps,
  caches: cachesAtBounds,
  stdio: stdioSpawns,
};

function render(reports: readonly ScenarioReport[]): string {
  const lines = [
    `### Soak (${SHORT ? 'short form' : 'full'}, Node ${process.version})`,
    '',
    '| Scenario | Rounds | Heap after GC: before → after (MiB) | Handles left | Checks | Time |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of reports) {
    const rounds = Object.entries(r.rounds)
      .map(([k, v]) => `${v.toLocaleString('en')} ${k}`)
      .join(', ');
    const facts = Object.entries(r.facts)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ');
    const left = Object.keys(r.leftHandles).length === 0 ? 'none' : JSON.stringify(r.leftHandles);
    const verdict = r.problems.length === 0 ? facts : `**${r.problems.join('; ')}** (${facts})`;
    lines.push(
      `| ${r.name} | ${rounds} | ${r.heapBeforeMb} → ${r.heapAfterMb} | ${left} | ${verdict} | ${r.seconds} s |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  if (!gc) {
    // Measuring memory needs collections on demand: run again with --expose-gc.
    const again = spawnSync(
      process.execPath,
      ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)],
      {
        stdio: 'inherit',
      },
    );
    process.exit(again.status ?? 1);
  }
  const reports: ScenarioReport[] = [];
  for (const [key, run] of Object.entries(SCENARIOS)) {
    if (ONLY !== undefined && ONLY !== key) continue;
    process.stderr.write(`soak: ${key}...\n`);
    reports.push(await run());
  }
  process.stdout.write(JSON_OUT ? `${JSON.stringify(reports, null, 2)}\n` : render(reports));
  process.exitCode = reports.some((r) => r.problems.length > 0) ? 1 : 0;
}

await main();

/**
 * A load-client process: the harness forks one per measurement, sends it a {@link Job} over IPC and
 * gets one result back. Its own CPU time (`process.cpuUsage`) is the client side's cost; the server's
 * comes from /proc (a stdio server is this process's child; an HTTP server's pid comes with the job).
 * Only the library of the job's client is imported, so nothing else runs in here.
 */
import { performance } from 'node:perf_hooks';
import type { FetchKind } from './clients/fetches.js';
import { loadClient } from './clients/index.js';
import type { BenchClient, ClientKind, ConnectClient, Era, Target } from './clients/types.js';
import { descendantsCpuMicros, ownCpuMicros, processCpuMicros } from './lib/cpu.js';
import { median, percentile, Samples } from './lib/stats.js';

export interface ClientSpec {
  readonly client: ClientKind;
  readonly era: Era;
  readonly target: Target;
  /** The server's pid when the harness started it (HTTP); stdio servers are found through the client. */
  readonly serverPid?: number;
  /** The fetch of an HTTP client that takes one (default: `nodeFetch`). */
  readonly fetch?: FetchKind;
}

export type Job =
  | (ClientSpec & {
      type: 'load';
      tool: 'echo' | 'add';
      /** The name to call it by, when not `tool` (through the gateway: `up__echo`). */
      toolName?: string;
      inFlight: number;
      warmupMs: number;
      durationMs: number;
    })
  | {
      type: 'cold';
      /** The raw client times every server, so only the servers differ. */
      client: 'raw';
      servers: readonly ColdServer[];
      iterations: number;
    }
  | (ClientSpec & { type: 'payload'; sizes: readonly number[]; reps: readonly number[] })
  | (ClientSpec & { type: 'list'; expectTools: number; warmupMs: number; durationMs: number })
  | (ClientSpec & { type: 'mix'; clients: number; warmupMs: number; durationMs: number })
  | (ClientSpec & { type: 'sessions'; warm: number; count: number })
  | (ClientSpec & {
      type: 'fetches';
      /** Each a Switchboard client on that fetch, or the raw client. */
      fetches: readonly (FetchKind | 'raw')[];
      inFlight: number;
      rounds: number;
      warmupMs: number;
      durationMs: number;
    });

/** One server of a `cold` job: spawned `iterations` times, each time until its first answer. */
export interface ColdServer {
  readonly id: string;
  readonly era: Era;
  readonly target: Target;
}

export interface LoadResult {
  calls: number;
  seconds: number;
  callsPerSecond: number;
  p50Us: number;
  p99Us: number;
  clientCpuUsPerCall: number;
  serverCpuUsPerCall: number | undefined;
  /** The server's descendants (the upstream a gateway or proxy spawned): 0 when it has none. */
  upstreamCpuUsPerCall: number | undefined;
}

/** Messages from the harness during a `sessions` job. */
export type Control = { type: 'proceed' };

const ECHO_ARGS = { text: 'hello' };
const ADD_ARGS = { a: 1, b: 2 };

function checkEcho(result: { content?: unknown }, expected: string): void {
  const block = (result.content as { type: string; text: string }[] | undefined)?.[0];
  if (block?.type !== 'text' || block.text !== expected) {
    throw new Error(`echo answered something else: ${JSON.stringify(result).slice(0, 200)}`);
  }
}

function checkAdd(result: { structuredContent?: unknown }): void {
  if ((result.structuredContent as { sum?: number } | undefined)?.sum !== 3) {
    throw new Error(`add answered something else: ${JSON.stringify(result).slice(0, 200)}`);
  }
}

/**
 * Keeps `inFlight` calls going (lane i always calls `call(i)`): first for `warmupMs` (not counted), then for `durationMs`, counting
 * every call that completes inside the window and measuring both processes' CPU over exactly it.
 */
async function load(
  call: (lane: number) => Promise<unknown>,
  inFlight: number,
  warmupMs: number,
  durationMs: number,
  serverPid: () => number | undefined,
): Promise<LoadResult> {
  let phase: 'warm' | 'measure' | 'stop' = 'warm';
  const samples = new Samples();
  let t0 = 0;
  let t1 = 0;
  let cpu0 = 0;
  let cpu1 = 0;
  let server0: number | undefined;
  let server1: number | undefined;
  let upstream0: number | undefined;
  let upstream1: number | undefined;
  const begin = () => {
    phase = 'measure';
    upstream0 = descendantsCpuMicros(serverPid());
    server0 = processCpuMicros(serverPid());
    cpu0 = ownCpuMicros();
    t0 = performance.now();
    setTimeout(end, durationMs);
  };
  const end = () => {
    t1 = performance.now();
    cpu1 = ownCpuMicros();
    server1 = processCpuMicros(serverPid());
    upstream1 = descendantsCpuMicros(serverPid());
    phase = 'stop';
  };
  setTimeout(begin, warmupMs);
  const loop = async (lane: number) => {
    while (phase !== 'stop') {
      const start = performance.now();
      await call(lane);
      if (phase === 'measure' && start >= t0) samples.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, lane) => loop(lane)));
  const sorted = samples.sorted();
  const calls = sorted.length;
  const seconds = (t1 - t0) / 1000;
  return {
    calls,
    seconds,
    callsPerSecond: calls / seconds,
    p50Us: percentile(sorted, 50) * 1000,
    p99Us: percentile(sorted, 99) * 1000,
    clientCpuUsPerCall: (cpu1 - cpu0) / calls,
    serverCpuUsPerCall:
      server0 === undefined || server1 === undefined ? undefined : (server1 - server0) / calls,
    upstreamCpuUsPerCall:
      upstream0 === undefined || upstream1 === undefined ? undefined : (upstream1 - upstream0) / calls,
  };
}

async function run(job: Job, connect: ConnectClient): Promise<unknown> {
  if (job.type === 'cold') return cold(job.servers, job.iterations, connect);
  const open = () => connect(job.era, job.target, job.fetch);
  const pidOf = (client: BenchClient) => () => job.serverPid ?? client.serverPid;
  switch (job.type) {
    case 'load': {
      const client = await open();
      try {
        const args = job.tool === 'echo' ? ECHO_ARGS : ADD_ARGS;
        const name = job.toolName ?? job.tool;
        const first = await client.call(name, args);
        if (job.tool === 'echo') checkEcho(first, ECHO_ARGS.text);
        else checkAdd(first);
        return await load(
          () => client.call(name, args),
          job.inFlight,
          job.warmupMs,
          job.durationMs,
          pidOf(client),
        );
      } finally {
        await client.close();
      }
    }
    case 'payload': {
      const client = await open();
      try {
        const medians: number[] = [];
        for (const [i, size] of job.sizes.entries()) {
          const text = 'x'.repeat(size);
          const reps = job.reps[i]!;
          checkEcho(await client.call('echo', { text }), text);
          const ms: number[] = [];
          for (let r = 0; r < reps; r++) {
            const start = performance.now();
            await client.call('echo', { text });
            ms.push(performance.now() - start);
          }
          medians.push(median(ms));
        }
        return { ms: medians };
      } finally {
        await client.close();
      }
    }
    case 'list': {
      const client = await open();
      try {
        const count = await client.listTools();
        if (count !== job.expectTools)
          throw new Error(`tools/list returned ${count} tools, expected ${job.expectTools}`);
        return await load(() => client.listTools(), 1, job.warmupMs, job.durationMs, pidOf(client));
      } finally {
        await client.close();
      }
    }
    case 'mix': {
      // Many clients in one process, each walking one tools/list then nine tools/call (echo and add).
      const clients: BenchClient[] = [];
      try {
        for (let i = 0; i < job.clients; i++) clients.push(await open());
        const step = clients.map(() => 0);
        const next = (i: number): Promise<unknown> => {
          const client = clients[i]!;
          const s = step[i]!;
          step[i] = (s + 1) % 10;
          if (s === 0) return client.listTools();
          return s % 2 === 1 ? client.call('echo', ECHO_ARGS) : client.call('add', ADD_ARGS);
        };
        // Each client keeps one request in flight: one load lane per client.
        return await load(next, clients.length, job.warmupMs, job.durationMs, () => job.serverPid);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    }
    case 'fetches': {
      // Every variant connected in this one process; each round measures them in turn (rotated), so
      // whatever else the machine does weighs on all of them alike.
      const clients: BenchClient[] = [];
      try {
        for (const fetch of job.fetches) {
          const client =
            fetch === 'raw'
              ? await (await loadClient('raw'))(job.era, job.target)
              : await (await loadClient('switchboard'))(job.era, job.target, fetch);
          checkEcho(await client.call('echo', ECHO_ARGS), ECHO_ARGS.text);
          clients.push(client);
        }
        // A first round, not recorded, warms both processes (JIT, pools) for every variant.
        for (const client of clients) {
          await load(
            () => client.call('echo', ECHO_ARGS),
            job.inFlight,
            0,
            job.warmupMs * 5,
            () => job.serverPid,
          );
        }
        const results: LoadResult[][] = clients.map(() => []);
        for (let round = 0; round < job.rounds; round++) {
          for (let k = 0; k < clients.length; k++) {
            const i = (k + round) % clients.length;
            const client = clients[i]!;
            results[i]!.push(
              await load(
                () => client.call('echo', ECHO_ARGS),
                job.inFlight,
                job.warmupMs,
                job.durationMs,
                () => job.serverPid,
              ),
            );
          }
        }
        return results;
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    }
    case 'sessions': {
      // Opens sessions one after another and keeps them open while the harness measures the server.
      const clients: BenchClient[] = [];
      try {
        for (let i = 0; i < job.warm; i++) clients.push(await open());
        await ask({ type: 'warm' });
        const ms: number[] = [];
        for (let i = 0; i < job.count; i++) {
          const start = performance.now();
          clients.push(await open());
          ms.push(performance.now() - start);
        }
        await ask({ type: 'opened' });
        return { initP50Ms: median(ms) };
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      }
    }
  }
}

/**
 * Spawn to first answer (the handshake, `initialize` or `server/discover`, resolved) of every server,
 * `iterations` rounds, milliseconds per start by server id. Round i starts the servers one after
 * another in an order rotated by i and reversed every other round, so none always goes first or
 * always follows the same one.
 */
async function cold(
  servers: readonly ColdServer[],
  iterations: number,
  connect: ConnectClient,
): Promise<Record<string, number[]>> {
  const ms: Record<string, number[]> = Object.fromEntries(servers.map((s) => [s.id, []]));
  for (let round = 0; round < iterations; round++) {
    const k = round % servers.length;
    const order = [...servers.slice(k), ...servers.slice(0, k)];
    if (round % 2 === 1) order.reverse();
    for (const server of order) {
      const start = performance.now();
      const client = await connect(server.era, server.target);
      ms[server.id]!.push(performance.now() - start);
      await client.close();
    }
  }
  return ms;
}

/** Tells the harness where a `sessions` job stands and waits for it to say go on. */
function ask(message: { type: string }): Promise<void> {
  return new Promise((resolve) => {
    process.once('message', () => resolve());
    process.send!(message);
  });
}

// The harness went away (killed, or crashed): stop, which also ends a stdio server (stdin closes).
process.on('disconnect', () => process.exit(1));

process.once('message', async (job: Job) => {
  try {
    const result = await run(job, await loadClient(job.client));
    process.send!({ type: 'result', result }, () => process.exit(0));
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.send!({ type: 'error', message }, () => process.exit(1));
  }
});

/**
 * Switchboard with its shared stores in Redis (`switchboard/redis`) against the same server with the
 * in-memory defaults, in one process tree, and the Redis round trips each kind of call costs.
 *
 *   npm run bench:redis -- [--runs N] [--ms N]
 *
 * 1. Throughput: the raw client at 64 in flight against the `switchboard-http` fixture and the
 *    `switchboard-redis-http` fixture (the same server, every store in Redis), alternating, in both
 *    eras (server-alone.ts does the measuring); goal: 2026-07-28 >= 0.9x, legacy >= 0.6x.
 * 2. Round trips: one in-process node with the Redis stores serves each kind of call 50 times, one
 *    at a time; the writes on its Redis sockets (one write is one round trip: a tick's commands leave
 *    together) and Redis's own command count (INFO commandstats), per call.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Socket } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createHttpHandler, type HttpHandler, Server } from 'switchboard';
import { redisStores } from 'switchboard/redis';
import { startRedis } from '../examples/cluster/services.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1]!;
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const CALLS = 50;

async function throughput(redisUrl: string): Promise<void> {
  const script = fileURLToPath(new URL('./server-alone.js', import.meta.url));
  const child = fork(
    script,
    [
      '--servers',
      'switchboard-http,switchboard-redis-http',
      '--era',
      'both',
      '--runs',
      option('--runs', '5'),
      '--ms',
      option('--ms', '1500'),
    ],
    { env: { ...process.env, REDIS_URL: redisUrl } },
  );
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`server-alone exited with ${code}`);
}

/** Counts writes on sockets to `port` (this process's Redis connections) while `work` runs. */
async function writesDuring(port: number, work: () => Promise<void>): Promise<number> {
  const original = Socket.prototype.write;
  let writes = 0;
  Socket.prototype.write = function (this: Socket, ...args: unknown[]) {
    if (this.remotePort === port) writes++;
    return (original as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof original;
  try {
    await work();
  } finally {
    Socket.prototype.write = original;
  }
  return writes;
}

async function commandsDuring(admin: Redis, work: () => Promise<void>): Promise<number> {
  const count = async () => {
    const info = await admin.info('commandstats');
    let total = 0;
    for (const [, name, calls] of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
      if (name !== 'info') total += Number(calls);
    }
    return total;
  };
  const before = await count();
  await work();
  return (await count()) - before;
}

const headers = (method: string, name: string | undefined, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
  ...extra,
});

async function post(handler: HttpHandler, body: object, head: Record<string, string>) {
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', { method: 'POST', headers: head, body: JSON.stringify(body) }),
  );
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return { response, message: JSON.parse(json) as { result?: Record<string, any>; error?: unknown } };
}

const modernCall = (name: string, args: object, extra: object = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name,
    arguments: args,
    ...extra,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: { form: {} },
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      },
    },
  },
});

async function roundTrips(redisUrl: string, port: number): Promise<void> {
  const stores = await redisStores({ url: redisUrl, prefix: 'bench-rt:' });
  const server = new Server({ name: 'rt', version: '1' }, { ...stores.server });
  server.registerTool('echo', { inputSchema: { type: 'object' } }, () => 'ok');
  server.registerTool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } });
    return 'asked';
  });
  server.registerTool('job', { execution: { taskSupport: 'required' } }, () => 'done');
  const handler = createHttpHandler(server, { ...stores.http });
  const admin = new Redis(redisUrl);
  const modern = (name: string) => headers('tools/call', name, { 'mcp-protocol-version': MODERN });

  // A legacy session (2025-11-25), made once; its calls are what is counted.
  const init = await post(
    handler,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
    headers('initialize', undefined),
  );
  const session = init.response.headers.get('mcp-session-id')!;
  const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY };
  await post(
    handler,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    headers('notifications/initialized', undefined, inSession),
  );

  const taskIds: string[] = [];
  const scenarios: [string, () => Promise<void>][] = [
    [
      '2026-07-28 tools/call (nothing shared)',
      async () => void (await post(handler, modernCall('echo', {}), modern('echo'))),
    ],
    [
      '2026-07-28 input round: input_required, then the retry with requestState',
      async () => {
        const first = await post(handler, modernCall('ask', {}), modern('ask'));
        const state = first.message.result!.requestState;
        const answers = { '0': { action: 'accept', content: {} } };
        const second = await post(
          handler,
          modernCall('ask', {}, { requestState: state, inputResponses: answers }),
          modern('ask'),
        );
        if (second.message.result?.content?.[0]?.text !== 'asked') throw new Error('the retry failed');
      },
    ],
    [
      '2026-07-28 task: tools/call creating a task',
      async () => {
        const created = await post(handler, modernCall('job', {}), modern('job'));
        taskIds.push(created.message.result!.taskId);
      },
    ],
    [
      '2026-07-28 tasks/get',
      async () => {
        const taskId = taskIds.pop()!;
        const body = {
          jsonrpc: '2.0',
          id: 2,
          method: 'tasks/get',
          params: { taskId, _meta: modernCall('x', {}).params._meta },
        };
        await post(handler, body, headers('tasks/get', taskId, { 'mcp-protocol-version': MODERN }));
      },
    ],
    [
      'legacy session tools/call (2025-11-25, events kept for resumption)',
      async () =>
        void (await post(
          handler,
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {} } },
          headers('tools/call', 'echo', inSession),
        )),
    ],
  ];
  out('');
  out(`Redis round trips per call (${CALLS} calls each, one at a time, one node):`);
  out('');
  out('| Call | Round trips | Redis commands |');
  out('| --- | --- | --- |');
  for (const [name, call] of scenarios) {
    await call(); // warm: scripts loaded, connections busy
    let commands = 0;
    const writes = await writesDuring(port, async () => {
      commands = await commandsDuring(admin, async () => {
        for (let i = 0; i < CALLS; i++) await call();
      });
    });
    // The two INFO commands of the count go over the admin connection, also a socket to Redis.
    out(`| ${name} | ${((writes - 2) / CALLS).toFixed(2)} | ${(commands / CALLS).toFixed(2)} |`);
  }
  admin.disconnect();
  await server.close();
  await handler.close();
  await stores.close();
}

async function main(): Promise<void> {
  const redis = await startRedis();
  try {
    out(
      `Redis ${redis.url}; load average at start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    await throughput(redis.url);
    await roundTrips(redis.url, redis.port);
    out(
      `load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await redis.stop();
  }
}

await main();

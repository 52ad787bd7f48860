/**
 * What the gateway's front door costs per call (issue 22: API key, access rules, rate limits and the
 * audit log together at most 10 us of CPU per call at 64 calls in flight), measured on the parts
 * themselves in one process: `frontDoor()` checking an API key, then the `guard()` middleware
 * (access rule, rate limit, audit line) around a `tools/call` whose handler answers at once, in
 * batches of 64 in flight, against the same loop without them (alternating runs). CPU time
 * (`process.cpuUsage`), which holds under load far better than wall time; the audit lines are
 * written to a temporary file as in production (batched, one write per turn of the event loop).
 *
 *   npm run bench:front-door -- [--runs N] [--calls N] [--in-flight N]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthInfo } from '../src/engine/channel.js';
import type { MethodHandler } from '../src/engine/middleware.js';
import { Server } from '../src/extensions/server.js';
import { AuditLog } from '../src/gateway/audit.js';
import { parseGatewayConfig } from '../src/gateway/config.js';
import { frontDoor } from '../src/gateway/front-door.js';
import { guard } from '../src/gateway/guard.js';
import { RateLimits } from '../src/gateway/rate-limits.js';
import type { RequestContext } from '../src/server/context.js';
import type { HttpExchange } from '../src/transports/http/server/exchange.js';
import { median } from './lib/stats.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

const RUNS = option('--runs', 7);
const CALLS = option('--calls', 200_000);
const IN_FLIGHT = option('--in-flight', 64);
const KEY = randomBytes(32).toString('base64url');
const dir = mkdtempSync(join(tmpdir(), 'front-door-bench-'));

const loaded = parseGatewayConfig(
  join(dir, 'bench.json'),
  JSON.stringify({
    mcpServers: { up: { command: 'unused' } },
    gateway: {
      auth: { apiKeys: { alice: '${BENCH_KEY}', bob: '${OTHER_KEY}' } },
      access: [
        { principals: ['group:ops'], allow: ['up__*'], deny: ['up__delete_*'] },
        { principals: ['alice'], allow: ['up__*'] },
      ],
      rateLimits: [{ principals: ['*'], tools: ['up__*'], limit: '1000000000/second' }],
      audit: { file: 'audit.jsonl' },
    },
  }),
  { env: { BENCH_KEY: KEY, OTHER_KEY: randomBytes(32).toString('base64url') } },
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const { security } = loaded.config;
const server = new Server({ name: 'front-door-bench', version: '1.0.0' });
const audit = new AuditLog(security.audit!);
const middleware = guard(server, loaded.config, { limits: new RateLimits(security.rateLimits), audit })!;
const door = frontDoor(security.auth!);
const result = { content: [{ type: 'text', text: 'ok' }] };
const answer: MethodHandler<RequestContext> = () => Promise.resolve(result);
const guarded = middleware(answer);
const exchange = {
  method: 'POST',
  path: '/mcp',
  header: (name: string) => (name === 'authorization' ? `Bearer ${KEY}` : undefined),
} as unknown as HttpExchange;
const params = { name: 'up__echo', arguments: { text: 'hello', count: 3 } };
const contextFor = (auth: AuthInfo | undefined) =>
  ({ auth, client: { info: { name: 'bench' } }, link: {} }) as unknown as RequestContext;
const plain = contextFor(undefined);

async function oneCall(withDoor: boolean): Promise<unknown> {
  if (!withDoor) return answer('tools/call', params, plain);
  const auth = (await door.authenticate(exchange)) as AuthInfo;
  return guarded('tools/call', params, contextFor(auth));
}

async function measure(withDoor: boolean): Promise<number> {
  const before = process.cpuUsage();
  for (let done = 0; done < CALLS; done += IN_FLIGHT) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, () => oneCall(withDoor)));
  }
  await audit.flush();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

await measure(false);
await measure(true);
const without: number[] = [];
const withDoor: number[] = [];
const load = [loadavg()[0]!];
for (let run = 0; run < RUNS; run++) {
  without.push(await measure(false));
  withDoor.push(await measure(true));
  load.push(loadavg()[0]!);
}
await audit.close();
rmSync(dir, { recursive: true, force: true });
const added = withDoor.map((value, i) => value - without[i]!);
console.log(
  `the front door (API key, access, rate limit, audit) per tools/call at ${IN_FLIGHT} in flight, median of ${RUNS} runs of ${CALLS} calls: ` +
    `${median(added).toFixed(2)} us of CPU [${Math.min(...added).toFixed(2)}-${Math.max(...added).toFixed(2)}] ` +
    `(the bare loop: ${median(without).toFixed(2)} us; load average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)})`,
);

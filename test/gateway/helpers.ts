/** What the gateway tests share: the upstream fixtures, a gateway on loopback HTTP, a checked client. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Channel } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { type GatewayConfig, parseGatewayConfig } from '../../src/gateway/config.js';
import { frontDoor } from '../../src/gateway/front-door.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { type GuardOptions, guard } from '../../src/gateway/guard.js';
import { withHealthEndpoints } from '../../src/gateway/health-endpoints.js';
import type { UpstreamHealth } from '../../src/gateway/upstream.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { toNodeListener } from '../../src/node/listener.js';
import { type RunningServer, serve } from '../../src/node/serve.js';
import { ProtocolError } from '../../src/protocol/errors.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import type { RequestContext } from '../../src/server/context.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { CLI } from '../cli/run-cli.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { gates, until } from '../helpers/wait.js';
import { checkedChannel } from '../http/client/helpers.js';

export const UPSTREAM = fileURLToPath(new URL('../fixtures/gateway-upstream.js', import.meta.url));
export const OFFICIAL_V1 = fileURLToPath(new URL('../fixtures/gateway-official-v1.js', import.meta.url));

export const textOf = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('');
export const pidOf = (result: CallToolResult): number => Number(/pid (\d+)/.exec(textOf(result))?.[1]);

/** The CLI's gateway (`switchboard gateway CONFIG ...args`) once it serves: its URL, its stderr, stop(). */
export interface GatewayCli {
  readonly url: string;
  /** What it wrote to stderr so far (its JSON logs after the table of servers). */
  stderr(): string;
  /** SIGTERM, resolved with its exit code once it exited. */
  stop(): Promise<number | null>;
}

/**
 * Starts `switchboard gateway config ...args` with `env`; resolves once it printed the table of its
 * servers after "serving 1 server at URL" (one write), rejects if it exits first.
 */
export async function startGatewayCli(
  config: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[] = [],
): Promise<GatewayCli> {
  const child = spawnOwned(process.execPath, [CLI, 'gateway', config, ...args], { env });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving 1 server at (\S+)\n.*\n/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface StartedGateway {
  gateway: Gateway;
  http: RunningServer;
  url: string;
  close(): Promise<void>;
}

/** A checked config of `servers` (an mcpServers object) and gateway `options`. */
export function configOf(
  servers: Record<string, unknown>,
  options: Record<string, unknown> = {},
): GatewayConfig {
  const loaded = parseGatewayConfig(
    'gateway-test.json',
    JSON.stringify({ mcpServers: servers, gateway: options }),
  );
  assert.ok(loaded.ok, loaded.ok ? '' : JSON.stringify(loaded.problems));
  return loaded.config;
}

export async function startGateway(
  servers: Record<string, unknown>,
  options: Record<string, unknown> = {},
  runtime: { lock?: string } = {},
): Promise<StartedGateway> {
  const loaded = { config: configOf(servers, options) };
  const warnings: string[] = [];
  const catalog = await loadSchemaCatalog();
  const checked: SchemaCheckedChannel[] = [];
  const gateway = new Gateway(loaded.config, {
    version: '1.0.0',
    ...runtime,
    // Every frame the gateway sends upstream is checked against its revision's schema.
    wrapChannel: (channel) => {
      const wrapped = new SchemaCheckedChannel(channel, { catalog, side: 'client', peer: 'report' });
      checked.push(wrapped);
      return wrapped;
    },
    logger: { warn: (message) => warnings.push(message), error: (error) => warnings.push(error.message) },
  });
  await gateway.start();
  const http = await serve(createHttpHandler(gateway.server), { port: 0 });
  return {
    gateway,
    http,
    url: http.url,
    async close() {
      await http.close();
      await gateway.close();
      for (const channel of checked) channel.assertClean();
    },
  };
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** A node:http server on loopback whose listener can be swapped (the handler restarted on the same port). */
export async function listen(
  first: Listener,
): Promise<{ url: string; swap(next: Listener): void; close(): Promise<void> }> {
  let current = first;
  const server = createServer((req, res) => current(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    swap(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The gateway on loopback HTTP with its health paths, as `switchboard gateway` serves them:
 * `readyz(name)` and `metric(metric, name)` read one upstream's (the first one's by default).
 */
export async function healthServedGateway(servers: Record<string, unknown>) {
  const config = configOf(servers);
  const first = Object.keys(servers)[0]!;
  const gateway = new Gateway(config, { logger: { warn() {}, error() {} } });
  const handler = createHttpHandler(gateway.server);
  const http = await listen(withHealthEndpoints(toNodeListener(handler), gateway, config, {}));
  await gateway.start();
  const base = http.url.replace(/\/mcp$/, '');
  return {
    gateway,
    url: http.url,
    async readyz(name = first): Promise<UpstreamHealth> {
      const body = (await (await fetch(`${base}/readyz`)).json()) as { upstreams: UpstreamHealth[] };
      return body.upstreams.find((u) => u.name === name)!;
    },
    async metric(metric: string, name = first) {
      const text = await (await fetch(`${base}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${metric}{upstream="${name}"}`));
      return Number(line?.split(' ')[1]);
    },
    async close() {
      await handler.close();
      await http.close();
      await gateway.close();
    },
  };
}

/** A Switchboard client over HTTP that answers elicitation with `name`; frames it sends are schema-checked. */
export async function switchboardClient(url: string, name: string, era: 'auto' | 'legacy' = 'auto') {
  const asked: string[] = [];
  const client = new Client(
    { name: `client-${name}`, version: '1.0.0' },
    { version: era, probeTimeoutMs: 10_000 },
  );
  client.onElicitation((params) => {
    asked.push(params.message);
    return { action: 'accept', content: { name } };
  });
  const checked = await checkedChannel(
    new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false }),
  );
  await client.connect(checked);
  return { client, asked, assertClean: () => checked.assertClean() };
}

/** A Switchboard server on loopback HTTP, to be an upstream. */
export async function upstreamServer(
  build: (server: Server) => void,
  options: { legacyOnly?: boolean } = {},
) {
  const server = new Server(
    { name: 'pipeline-upstream', version: '1.0.0' },
    options.legacyOnly ? { revisions: LEGACY_REVISIONS } : {},
  );
  build(server);
  const http = await serve(createHttpHandler(server), { port: 0 });
  return { server, url: http.url, close: () => http.close() };
}

export async function gatewayOver(
  servers: Record<string, unknown>,
  options: Record<string, unknown> = {},
  wrapChannel?: (channel: Channel, upstream: string) => Channel,
  lock?: string,
) {
  const warnings: string[] = [];
  const gateway = new Gateway(configOf(servers, options), {
    logger: { warn: (m) => warnings.push(m), error: (e) => warnings.push(e.message) },
    ...(wrapChannel ? { wrapChannel } : {}),
    ...(lock === undefined ? {} : { lock }),
  });
  await gateway.start();
  const http = await serve(createHttpHandler(gateway.server), { port: 0 });
  return {
    gateway,
    url: http.url,
    warnings,
    async close() {
      await http.close();
      await gateway.close();
    },
  };
}

/**
 * A gateway in this process over the HTTP upstream at `url` (server "up") behind its front door:
 * the API keys of alice and bob, the `access` rules, on loopback HTTP.
 */
export async function frontDoorOver(
  url: string,
  keys: { alice: string; bob: string },
  access: readonly unknown[],
  options: GuardOptions = {},
): Promise<{ gateway: Gateway; url: string; close(): Promise<void> }> {
  const loaded = parseGatewayConfig(
    'front-door.json',
    JSON.stringify({
      mcpServers: { up: { url } },
      gateway: { auth: { apiKeys: { alice: '${ALICE_KEY}', bob: '${BOB_KEY}' } }, access },
    }),
    { env: { ALICE_KEY: keys.alice, BOB_KEY: keys.bob } },
  );
  assert.ok(loaded.ok, loaded.ok ? '' : JSON.stringify(loaded.problems));
  const { config } = loaded;
  const gateway = new Gateway(config, { guard: (server) => guard(server, config, options) });
  await gateway.start();
  const http = await serve(createHttpHandler(gateway.server, { auth: frontDoor(config.security.auth!) }), {
    port: 0,
  });
  return {
    gateway,
    url: http.url,
    async close() {
      await http.close();
      await gateway.close();
    },
  };
}

/** The ProtocolError `promise` rejects with (it must reject, and with one). */
export async function protocolFailure(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => assert.fail('should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ProtocolError, String(error));
  return error;
}

/** Processes whose parent is this one (Linux /proc), zombies included: what the gateway spawned. */
export function children(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === process.pid) found.push(Number(entry));
  }
  return found;
}

/** Waits until no child of this process is left (each is reaped once it exits). */
export const noChildren = (label: string) => until(() => children().length === 0, `${label}: no child left`);

const aborted = (ctx: RequestContext): Promise<void> =>
  new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * An HTTP upstream with tasks: `wait` runs until its gate opens or it is cancelled; `confirm` asks
 * a name. `seen` is every `tasks/*` request it was sent (method and task id), in order.
 */
export async function taskUpstream(name: string) {
  const gateOf = gates();
  const cancelled: string[] = [];
  const seen: Array<{ method: string; taskId: unknown }> = [];
  const server = new Server({ name: `tasks-${name}`, version: '1.0.0' }, { tasks: { pollIntervalMs: 20 } });
  server.use((next) => (method, params, ctx) => {
    if (method.startsWith('tasks/')) seen.push({ method, taskId: params.taskId });
    return next(method, params, ctx);
  });
  server.registerTool(
    'wait',
    { execution: { taskSupport: 'optional' }, inputSchema: { type: 'object' } },
    async (args, ctx) => {
      const key = String(args.gate);
      await Promise.race([gateOf(key).wait, aborted(ctx).then(() => cancelled.push(key))]);
      return `${name} released ${key}`;
    },
  );
  server.registerTool('confirm', { execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    const who = await ctx.elicit({
      message: 'Who confirms?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    return `${name} confirmed by ${who.action === 'accept' ? who.content.name : 'nobody'}`;
  });
  const http: RunningServer = await serve(createHttpHandler(server), { port: 0 });
  return {
    url: http.url,
    open: (key: string) => gateOf(key).open(),
    cancelled,
    seen,
    close: () => http.close(),
  };
}

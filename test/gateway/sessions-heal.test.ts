/**
 * Sessions that heal. An HTTP upstream that forgets a downstream client's upstream session (one
 * session evicted, or the handler restarted and every session forgotten) answers 404: the gateway's
 * channel opens a new session for that client alone, the client's own session with the gateway stays,
 * its next call works and runs once upstream, the new session gets the old one's log level and
 * resource subscriptions, other clients' upstream sessions are untouched, and `/readyz` and
 * `/metrics` count the reopened sessions per upstream. Downstream: Switchboard's client and the
 * official SDK v1 client. And a stdio upstream that dies mid-call, for each method that runs
 * upstream code: that call ends with an error naming the upstream, the next call works, no process is
 * left behind (zombies included), and the deaths are counted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '../../src/extensions/server.js';
import { toNodeListener } from '../../src/node/listener.js';
import { ProtocolError } from '../../src/protocol/errors.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { createHttpHandler, type HttpHandler } from '../../src/transports/http/server/handler.js';
import { gate, until } from '../helpers/wait.js';
import { assertExited } from '../interop/helpers/processes.js';
import {
  healthServedGateway,
  listen,
  noChildren,
  pidOf,
  switchboardClient,
  textOf,
  UPSTREAM,
} from './helpers.js';

/**
 * A legacy-only upstream whose handler can be restarted: a new Server and handler, every session of
 * the old one forgotten. It records, per upstream session, the methods it was sent and the runs of
 * its `session` tool (which answers with the session's id).
 */
async function restartableUpstream() {
  const seen: string[] = [];
  let runs = 0;
  const build = () => {
    const server = new Server(
      { name: 'healing-upstream', version: '1.0.0' },
      { revisions: LEGACY_REVISIONS },
    );
    server.use((next) => (method, params, ctx) => {
      seen.push(`${ctx.requestHeaders?.['mcp-session-id']} ${method}`);
      return next(method, params, ctx);
    });
    server.registerTool('session', { description: 'Names the session it runs in.' }, (_args, ctx) => {
      runs++;
      return `session ${ctx.requestHeaders?.['mcp-session-id']}`;
    });
    server.registerResource('memo', 'memo://one', { description: 'A memo' }, () => 'memo');
    return server;
  };
  let server = build();
  let handler: HttpHandler = createHttpHandler(server);
  const http = await listen(toNodeListener(handler));
  return {
    url: http.url,
    seen,
    get runs() {
      return runs;
    },
    get server() {
      return server;
    },
    /** Forgets the session `id` (as a server evicting it would): DELETE, then 404 for it. */
    async evict(id: string) {
      const response = await fetch(http.url, {
        method: 'DELETE',
        headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
      });
      assert.equal(response.status, 200, `${id}: ${await response.text()}`);
    },
    /** A new handler on the same port: every session forgotten. */
    async restart() {
      const old = handler;
      server = build();
      handler = createHttpHandler(server);
      http.swap(toNodeListener(handler));
      await old.close();
    },
    async close() {
      await handler.close();
      await http.close();
    },
  };
}

const sessionOf = (result: CallToolResult) => /^session (\S+)$/.exec(textOf(result))?.[1] ?? '';

describe('gateway: sessions that heal', () => {
  test('an HTTP upstream that forgets a client’s session (evicted, or restarted): a new one for that client alone, counted', async () => {
    const upstream = await restartableUpstream();
    const started = await healthServedGateway({ up: { url: upstream.url } });
    const sb = await switchboardClient(started.url, 'ann', 'legacy');
    const v1 = new V1Client({ name: 'sdk-v1', version: '1.0.0' });
    await v1.connect(new StreamableHTTPClientTransport(new URL(started.url)));
    const v1Call = async () =>
      sessionOf((await v1.callTool({ name: 'up__session', arguments: {} })) as CallToolResult);
    try {
      assert.equal((await started.readyz()).sessionsReopened, 0);
      assert.equal(await started.metric('switchboard_gateway_upstream_sessions_reopened_total'), 0);
      const a1 = sessionOf(await sb.client.callTool('up__session'));
      const b1 = await v1Call();
      assert.ok(a1 && b1 && a1 !== b1, `two upstream sessions: ${a1}, ${b1}`);

      // The upstream evicts the Switchboard client's session only.
      await upstream.evict(a1);
      const a2 = sessionOf(await sb.client.callTool('up__session'));
      assert.ok(a2 && a2 !== a1, 'a new upstream session for the evicted client');
      assert.equal(await v1Call(), b1, 'the other client keeps its upstream session');
      assert.equal(upstream.runs, 4, 'each downstream call ran once upstream');
      // The new session has the old one's log level (the gateway asks its upstream sessions for every message).
      assert.ok(upstream.seen.includes(`${a2} logging/setLevel`), upstream.seen.join('\n'));
      assert.equal((await started.readyz()).sessionsReopened, 1);
      assert.equal(await started.metric('switchboard_gateway_upstream_sessions_reopened_total'), 1);

      // A subscription held on the gateway's own session is taken to its new session.
      let updated!: (uri: string) => void;
      const update = new Promise<string>((resolve) => {
        updated = resolve;
      });
      const subscription = sb.client.listen(
        { resourceSubscriptions: ['gateway://up/memo://one'] },
        { onResourceUpdated: (uri) => updated(uri) },
      );
      await subscription.acknowledged;
      const subscribes = () => upstream.seen.filter((line) => line.endsWith(' resources/subscribe')).length;
      assert.equal(subscribes(), 1);

      // The handler restarts: every session is forgotten, the gateway's own (the catalog's) included.
      await upstream.restart();
      const a3 = sessionOf(await sb.client.callTool('up__session'));
      const b3 = await v1Call();
      assert.ok(a3 && b3 && a3 !== a2 && b3 !== b1 && a3 !== b3, `${a3}, ${b3}`);
      assert.equal(upstream.runs, 6, 'each downstream call ran once upstream');
      // Three sessions were forgotten: both clients' and the catalog's (renewed by its GET stream).
      await until(async () => (await started.readyz()).sessionsReopened === 4, 'the catalog session renewed');
      await until(() => subscribes() === 2, 'the subscription taken to the new catalog session');
      upstream.server.notifyResourceUpdated('memo://one');
      assert.equal(await update, 'gateway://up/memo://one');
      assert.equal(await started.metric('switchboard_gateway_upstream_sessions_reopened_total'), 4);
      assert.equal((await started.readyz()).sessionsLost, 0);
      assert.equal(started.gateway.health()[0]?.state, 'up');
      await subscription.close();
      sb.assertClean();
    } finally {
      await sb.client.close();
      await v1.close();
      await started.close();
      await upstream.close();
    }
  });

  test('a stdio upstream that dies mid-call (tools/call, prompts/get, resources/read): an error naming it, the next call works, no child left, counted', async () => {
    const started = await healthServedGateway({
      local: { command: process.execPath, args: [UPSTREAM, 'faults'] },
    });
    const lost = 'switchboard_gateway_upstream_sessions_lost_total';
    // A legacy client: its own upstream session (process), a new one after each death.
    const legacy = await switchboardClient(started.url, 'dee', 'legacy');
    // A 2026-07-28 client: its calls go on the gateway's own session, which restarts.
    const modern = await switchboardClient(started.url, 'eve');
    try {
      assert.equal(await started.metric(lost), 0);
      const pid = async () => pidOf(await legacy.client.callTool('local__whoami'));
      const namesUpstream = (error: unknown) =>
        error instanceof ProtocolError && /^Upstream "local": .*(exited|closed)/s.test(error.message);
      let running = await pid();
      const crashed = await legacy.client.callTool('local__crash');
      assert.equal(crashed.isError, true);
      assert.match(textOf(crashed), /^Upstream "local": .*(exited|closed)/s);
      await assertExited([running], 'the upstream that died in tools/call');
      running = await pid();
      assert.ok(running > 0, 'a new process answers');
      // A prompt or a read is repeated once on a new session (it changes nothing): that one dies too.
      await assert.rejects(legacy.client.getPrompt('local__crash'), namesUpstream);
      await assertExited([running], 'the upstream that died in prompts/get');
      running = await pid();
      await assert.rejects(legacy.client.readResource('gateway://local/crash://1'), namesUpstream);
      await assertExited([running], 'the upstream that died in resources/read');
      assert.match(textOf(await legacy.client.callTool('local__whoami')), /pid \d+/);
      // 1 + 2 + 2 sessions died; the gateway's own session was not one of them.
      assert.equal((await started.readyz()).sessionsLost, 5);
      assert.equal(await started.metric(lost), 5);
      assert.equal((await started.readyz()).restarts, 0);

      const died = await modern.client.callTool('local__crash');
      assert.equal(died.isError, true);
      assert.match(textOf(died), /^Upstream "local": .*(exited|closed)/s);
      await until(async () => (await started.readyz()).restarts === 1, 'the upstream restarted');
      await until(() => started.gateway.health()[0]?.state === 'up', 'the upstream up again');
      assert.match(textOf(await modern.client.callTool('local__whoami')), /pid \d+/);
      assert.equal((await started.readyz()).sessionsLost, 6);
      assert.equal(await started.metric(lost), 6);
      legacy.assertClean();
      modern.assertClean();
    } finally {
      await legacy.client.close();
      await modern.client.close();
      await started.close();
    }
    await noChildren('after upstreams that died mid-call');
  });

  test('an upstream up again after its circuit opened: a list or a call sent before its items are read back waits for them, never "Unknown tool"', async () => {
    const build = (label: string) => {
      const server = new Server({ name: 'circuit-upstream', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Names this run.' }, () => label);
      return server;
    };
    let handler: HttpHandler = createHttpHandler(build('first'));
    const http = await listen(toNodeListener(handler));
    // A 2026-07-28 upstream: only the health check can find it down.
    const started = await healthServedGateway({ up: { url: http.url, healthCheckIntervalMs: 100 } });
    const modern = await switchboardClient(started.url, 'cy');
    try {
      assert.equal(textOf(await modern.client.callTool('up__whoami')), 'first');
      // Down: every request answered 503 until its circuit opens and its items are taken off.
      http.swap((_req, res) => {
        res.writeHead(503).end();
      });
      await until(async () => (await started.readyz()).state === 'circuit-open', 'the circuit to open');
      await until(
        async () =>
          !(await modern.client.listTools({ fresh: true })).tools.some((t) => t.name === 'up__whoami'),
        'its tools taken off',
      );
      // Back, its tools/list held: the gateway says it is up before it has read its tools back.
      const listing = gate();
      const held = gate();
      const server = build('second');
      server.intercept('tools/list', async (params, _ctx, next) => {
        listing.open();
        await held.wait;
        return next(params);
      });
      await handler.close();
      handler = createHttpHandler(server);
      http.swap(toNodeListener(handler));
      await until(async () => (await started.readyz()).state === 'up', 'the upstream up again');
      await listing.wait;
      const call = modern.client.callTool('up__whoami');
      const list = modern.client.listTools({ fresh: true });
      held.open();
      assert.equal(textOf(await call), 'second');
      assert.ok((await list).tools.some((t) => t.name === 'up__whoami'));
      modern.assertClean();
    } finally {
      await modern.client.close();
      await started.close();
      await handler.close();
      await http.close();
    }
  });
});

/**
 * What an outside attack on the gateway found, each as the attack: the vendor-method path used to
 * reach hidden tools, a timed-out call's lease passing its upstream's logs to the next caller, and
 * a `list_changed` storm answered with a list per notification.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { protocolFailure } from '../helpers/rejects.js';
import { gate, until } from '../helpers/wait.js';
import { gatewayOver, switchboardClient, textOf, upstreamServer } from './helpers.js';

const RAW_LEGACY = fileURLToPath(new URL('../fixtures/gateway-raw-legacy.js', import.meta.url));

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

describe('gateway: defects an outside attack found', () => {
  const closing: Array<() => Promise<void>> = [];
  after(async () => {
    for (const close of closing.reverse()) await close();
  });

  test('1. the vendor-method path forwards no MCP method: hidden, excluded and held tools stay unreachable', async () => {
    const runs: string[] = [];
    const upstream = await upstreamServer((server) => {
      for (const name of ['write_secret', 'outside', 'held', 'shown']) {
        server.registerTool(name, { description: `The ${name} tool.` }, () => {
          runs.push(name);
          return text(`${name} ran`);
        });
      }
      server.method('acme/echo', {}, (params) => ({ echoed: params }));
    });
    closing.push(upstream.close);
    // `held` was pinned with another definition: --lock holds it back.
    const lock = join(mkdtempSync(join(tmpdir(), 'gateway-attack-')), 'tools.lock');
    writeFileSync(lock, JSON.stringify({ version: 1, tools: { ev__held: 'sha256:0' } }));
    const started = await gatewayOver(
      {
        ev: { url: upstream.url, include: ['write_secret', 'held', 'shown'], exclude: ['write_secret'] },
      },
      {},
      undefined,
      lock,
    );
    closing.push(started.close);
    for (const era of ['auto', 'legacy'] as const) {
      const { client } = await switchboardClient(started.url, `attacker-${era}`, era);
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['ev__shown'],
      );
      for (const name of ['write_secret', 'outside', 'held']) {
        const refused = await protocolFailure(() =>
          client.request('ev__tools/call', { name, arguments: {} } as never, { unchecked: true }),
        );
        assert.equal(refused.code, ErrorCode.MethodNotFound, refused.message);
        assert.match(refused.message, /answers MCP methods itself/);
      }
      for (const method of [
        'ev__prompts/get',
        'ev__resources/read',
        'ev__completion/complete',
        'ev__tasks/list',
      ]) {
        const refused = await protocolFailure(() => client.request(method, {} as never, { unchecked: true }));
        assert.equal(refused.code, ErrorCode.MethodNotFound, `${method}: ${refused.message}`);
      }
      // A server's own method still goes through.
      const echoed = await client.request('ev__acme/echo', { hello: 'there' } as never, { unchecked: true });
      assert.equal((echoed as { echoed: { hello?: string } }).echoed.hello, 'there');
      await client.close();
    }
    assert.deepEqual(runs, [], 'no hidden tool ran upstream');
  });

  test("2. a lease whose call timed out is not handed on: its upstream's late logs reach nobody else", async () => {
    const started = await gatewayOver({
      raw: { command: process.execPath, args: [RAW_LEGACY], timeoutMs: 1000 },
    });
    closing.push(started.close);
    const connect = async (name: string) => {
      const client = new Client({ name, version: '1.0.0' }, { logLevel: 'debug' });
      const logs: unknown[] = [];
      client.onLog((message) => logs.push(message.data));
      await client.connect(new StreamableHttpClientChannel(started.url, { fetch: nodeFetch }));
      assert.equal(client.revision, '2026-07-28');
      return { client, logs };
    };
    const first = await connect('first');
    const second = await connect('second');
    // The upstream never answers: the call times out, and its leased session must not be reused.
    const late = await first.client.callTool('raw__late');
    assert.equal(late.isError, true);
    assert.match(textOf(late), /Upstream "raw".*no response within/s);
    const quick = await second.client.callTool('raw__quick');
    assert.match(textOf(quick), /^quick pid \d+$/);
    assert.deepEqual(second.logs, ['quick log'], "another client's logs reached this one");
    await first.client.close();
    await second.client.close();
  });

  test('6. a list_changed storm: at most one refresh running and one waiting per upstream and list', async () => {
    let lists = 0;
    const hold = gate();
    let churn: (() => void) | undefined;
    let marker: (() => void) | undefined;
    const upstream = await upstreamServer((server) => {
      const flip = server.registerTool('flip', {}, () => text('flip'));
      server.intercept('tools/list', async (params, _ctx, next) => {
        lists++;
        // Every list after the first waits while the storm goes on.
        if (lists > 1) await hold.wait;
        return next(params);
      });
      churn = () => (flip.enabled ? flip.disable() : flip.enable());
      marker = () => server.registerTool('marker', {}, () => text('marker'));
    });
    closing.push(upstream.close);
    const started = await gatewayOver({ storm: { url: upstream.url } });
    closing.push(started.close);
    assert.equal(lists, 1);
    // 3 000 notifications, one per turn (the upstream coalesces changes within one).
    for (let i = 0; i < 3000; i++) {
      churn!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await until(() => lists >= 2, 'the first refresh of the storm started');
    hold.open();
    // One change more, after the storm: once the gateway shows it, every refresh before it ran.
    marker!();
    await until(() => started.gateway.exposed('storm').tools === 2, 'the change after the storm shown');
    // No ordering here, an absence: a backlog of queued refreshes would go on listing (the unfixed
    // gateway's 3 000, at a loopback round trip each), so give it a second to show itself.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // The held refresh, the one that waited for it, and perhaps one for the marker.
    assert.ok(lists <= 4, `${lists} tools/list requests for 3 001 notifications`);
  });
});

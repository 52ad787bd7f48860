/**
 * `gateway.access` and what the gateway tells each caller unasked: a subscription (legacy
 * `resources/subscribe`, 2026-07-28 `subscriptions/listen` with `resourceSubscriptions`) to a URI
 * the rules deny is refused exactly like one nobody serves, also under a template the rules allow,
 * and nothing is followed upstream for it; `list_changed` (legacy notifications, 2026-07-28 listen
 * streams) reaches a caller only when something it may see changed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import type { Server } from '../../src/extensions/server.js';
import { AuditLog } from '../../src/gateway/audit.js';
import type { Gateway } from '../../src/gateway/gateway.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { until } from '../helpers/wait.js';
import { frontDoorOver, protocolFailure, upstreamServer } from './helpers.js';

const ALICE = randomBytes(32).toString('base64url');
const BOB = randomBytes(32).toString('base64url');
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

const ACCESS = [
  {
    principals: ['alice'],
    allow: ['up__*', 'gateway://up/*'],
    deny: ['gateway://up/memo://secret'],
  },
  { principals: ['bob'], allow: ['up__pub_*', 'gateway://up/memo://pub'] },
];

describe('gateway.access: what each caller is told unasked', () => {
  let upstream: Awaited<ReturnType<typeof upstreamServer>>;
  let upstreamApi!: Server;
  let gateway: Gateway;
  let started: Awaited<ReturnType<typeof frontDoorOver>>;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), 'notices-audit-'));
  const audit = new AuditLog({ file: join(dir, 'audit.jsonl'), maxBytes: 1 << 20 });

  /** The audit lines written so far. */
  const audited = async () => {
    await audit.flush();
    const text = existsSync(audit.file) ? readFileSync(audit.file, 'utf8').trimEnd() : '';
    return text === '' ? [] : text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  /** The URIs the gateway follows upstream, for every caller. */
  const followed = () =>
    gateway
      .following()
      .map((f) => f.uri)
      .sort();

  before(async () => {
    upstream = await upstreamServer((server) => {
      upstreamApi = server;
      server.registerTool('pub_a', {}, () => 'a');
      server.registerTool('sec_a', {}, () => 'a');
      server.registerPrompt('pub_p', {}, () => 'p');
      server.registerResource('pub', 'memo://pub', {}, () => 'pub');
      server.registerResource('sec', 'memo://sec', {}, () => 'sec');
      server.registerResourceTemplate('memo', 'memo://{id}', {}, (uri) => ({
        contents: [{ uri, text: uri }],
      }));
    });
    started = await frontDoorOver(upstream.url, { alice: ALICE, bob: BOB }, ACCESS, { audit });
    gateway = started.gateway;
    url = started.url;
  });
  after(async () => {
    await started?.close();
    await upstream?.close();
    await audit.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const connect = async (key: string, era: 'auto' | 'legacy') => {
    const client = new Client({ name: `notices-${era}`, version: '1.0.0' }, { version: era, cache: false });
    await client.connect(
      new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false, headers: bearer(key) }),
    );
    return client;
  };

  test('resources/subscribe: a denied URI is refused as an unserved one, under an allowed template too', async () => {
    const alice = await connect(ALICE, 'legacy');
    const bob = await connect(BOB, 'legacy');
    const subscribe = (client: Client, uri: string) => client.request('resources/subscribe', { uri });
    try {
      // Served to alice by the template memo://{id}, which she may use, but the URI is denied.
      const denied = await protocolFailure(subscribe(alice, 'gateway://up/memo://secret'));
      const unserved = await protocolFailure(subscribe(alice, 'gateway://up/nothing://secret'));
      assert.equal(denied.code, -32002);
      assert.equal(unserved.code, -32002);
      assert.equal(denied.message.replace('memo://', 'X://'), unserved.message.replace('nothing://', 'X://'));
      // Bob may see neither memo://sec (a listed resource) nor the template.
      assert.equal((await protocolFailure(subscribe(bob, 'gateway://up/memo://sec'))).code, -32002);
      assert.equal((await protocolFailure(subscribe(bob, 'gateway://up/memo://other'))).code, -32002);
      assert.deepEqual(gateway.following(), []);
      assert.deepEqual(await subscribe(alice, 'gateway://up/memo://other'), {});
      assert.deepEqual(await subscribe(bob, 'gateway://up/memo://pub'), {});
      assert.deepEqual(followed(), ['gateway://up/memo://other', 'gateway://up/memo://pub']);
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  for (const era of ['auto', 'legacy'] as const) {
    test(`listen (${era}): the acknowledgement leaves out a denied URI as an unserved one; nothing is followed for it`, async () => {
      const before = (await audited()).length;
      const alice = await connect(ALICE, era);
      const bob = await connect(BOB, era);
      const follow = async (client: Client, uris: string[]) => {
        const subscription = client.listen({ resourceSubscriptions: uris }, {});
        const agreed = await subscription.acknowledged;
        return { subscription, uris: agreed.resourceSubscriptions ?? [] };
      };
      try {
        const a = await follow(alice, [
          'gateway://up/memo://other',
          'gateway://up/memo://secret',
          'gateway://up/nothing://secret',
        ]);
        assert.deepEqual(a.uris, ['gateway://up/memo://other']);
        const b = await follow(bob, [
          'gateway://up/memo://pub',
          'gateway://up/memo://sec',
          'gateway://up/memo://other',
        ]);
        assert.deepEqual(b.uris, ['gateway://up/memo://pub']);
        assert.deepEqual(followed(), ['gateway://up/memo://other', 'gateway://up/memo://pub']);
        await a.subscription.close();
        await b.subscription.close();
        // The audit says what each was refused (a legacy client subscribes URI by URI; a listen is
        // recorded when it ends, so wait for both lines).
        let lines: Array<Record<string, unknown>> = [];
        const listens = () => lines.filter((r) => r.method === 'subscriptions/listen');
        await until(async () => {
          lines = (await audited()).slice(before);
          return era !== 'auto' || listens().length >= 2;
        }, 'both listens in the audit log');
        const refused = (principal: string) =>
          lines
            .filter(
              (r) => r.principal === principal && r.client === `notices-${era}` && r.outcome === 'denied',
            )
            .flatMap((r) => String(r.name).split(' '))
            .sort();
        if (era === 'auto')
          assert.deepEqual(
            listens()
              .map((r) => [r.principal, r.outcome, r.upstream])
              .sort(),
            [
              ['alice', 'denied', 'up'],
              ['bob', 'denied', 'up'],
            ],
          );
        assert.deepEqual(refused('alice'), ['gateway://up/memo://secret']);
        assert.deepEqual(refused('bob'), ['gateway://up/memo://other', 'gateway://up/memo://sec']);
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  }

  for (const era of ['legacy', 'auto'] as const) {
    test(`list_changed (${era}): a change a caller cannot see is not announced to it`, async () => {
      const alice = await connect(ALICE, era);
      const bob = await connect(BOB, era);
      // Each one's notifications in the order they arrive (one stream each: a legacy session's, or
      // one listen stream for all three lists).
      const heard = { alice: [] as string[], bob: [] as string[] };
      const waiters: Array<() => void> = [];
      const record = (who: 'alice' | 'bob', client: Client) =>
        client.listen(
          { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
          (method) => {
            heard[who].push(method.replace(/^notifications\/(\w+)\/list_changed$/, '$1'));
            for (const wake of waiters.splice(0)) wake();
          },
        );
      const until = (check: () => boolean) =>
        new Promise<void>((resolve) => {
          const test = () => (check() ? resolve() : waiters.push(test));
          test();
        });
      const streams = [record('alice', alice), record('bob', bob)];
      await Promise.all(streams.map((stream) => stream.acknowledged));
      try {
        // Seen by alice only: a tool, a prompt, a resource, a template.
        const secB = upstreamApi.registerTool(`sec_b${era}`, {}, () => 'b');
        await until(() => heard.alice.includes('tools'));
        upstreamApi.registerPrompt(`sec_p${era}`, {}, () => 'p');
        await until(() => heard.alice.includes('prompts'));
        upstreamApi.registerResource(`sec2${era}`, `memo://sec2${era}`, {}, () => 'sec2');
        await until(() => heard.alice.includes('resources'));
        // Seen by both: bob hears of it, and of nothing before it (his stream keeps the order).
        const pubB = upstreamApi.registerTool(`pub_b${era}`, {}, () => 'b');
        await until(() => heard.bob.length > 0 && heard.alice.length >= 4);
        assert.deepEqual(heard.bob, ['tools']);
        assert.deepEqual(heard.alice, ['tools', 'prompts', 'resources', 'tools']);
        const tools = (await bob.listTools()).tools.map((t) => t.name).sort();
        assert.deepEqual(tools, ['up__pub_a', `up__pub_b${era}`]);
        // A removal is a change for whoever saw the item.
        secB.remove();
        await until(() => heard.alice.length >= 5);
        pubB.remove();
        await until(() => heard.bob.length >= 2 && heard.alice.length >= 6);
        assert.deepEqual(heard.bob, ['tools', 'tools']);
      } finally {
        for (const stream of streams) await stream.close();
        await alice.close();
        await bob.close();
      }
    });
  }
});

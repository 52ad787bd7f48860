/**
 * Pagination: every list pages by `pageSize`, in a deterministic order; walking the pages yields each
 * item exactly once even when items come and go between pages; invented cursors are answered with
 * -32602 (never a crash); the client walks pages itself up to `maxPages`, or fetches one.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, SwitchboardError } from '../../src/protocol/errors.js';
import { REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { type Frame, openWire, type Wire } from '../helpers/wire.js';

trapUnhandledRejections();

const PAGE = 3;
const COUNT = 10;
const names = Array.from({ length: COUNT }, (_, i) => `item-${String.fromCharCode(106 - i)}`); // item-j .. item-a

function makeServer(options: { dynamic?: boolean; pageSize?: number } = {}) {
  const server = new Server({ name: 'pages', version: '1.0.0' }, { pageSize: options.pageSize ?? PAGE });
  for (const name of names) {
    server.registerTool(name, {}, () => name);
    server.registerPrompt(name, {}, () => name);
    if (!options.dynamic) server.registerResource(name, `mem://${name}`, {}, () => name);
    server.registerResourceTemplate(name, `mem://${name}/{id}`, {}, () => name);
  }
  if (options.dynamic) {
    server.registerResourceTemplate(
      'lister',
      'mem://listed/{id}',
      {
        list: () => names.map((n) => ({ uri: `mem://listed/${n}`, name: n })),
      },
      () => 'x',
    );
  }
  return server;
}

const LISTS = [
  ['tools/list', 'tools', (x: Frame) => x.name],
  ['prompts/list', 'prompts', (x: Frame) => x.name],
  ['resources/list', 'resources', (x: Frame) => x.uri],
  ['resources/templates/list', 'resourceTemplates', (x: Frame) => x.uriTemplate],
] as const;

/** A wire in `revision`'s state, and a list call that speaks it. */
async function listWire(server: Server, revision: Revision) {
  const wire = await openWire(server, { check: true });
  if (revision !== '2026-07-28') await wire.initialize(revision);
  const list = (method: string, params: Record<string, unknown> = {}) =>
    revision === '2026-07-28' ? wire.modern(method, params) : wire.request(method, params);
  return { wire, list };
}

async function walk(
  list: (m: string, p?: Record<string, unknown>) => Promise<Frame>,
  method: string,
  key: string,
) {
  const pages: Frame[] = [];
  let cursor: string | undefined;
  do {
    const response = await list(method, cursor === undefined ? {} : { cursor });
    assert.ok(response.result, JSON.stringify(response));
    pages.push(response.result);
    cursor = response.result.nextCursor;
  } while (cursor !== undefined && pages.length < 100);
  return { pages, items: pages.flatMap((p) => p[key] as Frame[]) };
}

for (const revision of REVISIONS) {
  describe(`pagination on ${revision}`, () => {
    for (const [method, key, id] of LISTS) {
      test(`${method}: pages of ${PAGE}, sorted, every item exactly once`, async () => {
        const { wire, list } = await listWire(makeServer(), revision);
        const { pages, items } = await walk(list, method, key);
        assert.deepEqual(
          pages.map((p) => (p[key] as unknown[]).length),
          [3, 3, 3, 1],
        );
        assert.equal(pages.at(-1)!.nextCursor, undefined);
        const ids = items.map(id);
        assert.deepEqual(ids, [...ids].sort(), 'deterministic (sorted) order');
        assert.equal(new Set(ids).size, COUNT);
        if (revision === '2026-07-28') {
          for (const page of pages) assert.deepEqual([page.ttlMs, page.cacheScope], [60000, 'public']);
        }
        // The same walk again gives the same pages (and the same cursors).
        const again = await walk(list, method, key);
        assert.deepEqual(again.pages, pages);
        wire.assertClean();
        await wire.close();
      });
    }

    test('resources listed by templates page the same way, merged with nothing else', async () => {
      const { wire, list } = await listWire(makeServer({ dynamic: true }), revision);
      const { pages, items } = await walk(list, 'resources/list', 'resources');
      assert.deepEqual(
        pages.map((p) => p.resources.length),
        [3, 3, 3, 1],
      );
      assert.deepEqual(
        items.map((r) => r.name),
        [...names].sort(),
      );
      wire.assertClean();
      await wire.close();
    });

    test('items added and removed between pages: nothing seen twice, survivors all seen', async () => {
      const server = makeServer();
      const extra = new Map(names.map((n) => [n, server.registerTool(`${n}-x`, {}, () => n)]));
      const { wire, list } = await listWire(server, revision);
      let response = await list('tools/list');
      const seen: string[] = response.result.tools.map((t: Frame) => t.name);
      assert.deepEqual(seen, ['item-a', 'item-a-x', 'item-b']);
      // Between pages: remove one item already seen and one not yet reached; add one before and one
      // after the cursor.
      extra.get('item-a')!.remove();
      extra.get('item-j')!.remove();
      server.registerTool('aaa-new-before', {}, () => 'x');
      server.registerTool('zzz-new-after', {}, () => 'x');
      while (response.result.nextCursor !== undefined) {
        response = await list('tools/list', { cursor: response.result.nextCursor });
        seen.push(...response.result.tools.map((t: Frame) => t.name));
      }
      assert.equal(new Set(seen).size, seen.length, `duplicates in ${seen}`);
      assert.ok(!seen.includes('item-j-x'), 'removed before it was reached: not listed');
      assert.ok(seen.includes('zzz-new-after'), 'added after the cursor: listed');
      assert.ok(!seen.includes('aaa-new-before'), 'added before the cursor: not listed in this walk');
      const survivors = [...names, ...names.map((n) => `${n}-x`)].filter((n) => n !== 'item-j-x');
      for (const name of survivors) assert.ok(seen.includes(name), `${name} survived and was seen`);
      wire.assertClean();
      await wire.close();
    });

    test('invented cursors → -32602, never a crash, and the connection lives on', async () => {
      const { wire, list } = await listWire(makeServer(), revision);
      const garbage = [
        'garbage',
        '',
        'c1.!!!',
        'c1.a',
        `c1.${btoa(String.fromCharCode(0xff, 0xfe)).replace(/=+$/, '')}`, // not UTF-8
        'x'.repeat(100_000),
        'c2.aXRlbQ',
      ];
      for (const method of LISTS.map((l) => l[0])) {
        for (const cursor of garbage) {
          const response = await list(method, { cursor });
          assert.equal(response.error?.code, ErrorCode.InvalidParams, `${method} ${cursor.slice(0, 20)}`);
          assert.match(response.error.message, /^Invalid cursor /);
          assert.match(response.error.message, /pass back a nextCursor exactly as the server returned it/);
          assert.ok(response.error.message.length < 300, 'a huge cursor is not echoed back whole');
        }
        for (const cursor of [5, null, {}, ['c1.']]) {
          const response = await list(method, { cursor });
          assert.equal(response.error?.code, ErrorCode.InvalidParams);
          assert.match(response.error.message, /"cursor" must be a string/);
        }
      }
      assert.equal((await list('tools/list')).result.tools.length, PAGE);
      wire.assertClean();
      await wire.close();
    });

    test('a well-formed cursor the server never issued starts after its key', async () => {
      const { wire, list } = await listWire(makeServer(), revision);
      const forged = `c1.${btoa('item-g').replace(/=+$/, '')}`;
      const response = await list('tools/list', { cursor: forged });
      assert.deepEqual(
        response.result.tools.map((t: Frame) => t.name),
        ['item-h', 'item-i', 'item-j'],
      );
      assert.equal(response.result.nextCursor, undefined);
      const past = `c1.${btoa('zzz').replace(/=+$/, '')}`;
      assert.deepEqual((await list('tools/list', { cursor: past })).result.tools, []);
      wire.assertClean();
      await wire.close();
    });

    test('the client walks every page by default', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { tools } = await pair.client.listTools();
      assert.equal(tools.length, COUNT);
      assert.equal((await pair.client.listPrompts()).prompts.length, COUNT);
      assert.equal((await pair.client.listResources()).resources.length, COUNT);
      assert.equal((await pair.client.listResourceTemplates()).resourceTemplates.length, COUNT);
      pair.assertClean();
      await pair.close();
    });
  });
}

async function countingClient(server: Server, revision: Revision, maxPages?: number) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const sent: Frame[] = [];
  const client = new Client(
    { name: 'c', version: '1' },
    { version: { pin: revision }, maxPages, cache: false },
  );
  await client.connect({
    start: (sink) => clientEnd.start(sink),
    send: (frame, info) => {
      sent.push(JSON.parse(frame));
      clientEnd.send(frame, info);
    },
    close: () => clientEnd.close(),
  });
  return { client, lists: () => sent.filter((f) => f.method === 'tools/list') };
}

describe('the client and pages', () => {
  for (const revision of ['2026-07-28', '2025-06-18'] as const) {
    test(`${revision}: maxPages caps the walk with PAGINATION_LIMIT`, async () => {
      const { client, lists } = await countingClient(makeServer(), revision, 2);
      await assert.rejects(client.listTools(), (error: unknown) => {
        assert.ok(error instanceof SwitchboardError);
        assert.equal(error.code, 'PAGINATION_LIMIT');
        assert.match(error.message, /more than 2 pages/);
        assert.match(error.message, /raise maxPages or page manually with \{ cursor \}/);
        return true;
      });
      assert.equal(lists().length, 2);
      // Exactly enough pages is fine.
      const { client: enough } = await countingClient(makeServer(), revision, 4);
      assert.equal((await enough.listTools()).tools.length, COUNT);
      await client.close();
      await enough.close();
    });

    test(`${revision}: singlePage fetches one page; cursor fetches the page after it`, async () => {
      const { client, lists } = await countingClient(makeServer(), revision);
      const first = await client.listTools({ singlePage: true });
      assert.equal(first.tools.length, PAGE);
      assert.equal(typeof first.nextCursor, 'string');
      const second = await client.listTools({ cursor: first.nextCursor! });
      assert.deepEqual(
        second.tools.map((t) => t.name),
        ['item-d', 'item-e', 'item-f'],
      );
      assert.equal(lists().length, 2);
      assert.deepEqual(lists()[1]!.params.cursor, first.nextCursor);
      await assert.rejects(
        client.listTools({ cursor: 'bogus' }),
        (error: unknown) => (error as { code?: number }).code === ErrorCode.InvalidParams,
      );
      await client.close();
    });
  }

  test('pageSize must be a positive integer', () => {
    for (const pageSize of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => new Server({ name: 'x', version: '1' }, { pageSize }),
        /pageSize must be a positive integer/,
      );
    }
  });

  test('the default page size is 100', async () => {
    const server = new Server({ name: 'x', version: '1' });
    for (let i = 0; i < 150; i++) server.registerTool(`t${i}`, {}, () => 'x');
    const wire: Wire = await openWire(server);
    await wire.initialize('2025-06-18');
    const first = await wire.request('tools/list');
    assert.equal(first.result.tools.length, 100);
    const second = await wire.request('tools/list', { cursor: first.result.nextCursor });
    assert.equal(second.result.tools.length, 50);
    assert.equal(second.result.nextCursor, undefined);
    await wire.close();
  });
});

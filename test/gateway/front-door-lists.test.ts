/**
 * `gateway.access` keeps each caller's lists right: two principals with different rules walk the
 * pages of a catalog larger than a page (the project's client, the official SDK v1 and v2), get
 * cursors that name only what they may see, 2026-07-28 list results marked `cacheScope: "private"`,
 * and, after the upstream's list changes, `list_changed` and a fresh list each of their own.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../src/extensions/client.js';
import type { Server } from '../../src/extensions/server.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { decodeCursor } from '../../src/server/pagination.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { ENVELOPE } from '../http/server/helpers.js';
import { frontDoorOver, upstreamServer } from './helpers.js';

const ALICE = randomBytes(32).toString('base64url');
const BOB = randomBytes(32).toString('base64url');
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** 260 tools, every other one public: bob's 130 and alice's 260 both take more than one page (100). */
const TOOLS = Array.from(
  { length: 260 },
  (_, i) => `t${String(i).padStart(3, '0')}_${i % 2 ? 'sec' : 'pub'}`,
);
const shown = (names: readonly string[]) => names.map((name) => `up__${name}`).sort();
const everything = shown(TOOLS);
const bobs = shown(TOOLS.filter((name) => name.endsWith('_pub')));

describe('gateway.access: each caller its own pages, cursors, cache hints and list changes', () => {
  let upstream: Awaited<ReturnType<typeof upstreamServer>>;
  let upstreamApi!: Server;
  let started: Awaited<ReturnType<typeof frontDoorOver>>;
  let url: string;

  before(async () => {
    upstream = await upstreamServer((server) => {
      upstreamApi = server;
      for (const name of TOOLS) server.registerTool(name, {}, () => name);
    });
    started = await frontDoorOver(upstream.url, { alice: ALICE, bob: BOB }, [
      { principals: ['alice'], allow: ['up__*'] },
      { principals: ['bob'], allow: ['up__*_pub'] },
    ]);
    url = started.url;
  });
  after(async () => {
    await started?.close();
    await upstream?.close();
  });

  /** Every page of tools/list through `list`, checking each cursor names only what `visible` holds. */
  async function walk(
    list: (cursor: string | undefined) => Promise<{ tools: Array<{ name: string }>; nextCursor?: string }>,
    visible: readonly string[],
  ): Promise<{ names: string[]; pages: number }> {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(cursor);
      pages++;
      assert.ok(page.tools.length > 0, 'no empty page');
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      if (cursor !== undefined) {
        const named = decodeCursor(cursor);
        assert.ok(visible.includes(named), `the cursor names ${named}, which this caller may not see`);
      }
    } while (cursor !== undefined);
    return { names, pages };
  }

  for (const era of ['auto', 'legacy'] as const) {
    test(`the project's client (${era}): each principal pages through exactly its own tools`, async () => {
      const connect = async (key: string) => {
        const client = new Client({ name: `lists-${era}`, version: '1.0.0' }, { version: era, cache: false });
        await client.connect(
          new StreamableHttpClientChannel(url, {
            fetch: nodeFetch,
            rememberEra: false,
            headers: bearer(key),
          }),
        );
        return client;
      };
      const alice = await connect(ALICE);
      const bob = await connect(BOB);
      try {
        const a = await walk(
          (cursor) => alice.listTools(cursor === undefined ? { singlePage: true } : { cursor }),
          everything,
        );
        assert.deepEqual(a.names, everything);
        assert.equal(a.pages, 3);
        const b = await walk(
          (cursor) => bob.listTools(cursor === undefined ? { singlePage: true } : { cursor }),
          bobs,
        );
        assert.deepEqual(b.names, bobs, 'full pages of what bob may see, each once');
        assert.equal(b.pages, 2);
        // A cursor of alice's handed to bob goes on after that name among bob's tools only.
        const aliceFirst = await alice.listTools({ singlePage: true });
        const after = await bob.listTools({ cursor: aliceFirst.nextCursor! });
        assert.ok(after.tools.length > 0);
        assert.ok(after.tools.every((t) => bobs.includes(t.name)));
      } finally {
        await alice.close();
        await bob.close();
      }
    });
  }

  test('the official SDK v1 and v2 clients page through their own tools', async () => {
    const v1 = new V1Client({ name: 'sdk-v1', version: '1.0.0' });
    await v1.connect(new V1Http(new URL(url), { requestInit: { headers: bearer(BOB) } }));
    const v2 = new V2Client(
      { name: 'sdk-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await v2.connect(new V2Http(new URL(url), { requestInit: { headers: bearer(ALICE) } }));
    try {
      const b = await walk((cursor) => v1.listTools(cursor === undefined ? {} : { cursor }), bobs);
      assert.deepEqual(b.names, bobs);
      const a = await walk(
        (cursor) =>
          v2.listTools(cursor === undefined ? {} : { cursor }) as Promise<{
            tools: Array<{ name: string }>;
            nextCursor?: string;
          }>,
        everything,
      );
      assert.deepEqual(a.names, everything);
    } finally {
      await v1.close();
      await v2.close();
    }
  });

  test("2026-07-28 list results are private to their caller: no cache may hand one caller another one's page", async () => {
    const list = async (key: string) => {
      const reply = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
          ...bearer(key),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }),
      });
      assert.equal(reply.status, 200);
      return (
        (await reply.json()) as {
          result: { tools: Array<{ name: string }>; cacheScope: string; ttlMs: number };
        }
      ).result;
    };
    // Alternating, so a page kept for one caller would show up in the other's answer.
    for (let round = 0; round < 2; round++) {
      const a = await list(ALICE);
      const b = await list(BOB);
      assert.equal(a.cacheScope, 'private');
      assert.equal(b.cacheScope, 'private');
      assert.deepEqual(
        a.tools.map((t) => t.name),
        everything.slice(0, 100),
      );
      assert.deepEqual(
        b.tools.map((t) => t.name),
        bobs.slice(0, 100),
      );
    }
  });

  test('after the upstream adds tools, list_changed reaches each caller and each lists only its own', async () => {
    const v1 = new V1Client({ name: 'sdk-v1-changes', version: '1.0.0' });
    await v1.connect(new V1Http(new URL(url), { requestInit: { headers: bearer(BOB) } }));
    const alice = new Client({ name: 'changes', version: '1.0.0' }, { version: 'legacy' });
    await alice.connect(
      new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false, headers: bearer(ALICE) }),
    );
    try {
      const bobChanged = new Promise<void>((resolve) =>
        v1.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      );
      const aliceChanged = new Promise<void>((resolve) =>
        alice.on('notifications/tools/list_changed', () => resolve()),
      );
      // Bob's first list is cached by nobody: after the change he must see the new public tool.
      await v1.listTools();
      upstreamApi.registerTool('zz_new_pub', {}, () => 'new');
      upstreamApi.registerTool('zz_new_sec', {}, () => 'secret');
      await Promise.all([bobChanged, aliceChanged]);
      const bobNow = await walk(
        (cursor) => v1.listTools(cursor === undefined ? {} : { cursor }),
        [...bobs, 'up__zz_new_pub'],
      );
      assert.deepEqual(bobNow.names, [...bobs, 'up__zz_new_pub']);
      const aliceNow = await walk(
        (cursor) => alice.listTools(cursor === undefined ? { singlePage: true } : { cursor }),
        [...everything, 'up__zz_new_pub', 'up__zz_new_sec'],
      );
      assert.deepEqual(aliceNow.names, [...everything, 'up__zz_new_pub', 'up__zz_new_sec']);
      await assert.rejects(
        v1.callTool({ name: 'up__zz_new_sec', arguments: {} }),
        /up__zz_new_sec/,
        'bob cannot call what he cannot see',
      );
    } finally {
      await v1.close();
      await alice.close();
    }
  });
});

/**
 * Pagination as the official clients see it: a Switchboard server with a page size of 2 serves
 * tools, resources, templates and prompts in pages of 2, 2 and 1 (counted on the wire), and the v1
 * client (following `nextCursor` itself) and the v2 client (legacy and 2026-07-28; it walks the
 * pages on its own) end with the same complete, ordered lists; a cursor that is not ours is -32602.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '../../src/extensions/server.js';
import { startServer, type TestServer } from '../http/server/helpers.js';
import { WireCheck } from '../http/server/wire.js';

const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];

function pagedServer(): Server {
  const server = new Server({ name: 'paged', version: '1.0.0' }, { pageSize: 2 });
  for (const name of [...NAMES].reverse()) {
    server.registerTool(name, { description: `Tool ${name}` }, () => name);
    server.registerResource(name, `mem://${name}`, { mimeType: 'text/plain' }, () => name);
    server.registerResourceTemplate(name, `mem://${name}/{id}`, {}, () => name);
    server.registerPrompt(name, { description: `Prompt ${name}` }, () => name);
  }
  return server;
}

type Lister = (cursor: string | undefined) => Promise<{ items: string[]; nextCursor?: string }>;

/** Follows `nextCursor` until the end (the v2 client walks the pages itself and returns one list). */
async function walk(list: Lister): Promise<string[]> {
  const items: string[] = [];
  let cursor: string | undefined;
  for (let calls = 0; calls < 10; calls++) {
    const page = await list(cursor);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

/** The pages the server put on the wire for one list: their item counts, in order. */
function pagesOnWire(wire: WireCheck, key: string): number[] {
  return wire.sent
    .map((m) => (m as { result?: Record<string, unknown> }).result?.[key])
    .filter((items): items is unknown[] => Array.isArray(items))
    .map((items) => items.length);
}

interface OfficialLists {
  tools: Lister;
  resources: Lister;
  templates: Lister;
  prompts: Lister;
  badCursor(): Promise<unknown>;
  close(): Promise<void>;
}

function lists(client: V1Client | V2Client): OfficialLists {
  const c = client as V1Client;
  const opt = (cursor: string | undefined) => (cursor === undefined ? undefined : { cursor });
  return {
    tools: async (cursor) => {
      const r = await c.listTools(opt(cursor));
      return { items: r.tools.map((t) => t.name), nextCursor: r.nextCursor };
    },
    resources: async (cursor) => {
      const r = await c.listResources(opt(cursor));
      return { items: r.resources.map((x) => x.name), nextCursor: r.nextCursor };
    },
    templates: async (cursor) => {
      const r = await c.listResourceTemplates(opt(cursor));
      return { items: r.resourceTemplates.map((x) => x.name), nextCursor: r.nextCursor };
    },
    prompts: async (cursor) => {
      const r = await c.listPrompts(opt(cursor));
      return { items: r.prompts.map((x) => x.name), nextCursor: r.nextCursor };
    },
    badCursor: () => c.listTools({ cursor: 'not-a-cursor-of-ours' }),
    close: () => c.close(),
  };
}

describe('pagination against the official clients', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(pagedServer());
  });
  after(() => server.close());

  const clients: [string, (wire: WireCheck) => Promise<OfficialLists>][] = [
    [
      'v1 (2025-11-25)',
      async (wire) => {
        const client = new V1Client({ name: 'v1', version: '1' });
        await client.connect(new V1HttpTransport(new URL(server.url), { fetch: wire.fetch }));
        return lists(client);
      },
    ],
    ...(['legacy', { pin: '2026-07-28' }] as const).map(
      (mode): [string, (wire: WireCheck) => Promise<OfficialLists>] => [
        `v2 (${mode === 'legacy' ? 'legacy' : '2026-07-28'})`,
        async (wire) => {
          const client = new V2Client({ name: 'v2', version: '1' }, { versionNegotiation: { mode } });
          await client.connect(new V2HttpTransport(new URL(server.url), { fetch: wire.fetch }));
          return lists(client);
        },
      ],
    ),
  ];

  for (const [label, connect] of clients) {
    test(`${label}: every list walked page by page, complete and in order`, async () => {
      const wire = await WireCheck.create(label);
      const official = await connect(wire);
      const keys = {
        tools: 'tools',
        resources: 'resources',
        templates: 'resourceTemplates',
        prompts: 'prompts',
      };
      for (const kind of ['tools', 'resources', 'templates', 'prompts'] as const) {
        assert.deepEqual(await walk(official[kind]), NAMES, kind);
        assert.deepEqual(pagesOnWire(wire, keys[kind]), [2, 2, 1], `${kind}: the pages the server sent`);
      }
      await assert.rejects(official.badCursor(), (error: Error & { code?: number }) => {
        assert.equal(error.code, -32602, String(error));
        return true;
      });
      await official.close();
      await wire.assertCleanWhenSettled();
    });
  }
});

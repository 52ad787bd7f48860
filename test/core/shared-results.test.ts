/**
 * What the server shares between requests stays unchanged, whatever middleware does: a list page is
 * built once and its JSON cached, and middleware gets a copy of its own; items are frozen; a
 * resource's cache hint travels with the request, so a middleware that replaces a read keeps it (or
 * deliberately sets its own).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import type { Revision } from '../../src/protocol/revisions.js';
import type { Tool } from '../../src/protocol/types.js';
import { connectPair } from '../helpers/pair.js';

const EXTRA: Tool = { name: 'injected', inputSchema: { type: 'object' } };

function listedServer(): Server {
  const server = new Server({ name: 'shared', version: '1.0.0' });
  server.registerTool('a', { description: 'first', annotations: { readOnlyHint: true } }, () => 'a');
  server.registerTool('b', { description: 'second' }, () => 'b');
  // Grows the page in place, for one client only.
  server.intercept('tools/list', async (params, ctx, next) => {
    const page = await next(params);
    if (ctx.client.info?.name === 'grower') page.tools.push(EXTRA);
    return page;
  });
  return server;
}

const names = (tools: readonly Tool[]) => tools.map((t) => t.name);

describe('shared results and middleware', () => {
  for (const revision of ['2025-11-25', '2026-07-28'] as Revision[]) {
    test(`${revision}: a middleware that pushes into a listed page changes only its own answer`, async () => {
      const server = listedServer();
      const grower = await connectPair(server, { version: { pin: revision } }, undefined, 'grower');
      const other = await connectPair(server, { version: { pin: revision } }, undefined, 'other');
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(names((await grower.client.listTools({ fresh: true })).tools), [
          'a',
          'b',
          'injected',
        ]);
        assert.deepEqual(names((await other.client.listTools({ fresh: true })).tools), ['a', 'b']);
      }
      grower.assertClean();
      other.assertClean();
      await grower.close();
      await other.close();
    });
  }

  test('listed items are frozen: a middleware that edits one fails its request and changes nothing', async () => {
    const server = new Server({ name: 'shared', version: '1.0.0' });
    server.registerTool('a', { description: 'first', annotations: { readOnlyHint: true } }, () => 'a');
    let vandalize = true;
    server.intercept('tools/list', async (params, _ctx, next) => {
      const page = await next(params);
      if (vandalize) {
        vandalize = false;
        (page.tools[0]!.annotations as { readOnlyHint?: boolean }).readOnlyHint = false;
      }
      return page;
    });
    const pair = await connectPair(server);
    await assert.rejects(
      pair.client.listTools({ fresh: true }),
      (error: unknown) => error instanceof ProtocolError && error.code === ErrorCode.InternalError,
    );
    const [tool] = (await pair.client.listTools({ fresh: true })).tools;
    assert.deepEqual(tool?.annotations, { readOnlyHint: true });
    await pair.close();
  });

  test("a replaced resources/read result keeps the resource's cache hint, or the one a middleware sets", async () => {
    const server = new Server({ name: 'shared', version: '1.0.0' });
    server.registerResource('kept', 'note://kept', { cache: { ttlMs: 5000 } }, () => 'original');
    server.registerResource('set', 'note://set', { cache: { ttlMs: 5000 } }, () => 'original');
    server.intercept('resources/read', async (params, ctx, next) => {
      await next(params);
      if (params.uri === 'note://set') ctx.cacheHint = { ttlMs: 7, cacheScope: 'private' };
      return { contents: [{ uri: params.uri, text: 'replaced' }] };
    });
    const pair = await connectPair(server);
    const kept = await pair.client.request('resources/read', { uri: 'note://kept' }, { fresh: true });
    assert.equal(
      kept.contents[0] && 'text' in kept.contents[0] ? kept.contents[0].text : undefined,
      'replaced',
    );
    assert.deepEqual([kept.ttlMs, kept.cacheScope], [5000, 'public']);
    const set = await pair.client.request('resources/read', { uri: 'note://set' }, { fresh: true });
    assert.deepEqual([set.ttlMs, set.cacheScope], [7, 'private']);
    pair.assertClean();
    await pair.close();
  });
});

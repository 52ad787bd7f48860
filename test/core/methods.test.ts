/**
 * The open method registry: a vendor method served through the same pipeline as the built-in ones
 * (admission, params check, middleware, encoding) in both eras, typed on both sides; the fallback
 * for methods nobody registered; what registration refuses.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Client, type ClientOptions } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, SwitchboardError } from '../../src/protocol/errors.js';
import type { Revision } from '../../src/protocol/revisions.js';
import { jsonSchema } from '../../src/schema/index.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { rejectsProtocol } from '../helpers/rejects.js';

/**
 * Client and server in memory, unchecked: the official schemas define the protocol's own methods
 * only, so a schema-checked channel takes any vendor method for a mistake.
 */
async function connectPair(server: Server, options: ClientOptions = {}) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, options);
  await client.connect(clientEnd);
  return { client, close: () => client.close() };
}

const SearchParams = z.object({ query: z.string(), limit: z.number().int().positive().optional() });
const SearchResult = z.object({ hits: z.array(z.string()) });

function searchServer(): { server: Server; seen: string[] } {
  const seen: string[] = [];
  const server = new Server({ name: 'acme', version: '1.0.0' });
  server.method('acme/search', { params: SearchParams, result: SearchResult }, ({ query, limit }) => ({
    hits: [`${query}:1`, `${query}:2`, `${query}:3`].slice(0, limit ?? 3),
  }));
  server.method('acme/broken', { result: SearchResult }, () => ({ hits: 'not an array' }) as never);
  server.intercept('acme/search', async (params, ctx, next) => {
    seen.push(`${params.query} on ${ctx.revision}`);
    return next(params);
  });
  return { server, seen };
}

describe('server.method() and client.request()', () => {
  for (const revision of ['2025-06-18', '2026-07-28'] as Revision[]) {
    test(`a vendor method on ${revision}: params and result checked, typed, intercepted`, async () => {
      const { server, seen } = searchServer();
      const pair = await connectPair(server, { version: { pin: revision } });
      const result = await pair.client.request(
        'acme/search',
        { query: 'mcp', limit: 2 },
        { result: SearchResult },
      );
      // Typed by the result schema: hits is a string[].
      assert.deepEqual(
        result.hits.map((h) => h.toUpperCase()),
        ['MCP:1', 'MCP:2'],
      );
      assert.deepEqual(seen, [`mcp on ${revision}`]);
      await rejectsProtocol(
        pair.client.request('acme/search', { query: 5 }),
        ErrorCode.InvalidParams,
        "Invalid params for 'acme/search'",
      );
      await rejectsProtocol(
        pair.client.request('acme/broken'),
        ErrorCode.InternalError,
        "The result of 'acme/broken' does not match its result schema",
      );
      await rejectsProtocol(pair.client.request('acme/unknown'), ErrorCode.MethodNotFound, 'acme/unknown');
      await pair.close();
    });
  }

  test("the client checks a vendor result against the caller's schema", async () => {
    const server = new Server({ name: 'acme', version: '1.0.0' });
    server.method('acme/count', {}, () => ({ count: 'three' }));
    const pair = await connectPair(server);
    await assert.rejects(
      pair.client.request(
        'acme/count',
        {},
        {
          result: jsonSchema<{ count: number }>({
            type: 'object',
            properties: { count: { type: 'number' } },
          }),
        },
      ),
      (error: unknown) =>
        error instanceof SwitchboardError &&
        error.code === 'INVALID_RESULT' &&
        error.message.includes('does not match the result schema'),
    );
    // Without a schema the result comes as sent.
    assert.equal((await pair.client.request('acme/count')).count, 'three');
    await pair.close();
  });

  test('revisions and capability restrict a method; each arrives only where it exists', async () => {
    const server = new Server({ name: 'acme', version: '1.0.0' });
    server.method('acme/new', { revisions: ['2026-07-28'] }, () => ({ ok: true }));
    server.method('acme/needs-prompts', { capability: 'prompts' }, () => ({ ok: true }));
    const legacy = await connectPair(server, { version: { pin: '2025-11-25' } });
    await rejectsProtocol(
      legacy.client.request('acme/new'),
      ErrorCode.MethodNotFound,
      'not part of protocol revision 2025-11-25',
    );
    await rejectsProtocol(
      legacy.client.request('acme/needs-prompts'),
      ErrorCode.MethodNotFound,
      'does not offer prompts',
    );
    await legacy.close();
    const modern = await connectPair(server);
    assert.equal((await modern.client.request('acme/new')).ok, true);
    await modern.close();
  });

  test('a fallback serves what nobody registered (a gateway forwarding), through the middleware', async () => {
    const server = new Server({ name: 'gateway', version: '1.0.0' });
    server.registerTool('local', {}, () => 'here');
    const forwarded: string[] = [];
    server.fallback((method, params) => {
      forwarded.push(method);
      return { echoed: params.x ?? null };
    });
    server.intercept('vendor/thing', async (params, _ctx, next) => ({
      ...(await next(params)),
      intercepted: true,
    }));
    for (const revision of ['2025-03-26', '2026-07-28'] as Revision[]) {
      const pair = await connectPair(server, { version: { pin: revision } });
      const { echoed, intercepted } = await pair.client.request('vendor/thing', { x: 1 });
      assert.deepEqual({ echoed, intercepted }, { echoed: 1, intercepted: true });
      // Built-in methods still go to their own handlers.
      assert.deepEqual((await pair.client.callTool('local')).content, [{ type: 'text', text: 'here' }]);
      await pair.close();
    }
    assert.deepEqual(forwarded, ['vendor/thing', 'vendor/thing']);
  });

  test('registration refuses a taken method, a bad name, a non-object result schema, a second fallback', () => {
    const server = new Server({ name: 'acme', version: '1.0.0' });
    const config = (fn: () => unknown, fragment: string) =>
      assert.throws(
        fn,
        (e: unknown) => e instanceof SwitchboardError && e.code === 'CONFIG' && e.message.includes(fragment),
      );
    config(() => server.method('tools/call', {}, () => ({}) as never), 'already registered');
    server.method('acme/x', {}, () => ({}));
    config(() => server.method('acme/x', {}, () => ({})), 'already registered');
    config(() => server.method('has space', {}, () => ({})), 'Invalid method name');
    config(() => server.method('notifications/x', {}, () => ({})), 'Invalid method name');
    config(
      () => server.method('acme/y', { result: z.string() }, () => ({}) as never),
      'must describe an object',
    );
    server.fallback(() => ({}));
    config(() => server.fallback(() => ({})), 'fallback');
  });
});

/**
 * Middleware: `use` (order, context, short-circuit, result transforms), `intercept`, `filterList`
 * (lists and calls, per caller, `private` cache scope), and the client's sending middleware.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ClientCallContext } from '../../src/client/client.js';
import type { Middleware } from '../../src/engine/middleware.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { featuresOf, REVISIONS } from '../../src/protocol/revisions.js';
import type { CallToolResult, Tool } from '../../src/protocol/types.js';
import type { RequestContext } from '../../src/server/context.js';
import { decodeCursor } from '../../src/server/pagination.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { openWire } from '../helpers/wire.js';

trapUnhandledRejections();

function makeServer() {
  const server = new Server({ name: 'mw', version: '1.0.0' });
  server.registerTool('public', {}, () => 'public result');
  server.registerTool('admin.reset', {}, () => 'reset done');
  server.registerPrompt('open', {}, () => 'open prompt');
  server.registerPrompt(
    'secret',
    { arguments: [{ name: 'a', complete: () => ['x'] }] },
    () => 'secret prompt',
  );
  server.registerResource('open', 'mem://open', {}, () => 'open doc');
  server.registerResource('secret', 'mem://secret', {}, () => 'secret doc');
  server.registerResourceTemplate(
    'private',
    'mem://private/{id}',
    { list: () => [{ uri: 'mem://private/1', name: 'p1' }], complete: { id: () => ['1'] } },
    () => 'private item',
  );
  server.registerResourceTemplate('shared', 'mem://shared/{id}', {}, () => 'shared item');
  return server;
}

const textOf = (r: CallToolResult) => (r.content[0]?.type === 'text' ? r.content[0].text : undefined);

describe('use()', () => {
  for (const revision of REVISIONS) {
    test(`${revision}: first added is outermost; each sees method, params and the request context`, async () => {
      const server = makeServer();
      const trace: string[] = [];
      const contexts: RequestContext[] = [];
      const tracer =
        (label: string): Middleware<RequestContext> =>
        (next) =>
        async (method, params, ctx) => {
          trace.push(`${label}> ${method}`);
          contexts.push(ctx);
          const result = await next(method, params, ctx);
          trace.push(`${label}< ${method}`);
          return result;
        };
      server.use(tracer('outer')).use(tracer('inner'));
      const pair = await connectPair(server, { version: { pin: revision } });
      trace.length = 0;
      contexts.length = 0;
      await pair.client.callTool('public');
      assert.deepEqual(trace, [
        'outer> tools/call',
        'inner> tools/call',
        'inner< tools/call',
        'outer< tools/call',
      ]);
      const ctx = contexts[0]!;
      assert.equal(ctx, contexts[1], 'one context per request');
      assert.equal(ctx.method, 'tools/call');
      assert.equal(ctx.revision, revision);
      assert.equal(ctx.era, featuresOf(revision).era);
      assert.deepEqual(ctx.client.info, { name: 'test-client', version: '1.0.0' });
      assert.equal(typeof ctx.requestId, 'number');
      pair.assertClean();
      await pair.close();
    });

    test(`${revision}: short-circuit, transform, and error — results are still fitted to the revision`, async () => {
      const server = makeServer();
      server.use((next) => async (method, params, ctx) => {
        if (method === 'tools/call' && params.name === 'admin.reset') {
          throw new ProtocolError(-31001, 'forbidden: admins only', { tool: 'admin.reset' });
        }
        if (method === 'tools/call' && params.name === 'cached') {
          // Never reaches the registry: a tool that does not exist answers anyway.
          return {
            content: [
              {
                type: 'resource_link',
                uri: 'mem://open',
                name: 'open',
                title: 'Open',
                icons: [{ src: 'https://example.com/x.png' }],
              },
            ],
          } satisfies CallToolResult;
        }
        const result = (await next(method, params, ctx)) as Record<string, unknown>;
        if (method === 'tools/list') {
          return {
            ...result,
            tools: (result.tools as Tool[]).map((t) => ({
              ...t,
              title: `[${t.name}]`,
              icons: [{ src: 'https://example.com/t.png' }],
            })),
          };
        }
        if (method === 'tools/call') {
          const call = result as unknown as CallToolResult;
          return { ...call, content: [...call.content, { type: 'text', text: 'audited' }] };
        }
        return result;
      });
      const pair = await connectPair(server, { version: { pin: revision } });
      const f = featuresOf(revision);
      const { tools } = await pair.client.listTools();
      assert.equal(tools[0]!.title, f.structured ? '[admin.reset]' : undefined);
      assert.equal(tools[0]!.icons === undefined, !f.icons);
      const call = await pair.client.callTool('public');
      assert.deepEqual(call.content, [
        { type: 'text', text: 'public result' },
        { type: 'text', text: 'audited' },
      ]);
      const cached = await pair.client.callTool('cached');
      assert.equal(cached.content[0]!.type, f.structured ? 'resource_link' : 'text');
      await assert.rejects(pair.client.callTool('admin.reset'), (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.deepEqual(error.toObject(), {
          code: -31001,
          message: 'forbidden: admins only',
          data: { tool: 'admin.reset' },
        });
        return true;
      });
      pair.assertClean();
      await pair.close();
    });
  }

  test('middleware runs after the protocol checks: malformed requests never reach it', async () => {
    const server = makeServer();
    const seen: string[] = [];
    server.use((next) => (method, params, ctx) => {
      seen.push(method);
      return next(method, params, ctx);
    });
    const wire = await openWire(server);
    await wire.initialize('2025-06-18');
    assert.equal((await wire.request('tools/call', { name: 5 })).error.code, ErrorCode.InvalidParams);
    assert.equal((await wire.request('no/such')).error.code, ErrorCode.MethodNotFound);
    assert.deepEqual((await wire.request('ping')).result, {});
    assert.deepEqual(seen, ['ping']);
    await wire.close();
  });

  test('a middleware that throws synchronously fails only its request', async () => {
    const server = makeServer();
    server.use((next) => (method, params, ctx) => {
      if (method === 'prompts/list') throw new Error('middleware bug');
      return next(method, params, ctx);
    });
    const pair = await connectPair(server);
    await assert.rejects(pair.client.listPrompts(), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, ErrorCode.InternalError);
      assert.match(error.message, /middleware bug/);
      return true;
    });
    assert.equal(textOf(await pair.client.callTool('public')), 'public result');
    pair.assertClean();
    await pair.close();
  });
});

describe('intercept()', () => {
  test('hooks one method: may change params, call next or not, and replace the result', async () => {
    const server = makeServer();
    const calls: string[] = [];
    server.intercept('tools/call', async (params, ctx, next) => {
      calls.push(`${params.name} via ${ctx.method}`);
      if (params.name === 'blocked')
        return { content: [{ type: 'text', text: 'intercepted' }], isError: true };
      const renamed = params.name === 'alias' ? { ...params, name: 'public' } : params;
      const result = (await next(renamed)) as CallToolResult;
      return { ...result, content: [{ type: 'text', text: `${textOf(result)}!` }] };
    });
    server.intercept('prompts/get', (params, _ctx, next) => next({ ...params, name: 'open' }));
    const pair = await connectPair(server, { version: { pin: '2025-03-26' } });
    assert.equal(textOf(await pair.client.callTool('public')), 'public result!');
    assert.equal(textOf(await pair.client.callTool('alias')), 'public result!');
    const blocked = await pair.client.callTool('blocked');
    assert.deepEqual(blocked, { content: [{ type: 'text', text: 'intercepted' }], isError: true });
    const prompt = await pair.client.getPrompt('secret', { a: 'x' });
    assert.deepEqual(prompt.messages[0]!.content, { type: 'text', text: 'open prompt' });
    await pair.client.listTools();
    assert.deepEqual(calls, ['public via tools/call', 'alias via tools/call', 'blocked via tools/call']);
    pair.assertClean();
    await pair.close();
  });
});

describe('filterList()', () => {
  /** Admins (client name "admin") see everything; others see no admin tool, secret prompt/resource or private template. */
  function filtered() {
    const server = makeServer();
    const isAdmin = (ctx: RequestContext) => ctx.client.info?.name === 'admin';
    server
      .filterList('tools', (tool, ctx) => isAdmin(ctx) || !tool.name.startsWith('admin.'))
      .filterList('prompts', (prompt, ctx) => isAdmin(ctx) || prompt.name !== 'secret')
      .filterList(
        'resources',
        (resource, ctx) =>
          isAdmin(ctx) || (!resource.uri.includes('secret') && !resource.uri.includes('private')),
      )
      .filterList('resourceTemplates', (template, ctx) => isAdmin(ctx) || template.name !== 'private');
    return server;
  }

  for (const revision of REVISIONS) {
    test(`${revision}: hidden items are missing from lists and unknown to calls`, async () => {
      const server = filtered();
      const pair = await connectPair(server, { version: { pin: revision } });
      const { client } = pair;
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['public'],
      );
      assert.deepEqual(
        (await client.listPrompts()).prompts.map((p) => p.name),
        ['open'],
      );
      assert.deepEqual(
        (await client.listResources()).resources.map((r) => r.uri),
        ['mem://open'],
      );
      assert.deepEqual(
        (await client.listResourceTemplates()).resourceTemplates.map((t) => t.name),
        ['shared'],
      );
      const unknown = async (promise: Promise<unknown>, code: number) =>
        assert.rejects(promise, (error: unknown) => error instanceof ProtocolError && error.code === code);
      await unknown(client.callTool('admin.reset'), ErrorCode.InvalidParams);
      await unknown(client.getPrompt('secret', { a: 'x' }), ErrorCode.InvalidParams);
      const notFound = featuresOf(revision).resourceNotFoundCode;
      await unknown(client.readResource('mem://secret'), notFound);
      await unknown(client.readResource('mem://private/1'), notFound);
      await unknown(
        client.complete({ ref: { type: 'ref/prompt', name: 'secret' }, argument: { name: 'a', value: '' } }),
        ErrorCode.InvalidParams,
      );
      await unknown(
        client.complete({
          ref: { type: 'ref/resource', uri: 'mem://private/{id}' },
          argument: { name: 'id', value: '' },
        }),
        ErrorCode.InvalidParams,
      );
      assert.equal(textOf(await client.callTool('public')), 'public result');
      assert.equal((await client.readResource('mem://shared/1')).contents.length, 1);
      pair.assertClean();
      await pair.close();
    });
  }

  test('the predicate sees the caller: two clients of one server see different lists', async () => {
    const server = filtered();
    const user = await connectPair(server, { version: { pin: '2025-11-25' } });
    const [clientEnd, serverEnd] = createLinkedChannels();
    server.connect(serverEnd);
    const admin = new Client({ name: 'admin', version: '1' }, { version: { pin: '2026-07-28' } });
    await admin.connect(clientEnd);
    assert.deepEqual(
      (await user.client.listTools()).tools.map((t) => t.name),
      ['public'],
    );
    assert.deepEqual(
      (await admin.listTools()).tools.map((t) => t.name),
      ['admin.reset', 'public'],
    );
    assert.equal(textOf(await admin.callTool('admin.reset')), 'reset done');
    assert.equal((await admin.readResource('mem://private/1')).contents.length, 1);
    assert.deepEqual(
      (await admin.listResources()).resources.map((r) => r.uri),
      ['mem://open', 'mem://private/1', 'mem://secret'],
    );
    user.assertClean();
    await user.close();
    await admin.close();
  });

  test('pages are cut from what the caller sees: full pages, cursors that name only its items', async () => {
    const server = new Server({ name: 'paged', version: '1' }, { pageSize: 2 });
    for (const name of ['a.hidden', 'b', 'c.hidden', 'd', 'e.hidden', 'f'])
      server.registerTool(name, {}, () => name);
    server.filterList('tools', (tool) => !tool.name.endsWith('.hidden'));
    const pair = await connectPair(server, { version: { pin: '2025-11-25' } });
    const first = await pair.client.listTools({ singlePage: true });
    assert.deepEqual(
      first.tools.map((t) => t.name),
      ['b', 'd'],
    );
    assert.equal(decodeCursor(first.nextCursor!), 'd', 'never a hidden name');
    const second = await pair.client.listTools({ cursor: first.nextCursor! });
    assert.deepEqual(
      second.tools.map((t) => t.name),
      ['f'],
    );
    assert.equal(second.nextCursor, undefined);
    pair.assertClean();
    await pair.close();
  });

  test('2026-07-28: filtered results are cached privately (cacheScope "private")', async () => {
    const wire = await openWire(filtered(), { check: true });
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      const { result } = await wire.modern(method);
      assert.equal(result.cacheScope, 'private', method);
    }
    const plain = await openWire(makeServer());
    assert.equal((await plain.modern('tools/list')).result.cacheScope, 'public');
    wire.assertClean();
    await wire.close();
    await plain.close();
  });
});

describe('client use()', () => {
  test('sending middleware: order, params, options, short-circuit, result transform', async () => {
    const pair = await connectPair(makeServer(), { version: { pin: '2025-06-18' } });
    const { client } = pair;
    const trace: string[] = [];
    const seen: ClientCallContext[] = [];
    client
      .use((next) => async (method, params, ctx) => {
        trace.push(`outer ${method}`);
        seen.push(ctx);
        if (method === 'tools/call' && params.name === 'offline') {
          return { content: [{ type: 'text', text: 'served locally' }] };
        }
        const result = (await next(method, params, ctx)) as Record<string, unknown>;
        return method === 'tools/call'
          ? { ...result, content: [{ type: 'text', text: 'rewritten' }] }
          : result;
      })
      .use((next) => (method, params, ctx) => {
        trace.push(`inner ${method}`);
        return next(method, method === 'tools/call' ? { ...params, name: 'public' } : params, ctx);
      });
    const offline = await client.callTool('offline', undefined, { timeoutMs: 1234 });
    assert.deepEqual(offline.content, [{ type: 'text', text: 'served locally' }]);
    assert.equal(seen[0]!.client, client);
    assert.equal(seen[0]!.options.timeoutMs, 1234);
    const online = await client.callTool('whatever');
    assert.deepEqual(online.content, [{ type: 'text', text: 'rewritten' }]);
    assert.deepEqual(trace, ['outer tools/call', 'outer tools/call', 'inner tools/call']);
    pair.assertClean();
    await pair.close();
  });

  test('a client middleware that throws synchronously rejects the call (never throws from request())', async () => {
    const pair = await connectPair(makeServer());
    pair.client.use(() => () => {
      throw new Error('broken middleware');
    });
    let promise: Promise<unknown> | undefined;
    assert.doesNotThrow(() => {
      promise = pair.client.request('tools/list');
    });
    await assert.rejects(promise!, /broken middleware/);
    await assert.rejects(pair.client.listTools(), /broken middleware/);
    await pair.close();
  });
});

/**
 * Deep nesting is answered, not crashed on (issue 15, finding 10): a message nested deeper than
 * 1000 levels is refused where it arrives, with an error naming the limit, on the server (any
 * transport) and on the client; nothing ends as "Maximum call stack size exceeded".
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, SwitchboardError } from '../../src/protocol/errors.js';
import { type Answer, fakeServer, legacyInit } from '../helpers/fake-server.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { envelope, openWire } from '../helpers/wire.js';
import { modernHeaders, startServer } from '../http/server/helpers.js';

trapUnhandledRejections();

/** `{"a":{"a":...1...}}` nested `n` deep, as text (JSON.stringify itself overflows on such values). */
const deepText = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepValue = (n: number) => JSON.parse(deepText(n));

function elicitingServer() {
  const server = new Server({ name: 'deep', version: '1' });
  server.registerTool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: {} },
    });
    return answer.action;
  });
  server.registerTool('echo', { inputSchema: { type: 'object' } }, (args) =>
    JSON.stringify(args).length.toString(),
  );
  server.registerTool('deep', { inputSchema: { type: 'object' } }, () => ({
    content: [],
    structuredContent: deepValue(20_000),
  }));
  return server;
}

const call = (id: number, argumentsText: string, meta?: Record<string, unknown>) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"ask","arguments":${argumentsText}${
    meta ? `,"_meta":${JSON.stringify(meta)}` : ''
  }}}`;

function assertTooDeep(frame: Record<string, any>, id: unknown) {
  assert.equal(frame.id, id, JSON.stringify(frame).slice(0, 300));
  assert.equal(frame.error?.code, ErrorCode.InvalidRequest, JSON.stringify(frame).slice(0, 300));
  assert.match(frame.error.message, /nested deeper than 1000 levels/);
}

describe('deep nesting, server side', () => {
  test('20k-deep arguments to an eliciting tool: -32600 naming the limit, on both eras; 900 deep is served', async () => {
    const wire = await openWire(elicitingServer());
    await wire.initialize('2025-06-18', { elicitation: {} });
    wire.send(call(1, deepText(20_000)));
    assertTooDeep(await wire.next(), 1);
    wire.send(call(2, deepText(20_000), envelope({}, '2026-07-28')));
    assertTooDeep(await wire.next(), 2);
    const answer = await wire.modern('tools/call', { name: 'echo', arguments: deepValue(900) });
    assert.equal(answer.result?.content?.[0]?.text, String(deepText(900).length - 0));
    await wire.close();
  });

  // Node 20-24 overflow on the way out (the error then says so); Node 26's JSON.stringify does not,
  // and the result would go out for the client to refuse, had the peer not checked its depth.
  test('a tool result nested 20k deep is not sent: -32603 instead, on every Node version', async () => {
    const wire = await openWire(elicitingServer());
    await wire.initialize('2025-06-18', {});
    const answer = await wire.request('tools/call', { name: 'deep', arguments: {} });
    assert.equal(answer.result, undefined, 'the deep result went out');
    assert.equal(answer.error?.code, ErrorCode.InternalError, JSON.stringify(answer).slice(0, 300));
    await wire.close();
  });

  // The depth of what goes out is walked only when its JSON is long enough to be too deep: at the
  // limit itself (where JSON.stringify copes on every Node version) the walk must still refuse.
  test('a tool result just past the limit is not sent (-32603); one level less is', async () => {
    const server = new Server({ name: 'deep', version: '1' });
    server.registerTool('nest', { inputSchema: { type: 'object' } }, ({ n }) => ({
      content: [],
      structuredContent: deepValue(n as number),
    }));
    const wire = await openWire(server);
    await wire.initialize('2025-06-18', {});
    // The result sits at level 2 of the message and holds structuredContent: 998 + 2 levels fit.
    const fits = await wire.request('tools/call', { name: 'nest', arguments: { n: 998 } });
    assert.ok(fits.result, JSON.stringify(fits).slice(0, 300));
    const over = await wire.request('tools/call', { name: 'nest', arguments: { n: 999 } });
    assert.equal(over.result, undefined, 'the too-deep result went out');
    assert.equal(over.error?.code, ErrorCode.InternalError);
    assert.match(over.error.message, /nested deeper than 1000 levels/);
    await wire.close();
  });

  test('a 100k-deep progressToken, and a deep notification, change nothing', async () => {
    const wire = await openWire(elicitingServer());
    await wire.initialize('2025-06-18');
    wire.send(
      `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"progressToken":${deepText(100_000)}}}}`,
    );
    assertTooDeep(await wire.next(), 7);
    wire.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":${deepText(100_000)}}`);
    await wire.quiet();
    await wire.close();
  });

  test('over HTTP (2026-07-28 POST): 400 with -32600 naming the limit', async () => {
    const server = await startServer(elicitingServer());
    try {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: modernHeaders('tools/call', 'ask'),
        body: call(3, deepText(20_000), envelope()),
      });
      assert.equal(response.status, 400);
      assertTooDeep((await response.json()) as Record<string, any>, 3);
    } finally {
      await server.close();
    }
  });
});

describe('deep nesting, client side', () => {
  test('a 20k-deep outputSchema or result is refused with an error naming the limit', async () => {
    const server = fakeServer((request): Answer => {
      if (request.method === 'initialize') return legacyInit('2025-06-18', { tools: {} });
      if (request.method === 'tools/list') {
        server.send(
          `{"jsonrpc":"2.0","id":${request.id},"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":${deepText(20_000)}}]}}`,
        );
        return undefined;
      }
      if (request.method === 'tools/call') {
        server.send(
          `{"jsonrpc":"2.0","id":${request.id},"result":{"content":[],"structuredContent":${deepText(20_000)}}}`,
        );
        return undefined;
      }
      return { error: { code: -32601, message: 'no' } };
    });
    const client = new Client({ name: 'victim', version: '1' }, { version: 'legacy', timeoutMs: 30_000 });
    await client.connect(server.channel);
    for (const attempt of [() => client.listTools(), () => client.callTool('t', {})]) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof SwitchboardError, String(error));
        assert.equal(error.code, 'INVALID_RESULT');
        assert.match(error.message, /'tools\/(list|call)'.* nested deeper than 1000 levels/);
        return true;
      });
    }
    await client.close();
  });

  test('a 900-deep outputSchema lists fine; sending 20k-deep arguments is a CONFIG error, not a RangeError', async () => {
    const warnings: Error[] = [];
    const server = fakeServer((request): Answer => {
      if (request.method === 'initialize') return legacyInit('2025-06-18', { tools: {} });
      if (request.method === 'tools/list') {
        server.send(
          `{"jsonrpc":"2.0","id":${request.id},"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":${deepText(900)}}}}]}}`,
        );
        return undefined;
      }
      return { error: { code: -32601, message: 'no' } };
    });
    const client = new Client(
      { name: 'victim', version: '1' },
      { version: 'legacy', onerror: (e) => warnings.push(e) },
    );
    await client.connect(server.channel);
    assert.equal((await client.listTools()).tools.length, 1);
    for (const warning of warnings) assert.doesNotMatch(warning.message, /call stack/);
    await assert.rejects(client.callTool('t', deepValue(20_000)), (error: unknown) => {
      assert.ok(error instanceof SwitchboardError, String(error));
      assert.equal(error.code, 'CONFIG');
      assert.match(error.message, /'tools\/call'.*cannot be sent as JSON/);
      return true;
    });
    await client.close();
  });
});

/**
 * Inputs that attack the process rather than the protocol (issue 15): `__proto__` and `constructor`
 * keys everywhere, huge numbers and strings, huge batches, invalid UTF-8, odd and huge session ids
 * and Last-Event-IDs, path traversal through resource templates. Each gets a clear error (that does
 * not echo megabytes back), nothing is polluted, and the server keeps serving. (Deep nesting is in
 * test/core/depth.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { Server } from '../../src/extensions/server.js';
import { openWire } from '../helpers/wire.js';
import {
  ACCEPT_BOTH,
  ENVELOPE,
  initialize,
  modernHeaders,
  rawRequest,
  sessionHeaders,
  startServer,
  type TestServer,
} from '../http/server/helpers.js';

const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();

function assertNothingPolluted(): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), PROTOTYPE_KEYS);
  const fresh: Record<string, unknown> = {};
  for (const key of ['polluted', 'isAdmin', 'a']) assert.equal(fresh[key], undefined, `({}).${key}`);
  assert.equal(Object.getPrototypeOf(fresh), Object.prototype);
}

function hostileServer(): Server {
  const server = new Server({ name: 'hostile', version: '1.0.0' });
  server.registerTool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) =>
    String(a + b),
  );
  server.registerTool(
    'raw',
    { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: true } },
    (args) => `${Object.keys(args).length} keys, text of ${String(args.text ?? '').length}`,
  );
  server.registerTool('ask', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    const who = await ctx.elicit({
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `hi ${who.content?.name}`;
  });
  server.registerPrompt('p', {}, () => 'p');
  server.registerResourceTemplate('doc', 'file:///docs/{name}', {}, (_uri, { name }) => `doc ${name}`);
  server.registerResourceTemplate('tree', 'file:///tree/{+path}', {}, (_uri, { path }) => `tree ${path}`);
  return server;
}

/** JSON text of `value` with `__proto__`, `constructor` and `prototype` keys in every object. */
function poisoned(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(poisoned).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const own = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${poisoned(v)}`);
  const poison = [
    '"__proto__":{"polluted":true,"isAdmin":true}',
    '"constructor":{"prototype":{"polluted":true}}',
  ];
  return `{${[...poison, ...own].join(',')}}`;
}

describe('hostile input over a connection (stdio, in memory)', () => {
  test('__proto__ and constructor keys in params, arguments and _meta pollute nothing, both eras', async () => {
    const wire = await openWire(hostileServer());
    await wire.initialize('2025-11-25', { elicitation: {} });
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'raw', arguments: { text: 'x' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { progressToken: 't' } } },
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {
          name: 'ask',
          arguments: {},
          _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
        },
      },
      { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'file:///docs/readme' } },
    ];
    for (const request of requests) {
      wire.send(poisoned(request));
      const answer = await wire.next();
      assert.equal(answer.id, request.id, JSON.stringify(answer));
      assert.ok('result' in answer || 'error' in answer);
      assertNothingPolluted();
    }
    // Still serving, and serving correctly.
    const sum = await wire.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(sum.result.content[0].text, '5');
    await wire.close();
  });

  test('huge numbers and strings: clear answers, no echo of megabytes', async () => {
    const wire = await openWire(hostileServer());
    await wire.initialize('2025-03-26');
    wire.send('{"jsonrpc":"2.0","id":1e400,"method":"ping"}');
    const hugeId = await wire.next();
    assert.equal(hugeId.error.code, -32600);
    const big = await wire.request('tools/call', {
      name: 'raw',
      arguments: { text: 'x'.repeat(10_000_000) },
    });
    assert.equal(big.result.content[0].text, '1 keys, text of 10000000');
    const infinite = await wire.request('tools/call', { name: 'add', arguments: { a: 1e308, b: 1e308 } });
    assert.ok(infinite.result, JSON.stringify(infinite));
    for (const [method, params] of [
      ['x'.repeat(1_000_000), {}],
      ['tools/call', { name: 'y'.repeat(1_000_000) }],
      ['prompts/get', { name: 'z'.repeat(1_000_000) }],
      ['resources/read', { uri: `file:///${'w'.repeat(1_000_000)}` }],
    ] as const) {
      const answer = await wire.request(method, params);
      assert.ok(answer.error, `${method.slice(0, 20)}: ${JSON.stringify(answer).slice(0, 200)}`);
      assert.ok(
        JSON.stringify(answer).length < 2000,
        `${method.slice(0, 20)}: an answer of ${JSON.stringify(answer).length} characters`,
      );
      assert.match(answer.error.message, /\(1000\d+ characters\)/);
    }
    wire.send(
      JSON.stringify(Array.from({ length: 10_000 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }))),
    );
    const batch = await wire.next();
    assert.equal(batch.error.code, -32600);
    assert.match(batch.error.message, /10000 messages/);
    assert.deepEqual((await wire.request('ping')).result, {});
    await wire.close();
  });
});

describe('hostile input over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(hostileServer());
  });
  after(() => server.close());

  const read = async (uri: string) => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: modernHeaders('resources/read', uri),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: { uri, _meta: ENVELOPE },
      }),
    });
    return (await response.json()) as {
      result?: { contents: { text: string }[] };
      error?: { code: number; message: string };
    };
  };

  test('path traversal through resource templates is refused, naming the variable', async () => {
    for (const uri of [
      'file:///docs/..',
      'file:///docs/%2e%2e',
      'file:///docs/%2E%2E',
      'file:///docs/..%2F..%2Fetc%2Fpasswd',
      'file:///docs/%2e%2e%2fetc%2fpasswd',
      'file:///docs/..%5C..%5Cwindows',
      'file:///tree/../../etc/passwd',
      'file:///tree/a/%2e%2e/%2e%2e/etc/shadow',
    ]) {
      const answer = await read(uri);
      assert.equal(answer.error?.code, -32602, `${uri}: ${JSON.stringify(answer)}`);
      assert.match(answer.error!.message, /"(name|path)" is .*"\.\." path segment/);
    }
    // What does not climb is served, a slash that was %2F included (the template's own round trip).
    assert.equal((await read('file:///docs/a%2Fb')).result?.contents[0]?.text, 'doc a/b');
    assert.equal((await read('file:///tree/a/b..c/d')).result?.contents[0]?.text, 'tree a/b..c/d');
    assert.equal((await read('file:///docs/...')).result?.contents[0]?.text, 'doc ...');
  });

  test('invalid UTF-8 in a body: -32700 outside strings, U+FFFD inside them; the server keeps serving', async () => {
    const send = (bytes: number[], path = '/mcp', headers = modernHeaders('tools/call', 'raw')) =>
      rawRequest(server.port, { path, headers, body: Buffer.from(bytes) });
    const outside = await send([0x7b, 0xff, 0xfe, 0x7d]);
    assert.equal(outside.status, 400);
    assert.equal(JSON.parse(outside.body).error.code, -32700);
    const request = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'raw', arguments: { text: 'AB' }, _meta: ENVELOPE },
    });
    const [before, afterText] = request.split('AB') as [string, string];
    const inside = await send([...Buffer.from(before), 0xc3, 0x28, 0xff, ...Buffer.from(afterText)]);
    assert.equal(inside.status, 200, inside.body);
    assert.match(JSON.parse(inside.body).result.content[0].text, /text of 3/);
  });

  test('odd and huge session ids and Last-Event-IDs: clear, short refusals', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const sessionId of [
      '',
      ' ',
      'x'.repeat(60_000),
      '../../etc/passwd',
      'ñandú',
      '\u0000\u0007',
      '%00',
    ]) {
      const reply = await rawRequest(server.port, {
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT_BOTH,
          'mcp-session-id': encodeURIComponent(sessionId),
        },
        body: ping,
      });
      assert.ok(
        [400, 404, 431].includes(reply.status),
        `${JSON.stringify(sessionId.slice(0, 20))}: ${reply.status}`,
      );
      assert.ok(reply.body.length < 1000, `an answer of ${reply.body.length} characters`);
    }
    const { sessionId } = await initialize(server.url, '2025-11-25');
    for (const lastEventId of [
      '',
      '-1',
      'abc',
      '0-',
      '1-1',
      '99999999999999999999-1',
      '0-1e9',
      'x'.repeat(60_000),
      '0-0-0',
    ]) {
      const reply = await rawRequest(server.port, {
        method: 'GET',
        headers: {
          ...sessionHeaders(sessionId, '2025-11-25'),
          accept: 'text/event-stream',
          'last-event-id': lastEventId,
        },
      });
      if (reply.status === 200) continue; // an id of this session's GET stream: a resumption
      if (reply.status === 431) continue; // Node's own header size limit, before the handler
      assert.equal(reply.status, 400, `${lastEventId.slice(0, 20)}: ${reply.body.slice(0, 200)}`);
      assert.match(JSON.parse(reply.body).error.message, /Cannot resume/);
      assert.ok(reply.body.length < 1000);
    }
    const alive = await rawRequest(server.port, {
      headers: sessionHeaders(sessionId, '2025-11-25'),
      body: ping,
    });
    assert.equal(alive.status, 200);
  });
});

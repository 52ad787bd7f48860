/**
 * The 2026-07-28 side of the MCP endpoint over real loopback HTTP: the status-code table, the
 * mirrored headers (SEP-2243), JSON vs SSE replies, keep-alives, and cancellation by disconnect.
 * Every message the server sends is checked against the 2026-07-28 schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import { SwitchboardError } from '../../../src/protocol/errors.js';
import { deferred } from '../../../src/util/deferred.js';
import { counter, until } from '../../helpers/wait.js';
import {
  ACCEPT_BOTH,
  assertError,
  EventReader,
  initializeRequest,
  MODERN,
  makeServer,
  modernHeaders,
  modernRequest,
  post,
  rawRequest,
  startServer,
  type TestServer,
} from './helpers.js';
import { WireCheck } from './wire.js';

const b64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

describe('2026-07-28 requests', () => {
  let server: TestServer;
  let wire: WireCheck;
  let aborts = 0;
  const starts = counter();
  before(async () => {
    server = await startServer(makeServer({ onAbort: () => aborts++, onStart: () => starts.fire() }));
    wire = await WireCheck.create();
  });
  after(async () => {
    await server.close();
    await wire.assertCleanWhenSettled();
  });

  test('a request without streaming is answered with JSON (200)', async () => {
    const reply = await post(
      server.url,
      modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
      modernHeaders('tools/call', 'echo'),
      wire,
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/json');
    assert.equal(reply.json.id, 1);
    assert.deepEqual(reply.json.result.content, [{ type: 'text', text: 'hi' }]);
    assert.equal(reply.json.result.resultType, 'complete');
    assert.equal(reply.headers.get('mcp-session-id'), null, 'no session is minted in this era');
  });

  test('server/discover and lists work without any session', async () => {
    const discover = await post(
      server.url,
      modernRequest(2, 'server/discover'),
      modernHeaders('server/discover'),
      wire,
    );
    assert.equal(discover.status, 200);
    assert.deepEqual(discover.json.result.supportedVersions, [MODERN]);
    const list = await post(server.url, modernRequest(3, 'tools/list'), modernHeaders('tools/list'), wire);
    assert.ok(list.json.result.tools.some((t: { name: string }) => t.name === 'echo'));
    const read = await post(
      server.url,
      modernRequest(4, 'resources/read', { uri: 'file:///readme.md' }),
      modernHeaders('resources/read', 'file:///readme.md'),
      wire,
    );
    assert.equal(read.json.result.contents[0].text, '# hi');
  });

  test('progress before the result turns the reply into an SSE stream scoped to the request', async () => {
    const reply = await post(
      server.url,
      modernRequest(5, 'tools/call', { name: 'progress', _meta: { progressToken: 'p5' } }),
      modernHeaders('tools/call', 'progress'),
      wire,
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'text/event-stream');
    assert.equal(reply.headers.get('x-accel-buffering'), 'no');
    assert.deepEqual(
      reply.messages.map((m) => m.method ?? 'response'),
      ['notifications/progress', 'notifications/progress', 'response'],
    );
    assert.equal(reply.messages[2].id, 5);
    assert.ok(
      reply.events?.every((e) => e.id === undefined),
      'no event ids: 2026-07-28 streams are not resumable',
    );
  });

  test('a notification is accepted with 202 and no body', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: modernHeaders('notifications/cancelled'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 9, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
      }),
    });
    assert.equal(response.status, 202);
    assert.equal(await response.text(), '');
  });

  test('an Mcp-Session-Id header on a modern request is ignored and not echoed', async () => {
    const reply = await post(
      server.url,
      modernRequest(6, 'tools/list'),
      { ...modernHeaders('tools/list'), 'mcp-session-id': 'deadbeef' },
      wire,
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('mcp-session-id'), null);
  });

  describe('status codes', () => {
    test('unknown method → 404 + -32601', async () => {
      const reply = await post(
        server.url,
        modernRequest(7, 'tools/frobnicate'),
        modernHeaders('tools/frobnicate'),
        wire,
      );
      assertError(reply, 404, -32601, /tools\/frobnicate/);
      assert.equal(reply.json.id, 7);
    });

    test('unsupported protocol version → 400 + -32022 with the supported versions', async () => {
      const body = modernRequest(8, 'tools/list', {
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      });
      const reply = await post(server.url, body, {
        ...modernHeaders('tools/list'),
        'mcp-protocol-version': '2099-01-01',
      });
      assertError(reply, 400, -32022);
      assert.deepEqual(reply.json.error.data.supported, [MODERN]);
      assert.equal(reply.json.error.data.requested, '2099-01-01');
    });

    test('missing clientCapabilities → 400 + -32602', async () => {
      const body = {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
      };
      assertError(
        await post(server.url, body, modernHeaders('tools/list')),
        400,
        -32602,
        /clientCapabilities/,
      );
    });

    test('a missing required client capability → 400 + -32021', async () => {
      const reply = await post(
        server.url,
        modernRequest(10, 'tools/call', { name: 'needs-elicitation' }),
        modernHeaders('tools/call', 'needs-elicitation'),
        wire,
      );
      assertError(reply, 400, -32021);
      assert.deepEqual(reply.json.error.data, { requiredCapabilities: { elicitation: {} } });
    });

    test('a request without the _meta envelope but a modern version header → 400 + -32602', async () => {
      const reply = await post(
        server.url,
        { jsonrpc: '2.0', id: 11, method: 'tools/list' },
        modernHeaders('tools/list'),
      );
      assertError(reply, 400, -32602, /_meta/);
    });

    test('GET and DELETE without a session → 405 with Allow', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(server.url, { method, headers: { accept: 'text/event-stream' } });
        assert.equal(response.status, 405);
        assert.match(response.headers.get('allow') ?? '', /POST/);
        const body = (await response.json()) as any;
        assert.equal(body.error.code, -32600);
        assert.match(body.error.message, /Method Not Allowed/);
      }
    });

    test('other methods → 405; other paths → 404; both with JSON-RPC bodies', async () => {
      const put = await fetch(server.url, { method: 'PUT' });
      assert.equal(put.status, 405);
      assert.equal(((await put.json()) as any).error.code, -32600);
      const elsewhere = await fetch(`${server.origin}/elsewhere`, { method: 'POST' });
      assert.equal(elsewhere.status, 404);
      const body = (await elsewhere.json()) as any;
      assert.notEqual(body.error.code, -32601, 'a wrong path is not a modern "method not found"');
      assert.match(body.error.message, /\/mcp/);
    });

    test('invalid JSON → 400 + -32700; not JSON-RPC → 400 + -32600', async () => {
      assertError(await post(server.url, '{"jsonrpc":', modernHeaders('tools/list')), 400, -32700);
      assertError(await post(server.url, '42', modernHeaders('tools/list')), 400, -32600);
      const noMethod = {
        jsonrpc: '1.0',
        id: 3,
        method: 'x',
        params: { _meta: { ...modernRequest(0, 'x').params._meta } },
      };
      assertError(await post(server.url, noMethod, modernHeaders('x')), 400, -32600, /jsonrpc/);
    });

    test('a JSON-RPC response from a modern client → 400', async () => {
      const reply = await post(
        server.url,
        { jsonrpc: '2.0', id: 1, result: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } },
        modernHeaders('x'),
      );
      // A result has no params, so it is not routed as modern; it is refused as a session-less message.
      assert.equal(reply.status, 400);
    });

    test('a batch without a session → 400', async () => {
      const reply = await post(server.url, [modernRequest(1, 'tools/list')], modernHeaders('tools/list'));
      assertError(reply, 400, -32600, /batch/i);
    });
  });

  describe('mirrored headers (-32020)', () => {
    const call = (id: number, args: Record<string, unknown>) =>
      modernRequest(id, 'tools/call', { name: 'route', arguments: args });

    test('missing or mismatched MCP-Protocol-Version, Mcp-Method, Mcp-Name → 400 + -32020', async () => {
      const body = call(20, {});
      const headers = modernHeaders('tools/call', 'route');
      const cases: [Record<string, string | undefined>, RegExp][] = [
        [{ 'mcp-protocol-version': undefined }, /MCP-Protocol-Version header is missing/],
        [{ 'mcp-protocol-version': '2025-11-25' }, /does not match/],
        [{ 'mcp-method': undefined }, /Mcp-Method header is missing/],
        [{ 'mcp-method': 'tools/list' }, /Mcp-Method header "tools\/list"/],
        [{ 'mcp-name': undefined }, /Mcp-Name header is missing/],
        [{ 'mcp-name': 'echo' }, /"echo" does not match/],
        [{ 'mcp-name': '=?base64?not base64?=' }, /malformed/],
      ];
      for (const [change, pattern] of cases) {
        const sent = { ...headers, ...change };
        for (const [k, v] of Object.entries(sent)) if (v === undefined) delete sent[k];
        const reply = await post(server.url, body, sent as Record<string, string>);
        assertError(reply, 400, -32020, pattern);
        assert.equal(reply.json.id, 20);
      }
    });

    test('Mcp-Name may be base64-sentinel encoded', async () => {
      const reply = await post(server.url, call(21, {}), modernHeaders('tools/call', b64('route')), wire);
      assert.equal(reply.status, 200);
    });

    test('Mcp-Param-* must mirror x-mcp-header arguments (decoded; integers as numbers)', async () => {
      const headers = {
        ...modernHeaders('tools/call', 'route'),
        'mcp-param-region': b64('Zürich  '),
        'mcp-param-shard': '42.0',
        'mcp-param-dry': 'false',
        'mcp-param-zone': 'z1',
      };
      const args = { region: 'Zürich  ', shard: 42, dry: false, target: { zone: 'z1' }, query: 'x' };
      const ok = await post(server.url, call(22, args), headers, wire);
      assert.equal(ok.status, 200, JSON.stringify(ok.json));
      assert.deepEqual(JSON.parse(ok.json.result.content[0].text), args);

      const { 'mcp-param-shard': _shard, ...withoutShard } = headers;
      const missing = await post(server.url, call(23, args), withoutShard);
      assertError(missing, 400, -32020, /Mcp-Param-Shard header is missing/);
      const wrong = await post(server.url, call(24, args), { ...headers, 'mcp-param-shard': '43' });
      assertError(wrong, 400, -32020, /Mcp-Param-Shard/);
      const wrongCase = await post(server.url, call(25, args), { ...headers, 'mcp-param-dry': 'False' });
      assertError(wrongCase, 400, -32020, /Mcp-Param-Dry/);
      const nested = await post(server.url, call(26, args), { ...headers, 'mcp-param-zone': 'z2' });
      assertError(nested, 400, -32020, /arguments\.target\.zone/);
    });

    test('absent or null arguments need no header; a header without a body value is a mismatch', async () => {
      const none = await post(
        server.url,
        call(27, { region: null, query: 'q' }),
        modernHeaders('tools/call', 'route'),
        wire,
      );
      assert.equal(none.status, 200);
      const extra = await post(server.url, call(28, { query: 'q' }), {
        ...modernHeaders('tools/call', 'route'),
        'mcp-param-region': 'eu',
      });
      assertError(extra, 400, -32020, /\(absent\)/);
      const unknown = await post(
        server.url,
        call(29, {}),
        { ...modernHeaders('tools/call', 'route'), 'mcp-param-unrelated': 'ignored' },
        wire,
      );
      assert.equal(unknown.status, 200, 'unrecognized Mcp-Param headers are ignored');
    });

    test('headers are not required on notifications', async () => {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
        body: JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/whatever',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
        }),
      });
      assert.equal(response.status, 202);
    });
  });

  describe('cancellation by disconnect', () => {
    test('closing the SSE reply aborts the handler, and nothing more is sent', async () => {
      const before = aborts;
      const controller = new AbortController();
      const response = await fetch(server.url, {
        method: 'POST',
        headers: modernHeaders('tools/call', 'wait'),
        body: JSON.stringify(modernRequest(30, 'tools/call', { name: 'wait', _meta: { progressToken: 1 } })),
        signal: controller.signal,
      });
      const reader = new EventReader(response);
      const first = await reader.nextMessage();
      assert.equal(first?.method, 'notifications/progress');
      controller.abort();
      await reader.cancel();
      await until(() => aborts === before + 1, 'the handler saw its signal abort');
    });

    test('a client that leaves while waiting for a JSON reply cancels the request too', async () => {
      const before = aborts;
      const started = starts.count + 1;
      const controller = new AbortController();
      const pending = fetch(server.url, {
        method: 'POST',
        headers: modernHeaders('tools/call', 'hang'),
        body: JSON.stringify(modernRequest(31, 'tools/call', { name: 'hang' })),
        signal: controller.signal,
      }).catch((error: Error) => error);
      await starts.reached(started); // the handler runs: leaving now is a cancellation
      controller.abort();
      assert.ok((await pending) instanceof Error);
      await until(() => aborts === before + 1, 'the handler saw its signal abort');
    });

    test('a call is its own Cancellable: a listener is told of the disconnect without a signal, a late one soon after', async () => {
      // What a gateway forwarding the call uses: no AbortController (and no signal) per call.
      const told: unknown[] = [];
      let lateReason: (reason: unknown) => void = () => {};
      const late = new Promise<unknown>((resolve) => {
        lateReason = resolve;
      });
      const entered = deferred();
      const cancellable = new Server({ name: 'cancellable', version: '1.0.0' });
      cancellable.registerTool('told', { description: 'Waits to be told it was cancelled' }, (_args, ctx) => {
        const link = ctx.link.cancellable;
        assert.ok(link, 'a 2026-07-28 HTTP call has a Cancellable');
        return new Promise<string>((resolve) => {
          link.onCancel((reason) => {
            told.push(reason);
            link.onCancel(lateReason);
            resolve('never seen');
          });
          entered.resolve();
        });
      });
      const served = await startServer(cancellable);
      try {
        const controller = new AbortController();
        const pending = fetch(served.url, {
          method: 'POST',
          headers: modernHeaders('tools/call', 'told'),
          body: JSON.stringify(modernRequest(32, 'tools/call', { name: 'told' })),
          signal: controller.signal,
        }).catch((error: Error) => error);
        await entered.promise;
        controller.abort();
        assert.ok((await pending) instanceof Error);
        const reason = await late;
        assert.equal(told.length, 1, 'told once');
        assert.equal(reason, told[0], 'the late listener gets the same reason');
        assert.ok(reason instanceof SwitchboardError && reason.code === 'ABORTED', String(reason));
      } finally {
        await served.close();
      }
    });
  });

  test('the Host header of a DNS-rebinding page is refused before anything runs', async () => {
    const reply = await rawRequest(server.port, {
      headers: { ...modernHeaders('tools/list'), host: `attacker.example:${server.port}` },
      body: JSON.stringify(modernRequest(40, 'tools/list')),
    });
    assert.equal(reply.status, 403);
  });
});

describe('response modes and keep-alives', () => {
  test("responseMode 'json' answers JSON even when the handler reports progress", async () => {
    const server = await startServer(makeServer(), { responseMode: 'json' });
    const wire = await WireCheck.create();
    try {
      const reply = await post(
        server.url,
        modernRequest(1, 'tools/call', { name: 'progress', _meta: { progressToken: 1 } }),
        { ...modernHeaders('tools/call', 'progress'), accept: 'application/json' },
        wire,
      );
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('content-type'), 'application/json');
      assert.equal(reply.json.result.content[0].text, 'finished');
    } finally {
      await server.close();
    }
    wire.assertClean();
  });

  test("responseMode 'sse' always streams, and then requires Accept: text/event-stream", async () => {
    const server = await startServer(makeServer(), { responseMode: 'sse' });
    const wire = await WireCheck.create();
    try {
      const reply = await post(server.url, modernRequest(1, 'tools/list'), modernHeaders('tools/list'), wire);
      assert.equal(reply.headers.get('content-type'), 'text/event-stream');
      assert.equal(reply.messages.length, 1);
      assert.equal(reply.messages[0].id, 1);
      const refused = await post(server.url, modernRequest(2, 'tools/list'), {
        ...modernHeaders('tools/list'),
        accept: 'application/json',
      });
      assertError(refused, 406, -32600, /text\/event-stream/);
    } finally {
      await server.close();
    }
    wire.assertClean();
  });

  test('a silent SSE stream gets ":" keep-alive comments', async () => {
    let release!: () => void;
    const server = await startServer(makeServer({ release: new Promise((r) => (release = r)) }), {
      keepAliveMs: 15,
    });
    try {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: modernHeaders('tools/call', 'wait'),
        body: JSON.stringify(modernRequest(1, 'tools/call', { name: 'wait', _meta: { progressToken: 1 } })),
      });
      const reader = new EventReader(response);
      assert.equal((await reader.nextMessage())?.method, 'notifications/progress');
      await reader.comment(2);
      release();
      const rest = await reader.rest();
      assert.deepEqual(
        rest.map((e) => JSON.parse(e.data).method ?? 'response'),
        ['notifications/progress', 'response'],
      );
      assert.ok(reader.comments >= 2);
    } finally {
      await server.close();
    }
  });

  test('legacySessions: false answers initialize with -32022 and the modern versions; GET → 405', async () => {
    const server = await startServer(makeServer(), { legacySessions: false });
    try {
      const reply = await post(server.url, initializeRequest(1, '2025-11-25', 'old'), {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
      });
      assertError(reply, 400, -32022, /server\/discover/);
      assert.deepEqual(reply.json.error.data, { supported: [MODERN], requested: '2025-11-25' });
      const get = await fetch(server.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' },
      });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
    } finally {
      await server.close();
    }
  });

  test('closing the handler ends open streams and refuses new requests with 503', async () => {
    const server = await startServer(makeServer());
    const response = await fetch(server.url, {
      method: 'POST',
      headers: modernHeaders('tools/call', 'wait'),
      body: JSON.stringify(modernRequest(1, 'tools/call', { name: 'wait', _meta: { progressToken: 1 } })),
    });
    const reader = new EventReader(response);
    await reader.nextMessage();
    await server.handler.close();
    await reader.done;
    const late = await post(server.url, modernRequest(2, 'tools/list'), modernHeaders('tools/list'));
    assertError(late, 503, -32603, /shutting down/);
    await server.close();
  });
});

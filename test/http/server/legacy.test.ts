/**
 * Legacy Streamable HTTP sessions (2025-03-26 .. 2025-11-25) over real loopback HTTP: session ids,
 * MCP-Protocol-Version checks, the GET stream, resumability with Last-Event-ID (GET and POST
 * streams), priming events, 2025-03-26 batches, cancellation, eviction and idle timeout. Every
 * message the server sends is checked against the negotiated revision's schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import { MemoryEventStore } from '../../../src/transports/http/server/event-store.js';
import type { McpHttpHandler } from '../../../src/transports/http/server/handler.js';
import { flush } from '../../helpers/clock.js';
import { counter, until } from '../../helpers/wait.js';
import {
  ACCEPT_BOTH,
  assertError,
  EventReader,
  initialize,
  makeServer,
  post,
  readReply,
  serverSawClose,
  sessionHeaders,
  startServer,
  type TestServer,
} from './helpers.js';
import { WireCheck } from './wire.js';

const call = (
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  meta?: Record<string, unknown>,
) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: meta ? { name, arguments: args, _meta: meta } : { name, arguments: args },
});

function openGet(
  url: string,
  sessionId: string,
  revision: string,
  lastEventId?: string,
  tag?: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    'mcp-session-id': sessionId,
    'mcp-protocol-version': revision,
  };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  if (tag !== undefined) headers['x-test-tag'] = tag;
  return fetch(url, { headers });
}

describe('legacy sessions', () => {
  let server: TestServer;
  let release!: () => void;
  let aborts = 0;
  const starts = counter();
  const sdk = makeServer({
    onAbort: () => aborts++,
    onStart: () => starts.fire(),
    release: new Promise<void>((resolve) => {
      release = resolve;
    }),
  });
  before(async () => {
    server = await startServer(sdk);
  });
  after(() => server.close());

  test('initialize opens a session with a 128-bit id; requests carry it', async () => {
    const wire = await WireCheck.create();
    const { sessionId, reply } = await initialize(server.url, '2025-11-25', wire);
    assert.match(sessionId, /^[0-9a-f]{32}$/);
    assert.equal(reply.json.result.protocolVersion, '2025-11-25');
    const list = await post(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      sessionHeaders(sessionId, '2025-11-25'),
      wire,
    );
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('content-type'), 'application/json');
    assert.ok(list.json.result.tools.length > 0);
    const ping = await post(
      server.url,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      sessionHeaders(sessionId, '2025-11-25'),
      wire,
    );
    assert.deepEqual(ping.json.result, {});
    wire.assertClean();
  });

  test('2025-11-25 POST streams start with a priming event (id, empty data, retry) and carry event ids', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-11-25', wire);
    const body = call(3, 'progress', {}, { progressToken: 'p' });
    wire.client(body);
    const response = await fetch(server.url, {
      method: 'POST',
      headers: sessionHeaders(sessionId, '2025-11-25'),
      body: JSON.stringify(body),
    });
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    assert.equal(response.headers.get('mcp-session-id'), sessionId);
    const reader = new EventReader(response);
    const events = await reader.rest();
    assert.equal(reader.retry, 1000);
    assert.equal(events[0]?.data, '');
    assert.match(events[0]?.id ?? '', /^\d+-0$/);
    const stream = events[0]!.id!.split('-')[0];
    assert.deepEqual(
      events.slice(1).map((e) => e.id),
      [`${stream}-1`, `${stream}-2`, `${stream}-3`],
    );
    for (const event of events.slice(1)) wire.server(JSON.parse(event.data));
    assert.equal(JSON.parse(events[3]!.data).id, 3);
    wire.assertClean();
  });

  test('2025-06-18 streams have event ids but no priming event', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-06-18', wire);
    const reply = await post(
      server.url,
      call(4, 'progress', {}, { progressToken: 1 }),
      sessionHeaders(sessionId, '2025-06-18'),
      wire,
    );
    assert.ok(reply.events!.every((e) => e.data.length > 0));
    assert.ok(reply.events!.every((e) => /^\d+-\d+$/.test(e.id ?? '')));
    wire.assertClean();
  });

  test('MCP-Protocol-Version must name a legacy revision; another than negotiated or none is accepted', async () => {
    const { sessionId } = await initialize(server.url, '2025-06-18');
    for (const unsupported of ['1900-01-01', 'not-a-version', '2026-07-28']) {
      const wrong = await post(
        server.url,
        { jsonrpc: '2.0', id: 5, method: 'tools/list' },
        sessionHeaders(sessionId, unsupported),
      );
      assertError(wrong, 400, -32600, /unsupported MCP-Protocol-Version.*2025-06-18/);
    }
    // Supported but not the negotiated one (the spec's SHOULD is the client's): served as 2025-06-18.
    const other = await post(
      server.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      sessionHeaders(sessionId, '2025-03-26'),
    );
    assert.equal(other.status, 200);
    const { 'mcp-protocol-version': _v, ...noVersion } = sessionHeaders(sessionId, '2025-06-18');
    const absent = await post(server.url, { jsonrpc: '2.0', id: 6, method: 'tools/list' }, noVersion);
    assert.equal(absent.status, 200);
  });

  test('unknown session → 404; no session → 400; DELETE ends a session', async () => {
    const unknown = await post(
      server.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      sessionHeaders('0'.repeat(32), '2025-06-18'),
    );
    assertError(unknown, 404, -32600, /initialize/);
    const none = await post(
      server.url,
      { jsonrpc: '2.0', id: 8, method: 'tools/list' },
      {
        'content-type': 'application/json',
        accept: ACCEPT_BOTH,
      },
    );
    assertError(none, 400, -32600, /Mcp-Session-Id/);

    const { sessionId } = await initialize(server.url, '2025-06-18');
    const stream = await openGet(server.url, sessionId, '2025-06-18');
    const reader = new EventReader(stream);
    const deleted = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(deleted.status, 200);
    await reader.done; // the session's streams end with it
    const after = await post(
      server.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      sessionHeaders(sessionId, '2025-06-18'),
    );
    assertError(after, 404, -32600);
    const again = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assert.equal(again.status, 404);
  });

  test('a failed initialize hands out no session id', async () => {
    const reply = await post(
      server.url,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
      { 'content-type': 'application/json', accept: ACCEPT_BOTH },
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.json.error.code, -32602);
    assert.equal(reply.headers.get('mcp-session-id'), null);
  });

  test('the GET stream carries unrelated messages; a second GET → 409', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-11-25', wire);
    const reader = new EventReader(await openGet(server.url, sessionId, '2025-11-25'));
    const priming = await reader.next();
    assert.deepEqual(priming, { id: '0-0', event: undefined, data: '' });
    const second = await openGet(server.url, sessionId, '2025-11-25');
    assert.equal(second.status, 409);
    const handle = sdk.registerTool('added', { description: 'appears later' }, () => 'x');
    const changed = await reader.nextMessage();
    assert.equal(changed?.method, 'notifications/tools/list_changed');
    wire.server(changed);
    handle.remove();
    await reader.nextMessage();
    await reader.cancel();
    wire.assertClean();
  });

  test('a dropped GET stream resumes with Last-Event-ID and receives the missed events', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-11-25', wire);
    const gone = serverSawClose(server, 'dropped-get');
    const first = new EventReader(
      await openGet(server.url, sessionId, '2025-11-25', undefined, 'dropped-get'),
    );
    assert.equal((await first.next())?.id, '0-0', 'the priming event');
    const added = sdk.registerTool('one', { description: 'first change' }, () => 'x');
    const seen = await first.next();
    assert.ok(seen?.id && seen.data.length > 0);
    await first.cancel();
    await gone; // the server knows the stream is gone: what follows is missed, not sent into it
    added.remove(); // sent after the client left: kept in the event store

    const later = sdk.registerTool('two', { description: 'second change' }, () => 'x');
    const resumed = new EventReader(await openGet(server.url, sessionId, '2025-11-25', seen.id));
    const missed = await resumed.next();
    assert.equal(JSON.parse(missed!.data).method, 'notifications/tools/list_changed');
    const [streamId, seq] = seen.id.split('-').map(Number);
    assert.equal(missed!.id, `${streamId}-${seq! + 1}`);
    wire.server(JSON.parse(missed!.data));
    await resumed.cancel();
    later.remove();
    wire.assertClean();
  });

  test('a POST stream dropped mid-request is not a cancellation; GET + Last-Event-ID resumes it', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-11-25', wire);
    const body = call(10, 'wait', {}, { progressToken: 'w' });
    wire.client(body);
    const controller = new AbortController();
    const gone = serverSawClose(server, 'dropped-post');
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { ...sessionHeaders(sessionId, '2025-11-25'), 'x-test-tag': 'dropped-post' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    const reader = new EventReader(response);
    const priming = await reader.next();
    const progress = await reader.next();
    assert.equal(JSON.parse(progress!.data).method, 'notifications/progress');
    wire.server(JSON.parse(progress!.data));
    controller.abort();
    await reader.cancel();
    const abortsBefore = aborts;
    await gone; // the server knows the POST's stream is gone
    release(); // the tool finishes while nobody listens
    const resumed = new EventReader(await openGet(server.url, sessionId, '2025-11-25', progress!.id));
    const rest = await resumed.rest();
    // The replay ends with the tool's own answer: it ran to its end, it was not cancelled.
    assert.equal(aborts, abortsBefore, 'the handler was not cancelled');
    const messages = rest.map((e) => JSON.parse(e.data));
    assert.deepEqual(
      messages.map((m) => m.method ?? `response ${m.id}`),
      ['notifications/progress', 'response 10'],
    );
    for (const message of messages) wire.server(message);
    assert.equal(messages[1].result.content[0].text, 'released');
    const stream = priming!.id!.split('-')[0];
    assert.deepEqual(
      rest.map((e) => e.id),
      [`${stream}-2`, `${stream}-3`],
    );
    // Resuming once more replays the same tail: the store still holds it.
    const again = await new EventReader(
      await openGet(server.url, sessionId, '2025-11-25', priming!.id),
    ).rest();
    assert.equal(again.length, 3);
    wire.assertClean();
  });

  test('a handler may close its SSE stream mid-call (SEP-1699); GET + Last-Event-ID brings the result', async () => {
    const polling = new Server({ name: 'polling', version: '1.0.0' });
    const closed: boolean[] = [];
    let proceed!: () => void;
    const reconnected = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    polling.registerTool('poll', { description: 'Lets go of its stream' }, async (_args, ctx) => {
      closed.push(ctx.closeSseStream());
      await reconnected;
      return 'after the reconnection';
    });
    const own = await startServer(polling);
    try {
      const wire = await WireCheck.create();
      const { sessionId } = await initialize(own.url, '2025-11-25', wire);
      const body = call(21, 'poll');
      wire.client(body);
      const response = await fetch(own.url, {
        method: 'POST',
        headers: sessionHeaders(sessionId, '2025-11-25'),
        body: JSON.stringify(body),
      });
      assert.equal(response.headers.get('content-type'), 'text/event-stream');
      const reader = new EventReader(response);
      const first = await reader.rest(); // ended by the server: the priming event only
      assert.deepEqual(closed, [true]);
      assert.equal(reader.retry, 1000);
      assert.deepEqual(
        first.map((e) => e.data),
        [''],
      );
      proceed();
      const rest = await new EventReader(
        await openGet(own.url, sessionId, '2025-11-25', first[0]!.id),
      ).rest();
      const messages = rest.map((e) => JSON.parse(e.data));
      for (const message of messages) wire.server(message);
      assert.deepEqual(
        messages.map((m) => m.id),
        [21],
      );
      assert.equal(messages[0].result.content[0].text, 'after the reconnection');

      // 2025-06-18 has no priming event to resume from: the stream stays, the result comes as usual.
      const old = await initialize(own.url, '2025-06-18', wire);
      const direct = await post(own.url, call(22, 'poll'), sessionHeaders(old.sessionId, '2025-06-18'), wire);
      assert.deepEqual(closed, [true, false]);
      assert.equal(direct.json.result.content[0].text, 'after the reconnection');
      wire.assertClean();
    } finally {
      await own.close();
    }
  });

  test('Last-Event-ID that names no stream → 400', async () => {
    const { sessionId } = await initialize(server.url, '2025-11-25');
    for (const id of ['garbage', '999-1']) {
      const response = await openGet(server.url, sessionId, '2025-11-25', id);
      assertError(await readReply(response), 400, -32600, /Last-Event-ID|resume/);
    }
  });

  test('notifications/cancelled releases the POST waiting for the cancelled request', async () => {
    const { sessionId } = await initialize(server.url, '2025-06-18');
    const abortsBefore = aborts;
    const started = starts.count + 1;
    const pending = post(server.url, call(11, 'hang'), sessionHeaders(sessionId, '2025-06-18'));
    await starts.reached(started); // the request is running: its cancellation has something to cancel
    const cancel = await post(
      server.url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 11, reason: 'test' } },
      sessionHeaders(sessionId, '2025-06-18'),
    );
    assert.equal(cancel.status, 202);
    const released = await pending;
    assert.equal(released.status, 202, 'a cancelled request gets no response');
    await until(() => aborts === abortsBefore + 1, 'the handler saw its signal abort');
  });

  test('a request id already in flight in the session → 400', async () => {
    const { sessionId } = await initialize(server.url, '2025-06-18');
    const started = starts.count + 1;
    const pending = post(server.url, call(12, 'hang'), sessionHeaders(sessionId, '2025-06-18'));
    await starts.reached(started); // id 12 is in flight
    const duplicate = await post(
      server.url,
      call(12, 'echo', { text: 'x' }),
      sessionHeaders(sessionId, '2025-06-18'),
    );
    assertError(duplicate, 400, -32600, /already used/);
    await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    assertError(await pending, 404, -32600, /session ended/);
  });

  test('the GET stream needs Accept: text/event-stream (406)', async () => {
    const { sessionId } = await initialize(server.url, '2025-06-18');
    const response = await fetch(server.url, {
      headers: { accept: 'application/json', 'mcp-session-id': sessionId },
    });
    assertError(await readReply(response), 406, -32600, /text\/event-stream/);
  });
});

describe('2025-03-26 batches', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(makeServer());
  });
  after(() => server.close());

  test('a POSTed array gets one array of responses', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-03-26', wire);
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'none', progress: 1 } },
      call(2, 'echo', { text: 'batched' }),
    ];
    const { 'mcp-protocol-version': _v, ...headers } = sessionHeaders(sessionId, '2025-03-26');
    const reply = await post(server.url, batch, headers, wire);
    assert.equal(reply.status, 200);
    assert.ok(Array.isArray(reply.json));
    assert.deepEqual(reply.json.map((r: { id: number }) => r.id).sort(), [1, 2]);
    const notificationsOnly = await post(
      server.url,
      [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
      headers,
      wire,
    );
    assert.equal(notificationsOnly.status, 202);
    wire.assertClean();
  });

  test('a batch on a later revision is refused with a JSON-RPC error', async () => {
    const { sessionId } = await initialize(server.url, '2025-06-18');
    const reply = await post(
      server.url,
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
      sessionHeaders(sessionId, '2025-06-18'),
    );
    assert.equal(reply.json.error.code, -32600);
    assert.match(reply.json.error.message, /2025-03-26/);
  });

  test('a 4 MiB batch of 80k requests is refused at once with -32600 naming the limit; 1000 are answered', async () => {
    const wire = await WireCheck.create();
    const { sessionId } = await initialize(server.url, '2025-03-26', wire);
    const { 'mcp-protocol-version': _v, ...headers } = sessionHeaders(sessionId, '2025-03-26');
    const pings = (n: number) =>
      Array.from({ length: n }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }));
    const huge = await post(server.url, pings(80_000), headers);
    assert.equal(huge.json.error.code, -32600);
    assert.equal(huge.json.id, null);
    assert.match(huge.json.error.message, /80000 messages.*at most 1000.*maxBatchLength/);
    const full = await post(server.url, pings(1000), headers, wire);
    assert.equal(full.status, 200);
    assert.equal(full.json.length, 1000);
    wire.assertClean();
  });
});

describe('session bounds', () => {
  test('a full registry evicts the least recently used idle session', async () => {
    const server = await startServer(makeServer(), { maxSessions: 2 });
    try {
      const a = await initialize(server.url, '2025-06-18');
      const b = await initialize(server.url, '2025-06-18');
      const touch = await post(
        server.url,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        sessionHeaders(a.sessionId, '2025-06-18'),
      );
      assert.equal(touch.status, 200);
      const c = await initialize(server.url, '2025-06-18');
      const evicted = await post(
        server.url,
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        sessionHeaders(b.sessionId, '2025-06-18'),
      );
      assertError(evicted, 404, -32600);
      for (const { sessionId } of [a, c]) {
        const alive = await post(
          server.url,
          { jsonrpc: '2.0', id: 3, method: 'ping' },
          sessionHeaders(sessionId, '2025-06-18'),
        );
        assert.equal(alive.status, 200);
      }
    } finally {
      await server.close();
    }
  });

  test('when every session is busy, a new one is refused with 503', async () => {
    const server = await startServer(makeServer(), { maxSessions: 1 });
    try {
      const a = await initialize(server.url, '2025-06-18');
      const stream = new EventReader(await openGet(server.url, a.sessionId, '2025-06-18'));
      const refused = await post(
        server.url,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        },
        { 'content-type': 'application/json', accept: ACCEPT_BOTH },
      );
      assertError(refused, 503, -32603, /maximum of 1 sessions/);
      assert.equal(refused.headers.get('retry-after'), '5');
      await stream.cancel();
    } finally {
      await server.close();
    }
  });

  test('an idle session expires', async () => {
    const server = await startServer(makeServer(), { sessionIdleTimeoutMs: 250 });
    try {
      const { sessionId } = await initialize(server.url, '2025-06-18');
      // Watch the registry, not the session: a request would count as activity.
      const handler = server.handler as McpHttpHandler;
      assert.equal(handler.sessionCount, 1);
      await until(() => handler.sessionCount === 0, 'the idle session expired');
      const reply = await post(
        server.url,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        sessionHeaders(sessionId, '2025-06-18'),
      );
      assertError(reply, 404, -32600);
    } finally {
      await server.close();
    }
  });

  test('resuming after events the bounded store discarded → 400', async () => {
    const sdk = makeServer();
    const server = await startServer(sdk, { eventStore: new MemoryEventStore({ maxEventsPerSession: 2 }) });
    try {
      const { sessionId } = await initialize(server.url, '2025-11-25');
      // No GET stream is open: the three list changes wait in a store that keeps two events.
      // Changes made in one turn are announced once: a turn apiece makes three events.
      for (let i = 0; i < 3; i++) {
        sdk.registerTool(`t${i}`, { description: 'x' }, () => 'x');
        await flush();
      }
      const response = await openGet(server.url, sessionId, '2025-11-25', '0-0');
      assertError(await readReply(response), 400, -32600, /discarded/);
      // A fresh GET gets what is still buffered, without a gap marker.
      const fresh = new EventReader(await openGet(server.url, sessionId, '2025-11-25'));
      const buffered = await fresh.next();
      assert.equal(buffered?.id, '0-2');
      await fresh.cancel();
    } finally {
      await server.close();
    }
  });

  test('eventStore: false — no event ids, no priming, no resumption', async () => {
    const server = await startServer(makeServer(), { eventStore: false });
    try {
      const { sessionId } = await initialize(server.url, '2025-11-25');
      const reply = await post(
        server.url,
        call(1, 'progress', {}, { progressToken: 1 }),
        sessionHeaders(sessionId, '2025-11-25'),
      );
      assert.ok(reply.events!.every((e) => e.id === undefined && e.data.length > 0));
      const response = await openGet(server.url, sessionId, '2025-11-25', '1-1');
      assertError(await readReply(response), 400, -32600, /eventStore/);
    } finally {
      await server.close();
    }
  });
});

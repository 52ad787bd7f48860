/**
 * What the code in front of an HTTP handler knows, as a tool handler sees it: credentials verified
 * upstream (`ctx.auth`), handed in with `handler.fetch(request, { auth })` or by a Node middleware
 * as `req.auth`, and the request's own headers (`ctx.requestHeaders`), in both eras. Every message
 * the server sends is checked against its revision's schema.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { AuthInfo } from '../../../src/engine/channel.js';
import { Server } from '../../../src/extensions/server.js';
import { toNodeListener } from '../../../src/node/listener.js';
import { createHttpHandler, type HttpHandler } from '../../../src/transports/http/server/handler.js';
import { openWire } from '../../helpers/wire.js';
import { ACCEPT_BOTH, modernHeaders, modernRequest, post, readReply, sessionHeaders } from './helpers.js';
import { WireCheck } from './wire.js';

const ALICE: AuthInfo = { token: 'secret-token', subject: 'alice', clientId: 'app-1', scopes: ['tools'] };

/** A server whose `whoami` tool answers with what it was told about the request. */
function whoamiServer(): Server {
  const server = new Server({ name: 'credentials', version: '1.0.0' });
  server.registerTool('whoami', {}, (_args, ctx) =>
    JSON.stringify({
      subject: ctx.auth?.subject ?? null,
      scopes: ctx.auth?.scopes ?? null,
      trace: ctx.requestHeaders?.['x-trace-id'] ?? null,
      hasHeaders: ctx.requestHeaders !== undefined,
    }),
  );
  return server;
}

interface Seen {
  subject: string | null;
  scopes: string[] | null;
  trace: string | null;
  hasHeaders: boolean;
}

function seen(result: { content: { type: string; text: string }[] }): Seen {
  return JSON.parse(result.content[0]!.text) as Seen;
}

const modernCall = (id: number) => modernRequest(id, 'tools/call', { name: 'whoami', arguments: {} });

describe('handler.fetch(request, { auth })', () => {
  let handler: HttpHandler;
  let wire: WireCheck;
  before(async () => {
    handler = createHttpHandler(whoamiServer());
    wire = await WireCheck.create();
  });
  after(async () => {
    await handler.close();
    await wire.assertCleanWhenSettled();
  });

  const fetchJson = async (body: unknown, headers: Record<string, string>, auth?: AuthInfo) => {
    wire.client(body);
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { host: '127.0.0.1', ...headers },
      body: JSON.stringify(body),
    });
    return readReply(await handler.fetch(request, auth ? { auth } : undefined), wire);
  };

  test('2026-07-28: the tool sees the credentials and the headers of its request', async () => {
    const reply = await fetchJson(
      modernCall(1),
      { ...modernHeaders('tools/call', 'whoami'), 'x-trace-id': 'trace-1' },
      ALICE,
    );
    assert.equal(reply.status, 200);
    assert.deepEqual(seen(reply.json.result), {
      subject: 'alice',
      scopes: ['tools'],
      trace: 'trace-1',
      hasHeaders: true,
    });
  });

  test('without options nothing is made up: no credentials, the headers still there', async () => {
    const reply = await fetchJson(modernCall(2), modernHeaders('tools/call', 'whoami'));
    assert.deepEqual(seen(reply.json.result), { subject: null, scopes: null, trace: null, hasHeaders: true });
  });

  test('legacy session: each POST brings its own credentials and headers, from the principal that opened it', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1.0.0' },
      },
    };
    const opened = await fetchJson(init, { 'content-type': 'application/json', accept: ACCEPT_BOTH }, ALICE);
    const sessionId = opened.headers.get('mcp-session-id');
    assert.ok(sessionId);
    const headers = sessionHeaders(sessionId, '2025-11-25');
    assert.equal(
      (await fetchJson({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers, ALICE)).status,
      202,
    );
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const first = await fetchJson(call, { ...headers, 'x-trace-id': 'first' }, ALICE);
    assert.deepEqual(seen(first.messages[0].result), {
      subject: 'alice',
      scopes: ['tools'],
      trace: 'first',
      hasHeaders: true,
    });
    // Alice again, with another token and more scopes (after a step-up): what this POST carries.
    const upgraded = { ...ALICE, token: 'newer-token', scopes: ['tools', 'admin'] };
    const second = await fetchJson({ ...call, id: 2 }, { ...headers, 'x-trace-id': 'second' }, upgraded);
    assert.deepEqual(seen(second.messages[0].result), {
      subject: 'alice',
      scopes: ['tools', 'admin'],
      trace: 'second',
      hasHeaders: true,
    });
    // Someone else (or nobody) with Alice's session id: the session does not exist for them.
    const bob = { subject: 'bob', scopes: ['read'] };
    assert.equal((await fetchJson({ ...call, id: 3 }, headers, bob)).status, 404);
    assert.equal((await fetchJson({ ...call, id: 4 }, headers)).status, 404);
  });
});

describe('a Node middleware that sets req.auth', () => {
  let http: NodeHttpServer;
  let url: string;
  let wire: WireCheck;
  const handlers: HttpHandler[] = [];
  before(async () => {
    wire = await WireCheck.create();
    const direct = createHttpHandler(whoamiServer(), { endpoint: '/direct' });
    const inner = createHttpHandler(whoamiServer(), { endpoint: '/wrapped' });
    // Any other `{ fetch }` handler (here a wrapper) is served through the Request/Response path.
    const wrapped: HttpHandler = {
      fetch: (request, options) => inner.fetch(request, options),
      close: () => inner.close(),
    };
    handlers.push(direct, wrapped);
    const listeners = { '/direct': toNodeListener(direct), '/wrapped': toNodeListener(wrapped) };
    http = createServer((req: IncomingMessage & { auth?: AuthInfo }, res) => {
      // What a bearer-auth middleware does once it verified the token.
      if (req.headers.authorization === 'Bearer secret-token') req.auth = ALICE;
      listeners[req.url as keyof typeof listeners](req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const handler of handlers) await handler.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await wire.assertCleanWhenSettled();
  });

  for (const path of ['/direct', '/wrapped']) {
    test(`${path}: 2026-07-28 over loopback, with and without a verified token`, async () => {
      const headers = { ...modernHeaders('tools/call', 'whoami'), 'x-trace-id': `node${path}` };
      const signed = await post(
        `${url}${path}`,
        modernCall(1),
        { ...headers, authorization: 'Bearer secret-token' },
        wire,
      );
      assert.deepEqual(seen(signed.json.result), {
        subject: 'alice',
        scopes: ['tools'],
        trace: `node${path}`,
        hasHeaders: true,
      });
      const anonymous = await post(`${url}${path}`, modernCall(2), headers, wire);
      assert.equal(seen(anonymous.json.result).subject, null);
    });
  }

  test('legacy session over loopback: credentials of the POST carrying the call', async () => {
    const opened = await post(
      `${url}/direct`,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0' },
        },
      },
      { 'content-type': 'application/json', accept: ACCEPT_BOTH, authorization: 'Bearer secret-token' },
      wire,
    );
    const sessionId = opened.headers.get('mcp-session-id')!;
    const initialized = await post(
      `${url}/direct`,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { ...sessionHeaders(sessionId, '2025-06-18'), authorization: 'Bearer secret-token' },
      wire,
    );
    assert.equal(initialized.status, 202);
    const reply = await post(
      `${url}/direct`,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      {
        ...sessionHeaders(sessionId, '2025-06-18'),
        authorization: 'Bearer secret-token',
        'x-trace-id': 'legacy',
      },
      wire,
    );
    assert.deepEqual(seen(reply.messages[0].result), {
      subject: 'alice',
      scopes: ['tools'],
      trace: 'legacy',
      hasHeaders: true,
    });
  });
});

test('in memory (as over stdio) there are no request headers and no credentials', async () => {
  const wire = await openWire(whoamiServer());
  await wire.initialize('2025-11-25');
  const reply = await wire.request('tools/call', { name: 'whoami', arguments: {} });
  assert.deepEqual(seen(reply.result as never), {
    subject: null,
    scopes: null,
    trace: null,
    hasHeaders: false,
  });
  await wire.close();
});

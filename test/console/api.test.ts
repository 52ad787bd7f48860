/**
 * The console's API without a browser: who may use it (token, Host, Origin, content type), and what
 * it does over a real stdio server and a real HTTP server, in both eras, questions answered included.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createExampleServer } from '../../examples/server.js';
import { readGatewayHealth } from '../../src/console/gateway-health.js';
import { type RunningConsole, serveConsole } from '../../src/console.js';
import { createHttpHandler } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { api, EXAMPLE_SERVER, events, raw } from './helpers.js';

let consoleServer: RunningConsole;
let mcp: Awaited<ReturnType<typeof serve>>;

before(async () => {
  consoleServer = await serveConsole({ port: 0 });
  mcp = await serve(createHttpHandler(createExampleServer()), { port: 0 });
});
after(async () => {
  await consoleServer.close();
  await mcp.close();
});

test('the page and the API need the token: none, or a wrong one, gets 401 and says what to open', async () => {
  const { origin, token } = consoleServer;
  for (const path of ['/', '/assets/page.js', '/api/connections', '/api/events']) {
    const none = await raw(origin, path);
    assert.equal(none.status, 401, path);
    assert.match(none.body, /needs its token: open the full URL/);
    const wrong = await raw(origin, `${path}?token=${token.slice(0, -1)}x`);
    assert.equal(wrong.status, 401, path);
    assert.match(wrong.body, /Wrong token/);
  }
  const page = await raw(origin, `/?token=${token}`);
  assert.equal(page.status, 200);
  assert.match(page.body, new RegExp(`/assets/page\\.js\\?token=${token}`));
  assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  const script = await raw(origin, `/assets/page.js?token=${token}`);
  assert.equal(script.status, 200);
  assert.match(String(script.headers['content-type']), /^text\/javascript/);
});

test('another Host (DNS rebinding) or another Origin is refused even with the token', async () => {
  const { origin, token } = consoleServer;
  const port = new URL(origin).port;
  const rebound = await raw(origin, `/api/connections?token=${token}`, {
    headers: { host: `evil.example:${port}` },
  });
  assert.equal(rebound.status, 421);
  assert.match(rebound.body, /answers only to 127\.0\.0\.1:/);
  const otherPort = await raw(origin, `/api/connections?token=${token}`, {
    headers: { host: '127.0.0.1:1' },
  });
  assert.equal(otherPort.status, 421);
  const crossOrigin = await raw(origin, `/api/connections?token=${token}`, {
    method: 'POST',
    headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
    body: JSON.stringify({ kind: 'stdio', command: 'touch', args: ['/tmp/pwned'] }),
  });
  assert.equal(crossOrigin.status, 403);
  assert.match(crossOrigin.body, /pages on http:\/\/evil\.example are refused/);
  const crossSite = await raw(origin, `/api/connections?token=${token}`, {
    headers: { 'sec-fetch-site': 'cross-site' },
  });
  assert.equal(crossSite.status, 403);
  const sameOrigin = await raw(origin, `/api/connections?token=${token}`, { headers: { origin } });
  assert.equal(sameOrigin.status, 200);
  // Also localhost: the same console under its other loopback name.
  const localhost = await raw(origin, `/api/connections?token=${token}`, {
    headers: { host: `localhost:${port}` },
  });
  assert.equal(localhost.status, 200);
});

test('a POST must be application/json (a form or a beacon from another page cannot be)', async () => {
  const { origin, token } = consoleServer;
  const plain = await raw(origin, `/api/connections?token=${token}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify({ kind: 'stdio', command: process.execPath }),
  });
  assert.equal(plain.status, 400);
  assert.match(plain.body, /Send the request body as application\/json/);
  assert.deepEqual(JSON.parse((await raw(origin, `/api/connections?token=${token}`)).body).connections, []);
});

test('bad requests say what is wrong', async () => {
  const call = api(consoleServer.origin, consoleServer.token);
  const noKind = await call('POST', '/api/connections', { command: 'x' });
  assert.equal(noKind.status, 400);
  assert.match(noKind.body, /"kind" must be "stdio"/);
  const badUrl = await call('POST', '/api/connections', { kind: 'http', url: 'file:///etc/passwd' });
  assert.match(badUrl.body, /Only http: and https:/);
  const badProtocol = await call('POST', '/api/connections', {
    kind: 'http',
    url: 'http://127.0.0.1:1/mcp',
    protocol: '2023-01-01',
  });
  assert.match(badProtocol.body, /Unknown protocol "2023-01-01"/);
  const unknown = await call('POST', '/api/connections/nope/tools', {});
  assert.equal(unknown.status, 400);
  assert.match(unknown.body, /no connection "nope"/);
  const route = await call('GET', '/api/nothing');
  assert.equal(route.status, 404);
});

test('a command that cannot start is a failed connection with the reason, not a crash; check says why too', async () => {
  const call = api(consoleServer.origin, consoleServer.token);
  const failed = (
    await call('POST', '/api/connections', { kind: 'stdio', command: 'no-such-program-switchboard' })
  ).json();
  assert.equal(failed.state, 'failed');
  assert.match(failed.error, /no-such-program-switchboard/);
  // The checker may still be asked (it connects by itself) and says why it cannot check.
  const check = (await call('POST', `/api/connections/${failed.id}/check`, {})).json();
  assert.equal(check.ok, false);
  assert.match(check.error.message, /no-such-program-switchboard/);
  const badRevision = await call('POST', `/api/connections/${failed.id}/check`, {
    revisions: ['2023-01-01'],
  });
  assert.equal(badRevision.status, 400);
  assert.match(badRevision.body, /"revisions" must be a list of revisions/);
  assert.equal((await call('DELETE', `/api/connections/${failed.id}`)).status, 200);
});

for (const [transport, protocol] of [
  ['stdio', 'auto'],
  ['stdio', '2025-06-18'],
  ['http', 'auto'],
  ['http', '2025-11-25'],
] as const) {
  test(`over ${transport} (${protocol}): lists, calls with progress, answers an elicitation, traces both ways`, async () => {
    const call = api(consoleServer.origin, consoleServer.token);
    const stream = events(consoleServer.origin, consoleServer.token);
    try {
      const target =
        transport === 'stdio'
          ? { kind: 'stdio', command: process.execPath, args: [EXAMPLE_SERVER, '--stdio'] }
          : { kind: 'http', url: mcp.url };
      const summary = (await call('POST', '/api/connections', { ...target, protocol })).json();
      assert.equal(summary.state, 'open', summary.error);
      assert.equal(summary.serverInfo.name, 'switchboard-example');
      assert.equal(summary.era, protocol === 'auto' ? 'modern' : 'legacy');
      assert.equal(summary.transport, transport === 'stdio' ? 'stdio' : 'Streamable HTTP');
      assert.ok(summary.negotiationMs >= 0);
      const id = summary.id as string;

      const tools = (await call('POST', `/api/connections/${id}/tools`, {})).json();
      assert.ok(tools.result.tools.some((t: { name: string }) => t.name === 'book_table'));

      const counted = (
        await call('POST', `/api/connections/${id}/call`, {
          name: 'count',
          arguments: { n: 3 },
          callId: 'k1',
        })
      ).json();
      assert.deepEqual(counted.result.content, [{ type: 'text', text: 'Counted to 3.' }]);
      assert.equal((await stream.next('progress', (e) => e.callId === 'k1' && e.progress === 3)).total, 3);
      assert.equal((await stream.next('log', (e) => e.connectionId === id)).level, 'info');

      const booking = call('POST', `/api/connections/${id}/call`, {
        name: 'book_table',
        arguments: {},
        callId: 'b1',
      });
      const asked = await stream.next('question', (e) => e.connectionId === id);
      assert.equal(asked.question.kind, 'elicitation');
      assert.match(String((asked.question.params as { message: string }).message), /who is coming/);
      const answered = await call('POST', `/api/connections/${id}/answer`, {
        questionId: asked.question.id,
        result: { action: 'accept', content: { name: 'Ada', guests: 3 } },
      });
      assert.equal(answered.status, 200, answered.body);
      const booked = (await booking).json();
      assert.deepEqual(booked.result.content, [
        { type: 'text', text: 'Booked a table for 3 at Chez MCP under Ada.' },
      ]);
      await stream.next('question-closed', (e) => e.questionId === asked.question.id);

      const failed = (
        await call('POST', `/api/connections/${id}/read`, { uri: 'notes://nothing-here' })
      ).json();
      assert.equal(failed.ok, false);
      assert.ok(failed.error.message.length > 0);

      const sent = await stream.next(
        'trace',
        (e) =>
          e.connectionId === id &&
          e.direction === 'out' &&
          (e.message as { method?: string }).method === 'tools/call',
      );
      assert.equal((sent.message as { params: { name: string } }).params.name, 'count');
      await stream.next(
        'trace',
        (e) => e.connectionId === id && e.direction === 'in' && 'result' in (e.message as object),
      );

      assert.equal((await call('DELETE', `/api/connections/${id}`)).status, 200);
      await stream.next('removed', (e) => e.connectionId === id);
    } finally {
      stream.close();
    }
  });
}

test('a long call is cancelled from the API: the server is told, the call ends as aborted', async () => {
  const call = api(consoleServer.origin, consoleServer.token);
  const stream = events(consoleServer.origin, consoleServer.token);
  try {
    const { id } = (
      await call('POST', '/api/connections', {
        kind: 'stdio',
        command: process.execPath,
        args: [EXAMPLE_SERVER, '--stdio'],
      })
    ).json();
    const waiting = call('POST', `/api/connections/${id}/call`, {
      name: 'wait',
      arguments: { seconds: 300 },
      callId: 'w1',
    });
    await stream.next('progress', (e) => e.callId === 'w1');
    assert.deepEqual((await call('POST', `/api/connections/${id}/cancel`, { callId: 'w1' })).json(), {
      ok: true,
      result: { cancelled: true },
    });
    const ended = (await waiting).json();
    assert.equal(ended.ok, false);
    assert.equal(ended.error.code, 'ABORTED');
    await stream.next(
      'trace',
      (e) => e.direction === 'out' && (e.message as { method?: string }).method === 'notifications/cancelled',
    );
    await call('DELETE', `/api/connections/${id}`);
  } finally {
    stream.close();
  }
});

test('gateway health: only a gateway connection has it; a server that is not one says why', async () => {
  const call = api(consoleServer.origin, consoleServer.token);
  const summary = (await call('POST', '/api/connections', { kind: 'http', url: mcp.url })).json();
  assert.equal(summary.gateway, undefined);
  const refused = await call('POST', `/api/connections/${summary.id}/gateway`, {});
  assert.equal(refused.status, 400);
  assert.match(refused.body, /is not a switchboard gateway/);
  // The example server has no /readyz: the view names the URL and what went wrong, nothing throws.
  const view = await readGatewayHealth(mcp.url);
  assert.equal(view.healthUrl, new URL('/readyz', mcp.url).href);
  assert.deepEqual(view.upstreams, []);
  assert.match(view.error ?? '', /\/readyz/);
  await call('DELETE', `/api/connections/${summary.id}`);
});

/**
 * The CLI against live HTTP servers: `--header` and `--bearer` on every request, the transport and
 * era named by `--verbose`, a `/sse` URL served over HTTP+SSE, and a legacy session ended with DELETE
 * when the command is done.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Server } from '../../src/extensions/server.js';
import { toNodeListener } from '../../src/node/listener.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { CLI_ENV, runCli } from './run-cli.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

describe('switchboard against an HTTP server', () => {
  const seen: Seen[] = [];
  let origin = '';
  let close: () => Promise<void>;
  before(async () => {
    const server = new Server({ name: 'http-fixture', version: '2.0.0' });
    const legacyOnly = new Server(
      { name: 'legacy-fixture', version: '1.0.0' },
      { revisions: LEGACY_REVISIONS },
    );
    legacyOnly.registerTool('greet', { description: 'Greets.' }, () => 'hello from the past');
    const legacyMcp = toNodeListener(createHttpHandler(legacyOnly, { endpoint: '/legacy' }));
    server.registerTool('greet', { description: 'Greets.' }, () => 'hello over http');
    const handler = createHttpHandler(server);
    const mcp = toNodeListener(handler);
    const http = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      // What an authentication layer in front of the handler does.
      if (req.headers.authorization !== undefined && req.headers.authorization !== 'Bearer s3cret') {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad token"}');
        return;
      }
      if (req.url?.startsWith('/legacy')) legacyMcp(req, res);
      else mcp(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    close = async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    };
  });
  after(() => close());

  test('--header and --bearer go with every request; --verbose names Streamable HTTP and the era', async () => {
    seen.length = 0;
    const run = await runCli([
      'call',
      `${origin}/mcp`,
      'greet',
      '--header',
      'X-Team: blue',
      '--header',
      'X-Trace: 42',
      '--bearer',
      's3cret',
      '--verbose',
      // An explicit --timeout is the probe's too: a busy machine may answer server/discover after 5 s.
      '--timeout',
      '30000',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'hello over http\n');
    assert.match(
      run.stderr,
      /connected to http-fixture 2\.0\.0 over Streamable HTTP, protocol 2026-07-28 \(modern era\)/,
    );
    assert.ok(seen.length >= 2, `${seen.length} requests`);
    for (const request of seen) {
      assert.equal(request.headers['x-team'], 'blue');
      assert.equal(request.headers['x-trace'], '42');
      assert.equal(request.headers.authorization, 'Bearer s3cret');
    }
    const refused = await runCli(['tools', `${origin}/mcp`, '--bearer', 'wrong']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /401/);
  });

  test('a legacy session is ended with DELETE when the command is done', async () => {
    seen.length = 0;
    const run = await runCli(['tools', `${origin}/mcp`, '--legacy', '--verbose']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /over Streamable HTTP, protocol 2025-11-25 \(legacy era\)/);
    const sessionId = seen.map((r) => r.headers['mcp-session-id']).find((id) => id !== undefined);
    assert.ok(sessionId, 'a session was opened');
    const deletes = seen.filter((r) => r.method === 'DELETE');
    assert.equal(deletes.length, 1);
    assert.equal(deletes[0]!.headers['mcp-session-id'], sessionId);
    assert.equal(seen.at(-1)!.method, 'DELETE', 'the session ended last');
  });

  test('what an endpoint speaks is remembered between runs: a legacy one is probed once', async () => {
    const env = { ...CLI_ENV, XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'switchboard-era-')) };
    const probes = () => seen.filter((r) => r.headers['mcp-method'] === 'server/discover').length;
    // Only a refused probe teaches the era: an explicit --timeout is the probe's too, so a busy
    // machine cannot turn the refusal into a timeout.
    const patient = ['--timeout', '60000'];
    seen.length = 0;
    const first = await runCli(['call', `${origin}/legacy`, 'greet', ...patient], { env });
    assert.equal(first.stdout, 'hello from the past\n', first.stderr);
    assert.equal(probes(), 1);
    const second = await runCli(['call', `${origin}/legacy`, 'greet', '--verbose', ...patient], { env });
    assert.equal(second.stdout, 'hello from the past\n', second.stderr);
    assert.match(second.stderr, /over Streamable HTTP, protocol 2025-11-25 \(legacy era\)/);
    assert.equal(probes(), 1, 'the second run did not probe');
  });

  test('a /sse URL is served over HTTP+SSE', async () => {
    seen.length = 0;
    const run = await runCli(['call', `${origin}/sse`, 'greet', '--verbose']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'hello over http\n');
    assert.match(run.stderr, /over HTTP\+SSE, protocol 20[0-9-]+ \(legacy era\)/);
    assert.ok(seen.some((r) => r.method === 'GET' && r.url === '/sse'));
    assert.ok(seen.some((r) => r.method === 'POST' && r.url.startsWith('/messages?sessionId=')));
  });
});

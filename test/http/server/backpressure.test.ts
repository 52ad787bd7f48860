/**
 * Outbound SSE streams are bounded (issue 15, finding 1): a client that stops reading its event
 * stream while it keeps POSTing gets 503 instead of growing the server, and a stream nobody reads is
 * cut past `maxStreamBufferBytes`, with a line in the log either way.
 */
import assert from 'node:assert/strict';
import { Agent, get, type IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { Server } from '../../../src/extensions/server.js';
import { jsonSchema } from '../../../src/schema/index.js';
import { createHttpHandler } from '../../../src/transports/http/server/handler.js';
import { gate } from '../../helpers/wait.js';
import { modernHeaders, modernRequest, rawRequest, startServer } from './helpers.js';

/** A server whose `big` tool answers `size` characters, and whose `stream` tool streams until aborted. */
function bigServer(onAbort?: () => void): Server {
  const server = new Server({ name: 'backpressure', version: '1.0.0' });
  server.registerTool(
    'big',
    {
      description: 'A large answer',
      inputSchema: jsonSchema({ type: 'object', properties: { size: { type: 'number' } } }),
    },
    ({ size }) => 'x'.repeat(size as number),
  );
  server.registerTool(
    'stream',
    { description: 'Streams progress until the client goes away' },
    async (_a, ctx) => {
      const big = 'p'.repeat(64 * 1024);
      for (let i = 0; i < 10_000 && !ctx.signal.aborted; i++) {
        ctx.progress(i, undefined, big);
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (ctx.signal.aborted) onAbort?.();
      return 'done';
    },
  );
  return server;
}

/** Opens GET /sse without reading past the endpoint event; resolves with the messages URL. */
async function openUnreadSse(
  port: number,
  agent: Agent,
): Promise<{ res: IncomingMessage; postPath: string }> {
  const res: IncomingMessage = await new Promise((resolve, reject) => {
    get(
      { host: '127.0.0.1', port, path: '/sse', headers: { accept: 'text/event-stream' }, agent },
      resolve,
    ).on('error', reject);
  });
  // Not `for await`: leaving that loop would destroy the response.
  const postPath = await new Promise<string>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += String(chunk);
      const match = /data: (\/messages\?sessionId=\w+)/.exec(text);
      if (!match) return;
      res.off('data', onData);
      res.pause();
      resolve(match[1]!);
    };
    res.on('data', onData);
    res.once('end', () => reject(new Error('no endpoint event')));
  });
  return { res, postPath };
}

const init = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'slow', version: '1' } },
};

describe('SSE backpressure', () => {
  test('HTTP+SSE: POSTs get 503 while the client does not read /sse, and 202 again once it does', async () => {
    const logged: Error[] = [];
    const server = await startServer(bigServer(), { onerror: (e) => logged.push(e) });
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const { res, postPath } = await openUnreadSse(server.port, agent);
      const postMessage = (body: unknown) =>
        rawRequest(server.port, {
          path: postPath,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await postMessage(init)).status, 202);
      // Each call answers 256 KiB on the stream nobody reads; 400 calls would be 100 MiB.
      let accepted = 0;
      let refused: Awaited<ReturnType<typeof postMessage>> | undefined;
      for (let i = 1; i <= 400 && !refused; i++) {
        const reply = await postMessage({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'big', arguments: { size: 256 * 1024 } },
        });
        if (reply.status === 202) accepted++;
        else refused = reply;
      }
      assert.ok(refused, `all ${accepted} POSTs were taken in while nobody read the stream`);
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(JSON.parse(refused.body).error.message, /not reading its event stream.*Read the stream/);
      assert.equal(logged.length, 1);
      assert.match(logged[0]!.message, /HTTP\+SSE session \w+: the client is not reading its event stream/);

      // Reading the stream delivers every accepted answer; then POSTs are taken in again.
      let answers = 0;
      await new Promise<void>((resolve) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          const events = text.split('\n\n');
          text = events.pop()!;
          answers += events.filter((e) => e.includes('"result"') && !e.includes('"protocolVersion"')).length;
          if (answers === accepted) resolve();
        });
        res.resume();
      });
      assert.equal(answers, accepted);
      assert.equal((await postMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
      res.destroy();
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  test('HTTP+SSE: a stream past maxStreamBufferBytes is cut and its session ends', async () => {
    const logged: Error[] = [];
    const server = await startServer(bigServer(), {
      onerror: (e) => logged.push(e),
      maxStreamBufferBytes: 512 * 1024,
    });
    const agent = new Agent({ keepAlive: true });
    try {
      const { res, postPath } = await openUnreadSse(server.port, agent);
      res.on('error', () => {}); // the cut
      const cut = new Promise((resolve) => res.once('close', resolve));
      const postMessage = (body: unknown) =>
        rawRequest(server.port, {
          path: postPath,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      await postMessage(init);
      // One 16 MiB answer: more than the kernel's socket buffers take, so most of it waits in the server.
      await postMessage({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'big', arguments: { size: 16 * 1024 * 1024 } },
      });
      await cut;
      assert.ok(
        logged.some((e) => /not reading its event stream .*maxStreamBufferBytes.*cut/.test(e.message)),
        logged.map((e) => e.message).join('\n'),
      );
      assert.equal((await postMessage({ jsonrpc: '2.0', id: 2, method: 'ping' })).status, 404);
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  test('2026-07-28 (fetch adapter): a response stream nobody reads is cut and the handler aborted', async () => {
    const aborted = gate();
    const logged: Error[] = [];
    const handler = createHttpHandler(bigServer(aborted.open), {
      onerror: (e) => logged.push(e),
      maxStreamBufferBytes: 1024 * 1024,
    });
    const response = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: modernHeaders('tools/call', 'stream'),
        body: JSON.stringify(
          modernRequest(1, 'tools/call', { name: 'stream', arguments: {}, _meta: { progressToken: 't' } }),
        ),
      }),
    );
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    // Nobody reads the body: the handler's progress piles up until the stream is cut.
    await aborted.wait;
    assert.ok(logged.some((e) => /maxStreamBufferBytes/.test(e.message)));
    await assert.rejects(response.text(), /did not read/);
    await handler.close();
  });
});

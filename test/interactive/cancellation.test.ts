/**
 * Cancellation: the client's AbortSignal reaches the handler's `ctx.signal`, the handler stops, and
 * nothing more is sent for the request. Stale and unknown cancellations and responses are ignored.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Channel, ChannelSink } from '../../src/engine/channel.js';
import { Peer } from '../../src/engine/peer.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { LEGACY_REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { envelope, type RawSession, rawSession } from '../helpers/raw-session.js';

const isAborted = (error: unknown) => error instanceof SwitchboardError && error.code === 'ABORTED';

/** A tool that works until its signal aborts, and reports how it ended. */
function loopingServer() {
  const server = new Server({ name: 'loop', version: '1.0.0' });
  let exited!: (how: string) => void;
  const ended = new Promise<string>((resolve) => {
    exited = resolve;
  });
  let iterations = 0;
  server.registerTool('forever', {}, async (_args, ctx) => {
    ctx.progress(1);
    while (!ctx.signal.aborted) {
      iterations++;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    exited(`aborted after ${iterations > 0 ? 'some' : 'no'} iterations: ${String(ctx.signal.reason)}`);
    return 'this result is never sent';
  });
  return { server, ended };
}

async function startSession(
  server: Server,
  revision: Revision,
): Promise<{ raw: RawSession; params: object }> {
  const raw = await rawSession(server);
  if (revision === '2026-07-28') return { raw, params: { _meta: envelope() } };
  await raw.peer.request('initialize', {
    protocolVersion: revision,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  });
  raw.peer.notify('notifications/initialized');
  return { raw, params: {} };
}

for (const revision of ['2026-07-28', ...LEGACY_REVISIONS] as Revision[]) {
  describe(`cancellation on ${revision}`, () => {
    test('aborting a call stops the handler, and no response is sent for it', async () => {
      const { server, ended } = loopingServer();
      const { raw, params } = await startSession(server, revision);
      const controller = new AbortController();
      let token: unknown;
      const call = raw.peer.request(
        'tools/call',
        { name: 'forever', ...params },
        {
          signal: controller.signal,
          onprogress: () => controller.abort('user pressed stop'),
        },
      );
      await assert.rejects(call, isAborted);
      assert.match(await ended, /^aborted after some iterations: user pressed stop$/);
      // Another request after it: the server is fine, and answered only that one.
      await raw.peer.request('tools/list', { ...params });
      const progress = raw.fromServer.find(
        (f) => (f as { method?: string }).method === 'notifications/progress',
      );
      token = (progress as { params: { progressToken: unknown } }).params.progressToken;
      const responses = raw.fromServer.filter(
        (f) => 'id' in (f as object) && (f as { id: unknown }).id === token,
      );
      assert.deepEqual(responses, [], 'no result or error for the cancelled request');
      raw.assertClean();
      await raw.close();
    });

    test('cancellations of unknown or finished requests are ignored', async () => {
      const { server } = loopingServer();
      const { raw, params } = await startSession(server, revision);
      raw.peer.notify('notifications/cancelled', { requestId: 4242, reason: 'never existed' });
      raw.peer.notify('notifications/cancelled', { requestId: 1, reason: 'already answered' });
      raw.peer.notify('notifications/cancelled', { reason: 'no id' });
      const list = await raw.peer.request('tools/list', { ...params });
      assert.ok(Array.isArray(list.tools));
      raw.assertClean();
      await raw.close();
    });
  });
}

describe('cancellation of input requests', () => {
  test('legacy: cancelling the call cancels the elicitation the server sent for it', async () => {
    const server = new Server({ name: 'ask', version: '1.0.0' });
    let toolOutcome!: (how: string) => void;
    const toolEnded = new Promise<string>((resolve) => {
      toolOutcome = resolve;
    });
    server.registerTool('ask', {}, async (_args, ctx) => {
      try {
        await ctx.elicit({ message: 'Wait for me', requestedSchema: { type: 'object', properties: {} } });
        toolOutcome('answered');
      } catch (error) {
        toolOutcome(`${(error as SwitchboardError).code}`);
      }
      return 'never sent';
    });
    const controller = new AbortController();
    let handlerSawAbort!: (reason: unknown) => void;
    const handlerAborted = new Promise((resolve) => {
      handlerSawAbort = resolve;
    });
    const pair = await connectPair(server, { version: { pin: '2025-11-25' } }, (client) =>
      client.onElicitation(
        (_params, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              handlerSawAbort(ctx.signal.reason);
              reject(new Error('dialog closed'));
            });
            controller.abort('changed my mind');
          }),
      ),
    );
    await assert.rejects(pair.client.callTool('ask', {}, { signal: controller.signal }), isAborted);
    assert.equal(await toolEnded, 'ABORTED');
    assert.ok(await handlerAborted);
    pair.assertClean();
    await pair.close();
  });

  test('modern: aborting while the client gathers input abandons the call', async () => {
    const server = new Server({ name: 'ask', version: '1.0.0' });
    let runs = 0;
    server.registerTool('ask', {}, async (_args, ctx) => {
      runs++;
      await ctx.elicit({ message: 'Wait for me', requestedSchema: { type: 'object', properties: {} } });
      return 'done';
    });
    const controller = new AbortController();
    let sawAbort = false;
    const pair = await connectPair(server, { version: { pin: '2026-07-28' } }, (client) =>
      client.onElicitation((_params, ctx) => {
        controller.abort('closed the dialog');
        sawAbort = ctx.signal.aborted;
        return { action: 'accept', content: {} };
      }),
    );
    await assert.rejects(pair.client.callTool('ask', {}, { signal: controller.signal }), isAborted);
    assert.equal(sawAbort, true);
    assert.equal(runs, 1, 'the retry was never sent');
    pair.assertClean();
    await pair.close();
  });
});

describe('stale traffic', () => {
  /** The far end of a client's channel, driven by hand. */
  function manualServer(): {
    channel: Channel;
    frames: Record<string, unknown>[];
    send(frame: object): void;
  } {
    const [clientEnd, serverEnd] = createLinkedChannels();
    const frames: Record<string, unknown>[] = [];
    const sink: ChannelSink = {
      message: (value) => frames.push(value as Record<string, unknown>),
      malformed: () => undefined,
      closed: () => undefined,
    };
    serverEnd.start(sink);
    return { channel: clientEnd, frames, send: (frame) => serverEnd.send(JSON.stringify(frame)) };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  test('a response after cancellation, or for an unknown id, is dropped quietly', async () => {
    const far = manualServer();
    const errors: Error[] = [];
    const peer = new Peer(far.channel, {
      request: () => ({}),
      notification: () => undefined,
      error: (e) => errors.push(e),
    });
    peer.start();
    const controller = new AbortController();
    const call = peer.request('tools/call', { name: 'x' }, { signal: controller.signal });
    await tick();
    controller.abort('stop');
    await assert.rejects(call, isAborted);
    await tick();
    assert.deepEqual(far.frames.at(-1), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'stop' },
    });
    far.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    far.send({ jsonrpc: '2.0', id: 999, error: { code: -32603, message: 'who?' } });
    await tick();
    assert.deepEqual(errors, []);
    const next = peer.request('ping', undefined);
    await tick();
    far.send({ jsonrpc: '2.0', id: 2, result: {} });
    assert.deepEqual(await next, {});
    await peer.close();
  });

  test('initialize is never cancelled, even when it times out', async () => {
    const far = manualServer();
    const client = new Client({ name: 'c', version: '1' }, { version: 'legacy', timeoutMs: 30 });
    await assert.rejects(client.connect(far.channel), (error: unknown) => {
      assert.ok(error instanceof SwitchboardError);
      assert.equal(error.code, 'TIMEOUT');
      return true;
    });
    assert.deepEqual(
      far.frames.map((f) => f.method),
      ['initialize'],
    );
  });
});

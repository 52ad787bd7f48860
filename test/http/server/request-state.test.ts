/**
 * `requestState` in the deployment it exists for: several stateless HTTP nodes behind one endpoint,
 * sharing a key and a nonce store. A state sealed on one node opens on another; a replay is refused
 * on every node; any byte changed in it is refused (property test); and the nonce store, full, never
 * forgets a nonce whose state is still valid.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Server } from '../../../src/extensions/server.js';
import { MemoryRequestStateStore } from '../../../src/server/request-state.js';
import { createHttpHandler, type HttpHandler } from '../../../src/transports/http/server/handler.js';
import { base64UrlToBytes, bytesToBase64Url } from '../../../src/util/base64.js';
import { ENVELOPE, modernHeaders } from './helpers.js';

const CAPS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
const CONFIRM = { '0': { action: 'accept', content: { name: 'Ada' } } };

/** One node: a server with the shared key and store, and a `pay` tool that counts its payments. */
function node(store: MemoryRequestStateStore, payments: number[], key = 'shared-node-key'): HttpHandler {
  const server = new Server(
    { name: 'node', version: '1' },
    { requestStateKey: key, requestStateStore: store },
  );
  server.registerTool(
    'pay',
    { inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } },
    async (args, ctx) => {
      const who = await ctx.elicit({
        message: 'Confirm the payee',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      payments.push(args.amount as number);
      return `paid ${args.amount} to ${who.content?.name}`;
    },
  );
  return createHttpHandler(server);
}

async function pay(handler: HttpHandler, id: number, extra: Record<string, unknown> = {}) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'pay', arguments: { amount: 5 }, ...extra, _meta: { ...ENVELOPE, ...CAPS } },
  };
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: modernHeaders('tools/call', 'pay'),
      body: JSON.stringify(body),
    }),
  );
  return (await response.json()) as {
    result?: Record<string, any>;
    error?: { code: number; message: string };
  };
}

describe('requestState across nodes', () => {
  test('sealed on one node, opened on another; a replay is refused on both', async () => {
    const store = new MemoryRequestStateStore();
    const payments: number[] = [];
    const [a, b] = [node(store, payments), node(store, payments)];
    const first = await pay(a, 1);
    assert.equal(first.result?.resultType, 'input_required');
    const state = first.result!.requestState as string;
    const done = await pay(b, 2, { inputResponses: CONFIRM, requestState: state });
    assert.equal(done.result?.content?.[0]?.text, 'paid 5 to Ada');
    for (const [handler, id] of [
      [a, 3],
      [b, 4],
    ] as const) {
      const replay = await pay(handler, id, { inputResponses: CONFIRM, requestState: state });
      assert.equal(replay.error?.code, -32602);
      assert.match(replay.error!.message, /already used/);
    }
    assert.deepEqual(payments, [5]);
    // A node with another key cannot open it at all.
    const stranger = await pay(node(new MemoryRequestStateStore(), payments, 'other-key'), 5, {
      inputResponses: CONFIRM,
      requestState: (await pay(a, 6)).result!.requestState,
    });
    assert.match(stranger.error!.message, /Invalid requestState/);
    await Promise.all([a.close(), b.close()]);
  });

  test('any byte of a state changed is refused, on either node (property)', async () => {
    const store = new MemoryRequestStateStore();
    const payments: number[] = [];
    const [a, b] = [node(store, payments), node(store, payments)];
    const state = (await pay(a, 1)).result!.requestState as string;
    const sealed = base64UrlToBytes(state.slice('sb1.'.length));
    let id = 10;
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: sealed.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        async (at, mask, onB) => {
          const changed = sealed.slice();
          changed[at]! ^= mask;
          const forged = `sb1.${bytesToBase64Url(changed)}`;
          const reply = await pay(onB ? b : a, id++, { inputResponses: CONFIRM, requestState: forged });
          assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
          assert.match(reply.error!.message, /Invalid requestState/);
        },
      ),
      { numRuns: 150 },
    );
    assert.deepEqual(payments, [], 'no forged state ran the payment');
    // The untouched state still works: every refusal above left it unused.
    const done = await pay(b, 2, { inputResponses: CONFIRM, requestState: state });
    assert.equal(done.result?.content?.[0]?.text, 'paid 5 to Ada');
    await Promise.all([a.close(), b.close()]);
  });

  test('a shared nonce store burnt full refuses new retries instead of reopening a used state', async () => {
    const store = new MemoryRequestStateStore(4);
    const payments: number[] = [];
    const [a, b] = [node(store, payments), node(store, payments)];
    const state = (await pay(a, 1)).result!.requestState as string;
    await pay(b, 2, { inputResponses: CONFIRM, requestState: state });
    let refused = 0;
    for (let i = 0; i < 6; i++) {
      const handler = i % 2 === 0 ? a : b;
      const other = (await pay(handler, 100 + i)).result!.requestState;
      const reply = await pay(handler === a ? b : a, 200 + i, {
        inputResponses: CONFIRM,
        requestState: other,
      });
      if (reply.error) {
        assert.equal(reply.error.code, -32603);
        assert.match(reply.error.message, /try again later/);
        refused++;
      }
    }
    assert.equal(refused, 3, 'three nonces fit beside the first; the other three retries were refused');
    for (const handler of [a, b]) {
      const replay = await pay(handler, 300, { inputResponses: CONFIRM, requestState: state });
      assert.ok(replay.error, 'the replay was refused');
    }
    assert.equal(payments.length, 4);
    await Promise.all([a.close(), b.close()]);
  });
});

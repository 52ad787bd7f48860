/**
 * 2026-07-28 multi-round-trip requests: replay by call order, the client's retry loop, and the
 * sealed requestState (tampering, expiry, foreign key, replay, wrong request, wrong caller).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import type { CreateMessageResult } from '../../src/protocol/types.js';
import { MemoryRequestStateStore, RequestStateSealer } from '../../src/server/request-state.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { rawSession } from '../helpers/raw-session.js';

const MODERN = { version: { pin: '2026-07-28' as const } };
const textOf = (result: { content: { type: string }[] }) =>
  (result.content[0] as { type: 'text'; text: string }).text;
const NAME_FORM = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
} as const;
const ALL_CAPS = { elicitation: {}, sampling: {}, roots: {} };

function invalidParamsMatching(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.match(error.message, pattern);
    return true;
  };
}

describe('MRTR replay', () => {
  test('sequential inputs: one round each, the handler re-runs from the top', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    let sideEffects = 0;
    server.registerTool('onboard', {}, async (_args, ctx) => {
      sideEffects++; // runs again on every round: the replay rule
      const who = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
      const poem = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: `poem for ${who.content?.name}` } }],
        maxTokens: 50,
      });
      const roots = await ctx.listRoots();
      return `${who.content?.name} | ${(poem.content as { text: string }).text} | ${roots.map((r) => r.uri).join(',')}`;
    });
    const calls: string[] = [];
    const pair = await connectPair(server, MODERN, (client) => {
      client.onElicitation((_params, ctx) => {
        calls.push(`elicit ${ctx.key} ${ctx.request?.method}`);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      client.onSampling((params): CreateMessageResult => {
        calls.push(`sample ${(params.messages[0]!.content as { text: string }).text}`);
        return { role: 'assistant', content: { type: 'text', text: 'roses' }, model: 'm' };
      });
      client.setRoots([{ uri: 'file:///work', name: 'work' }]);
    });
    const result = await pair.client.callTool('onboard', {});
    assert.equal(textOf(result), 'Ada | roses | file:///work');
    assert.deepEqual(calls, ['elicit 0 tools/call', 'sample poem for Ada']);
    assert.equal(sideEffects, 4);
    pair.assertClean();
    await pair.close();
  });

  test('inputs started together are asked together, in call order', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    let runs = 0;
    server.registerTool('pair', {}, async (_args, ctx) => {
      runs++;
      const [a, b] = await Promise.all([
        ctx.elicit({ message: 'first', requestedSchema: NAME_FORM }),
        ctx.elicit({ message: 'second', requestedSchema: NAME_FORM }),
      ]);
      return `${a.content?.name}+${b.content?.name}`;
    });
    const asked: string[] = [];
    const pair = await connectPair(server, MODERN, (client) =>
      client.onElicitation((params, ctx) => {
        asked.push(`${ctx.key}:${params.message}`);
        return { action: 'accept', content: { name: params.message.toUpperCase() } };
      }),
    );
    assert.equal(textOf(await pair.client.callTool('pair', {})), 'FIRST+SECOND');
    assert.deepEqual(asked, ['0:first', '1:second']);
    assert.equal(runs, 2);
    pair.assertClean();
    await pair.close();
  });

  test('a call may name its key; a key taken twice in one run fails the call', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    server.registerTool('named', {}, async (_args, ctx) => {
      const [who, roots] = await Promise.all([
        ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM }, { key: 'user_name' }),
        ctx.listRoots(), // unnamed: its position, "0"
      ]);
      return `${who.content?.name} ${roots.length}`;
    });
    server.registerTool('twice', {}, async (_args, ctx) => {
      await ctx.listRoots({ key: 'k' });
      await ctx.listRoots({ key: 'k' });
      return 'unreachable';
    });
    const raw = await rawSession(server);
    const first = await raw.modern('tools/call', { name: 'named', arguments: {} }, ALL_CAPS);
    assert.deepEqual(Object.keys(first.inputRequests as object).sort(), ['0', 'user_name']);

    const keys: string[] = [];
    const pair = await connectPair(server, MODERN, (client) => {
      client.onElicitation((_params, ctx) => {
        keys.push(ctx.key!);
        return { action: 'accept', content: { name: 'Ada' } };
      });
      client.setRoots([{ uri: 'file:///work', name: 'work' }]);
    });
    assert.equal(textOf(await pair.client.callTool('named', {})), 'Ada 1');
    assert.deepEqual(keys, ['user_name']);
    const twice = await pair.client.callTool('twice', {});
    assert.equal(twice.isError, true);
    assert.match(textOf(twice), /Input key "k" is used twice/);
    pair.assertClean();
    await pair.close();
  });

  test('a handler that catches the input error still answers input_required', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    server.registerTool('stubborn', {}, async (_args, ctx) => {
      try {
        const answer = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
        return `hello ${answer.content?.name}`;
      } catch {
        return 'caught it';
      }
    });
    const pair = await connectPair(server, MODERN, (client) =>
      client.onElicitation(() => ({ action: 'accept', content: { name: 'Bo' } })),
    );
    assert.equal(textOf(await pair.client.callTool('stubborn', {})), 'hello Bo');
    pair.assertClean();
    await pair.close();
  });

  test('a changed question is asked again; the client gives up after maxInputRounds', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    let runs = 0;
    server.registerTool('fickle', {}, async (_args, ctx) => {
      runs++;
      // Not deterministic: the question differs on every run, so no answer ever matches it.
      await ctx.elicit({ message: `question ${runs}`, requestedSchema: NAME_FORM });
      return 'never';
    });
    const pair = await connectPair(server, { ...MODERN, maxInputRounds: 3 }, (client) =>
      client.onElicitation(() => ({ action: 'accept', content: { name: 'x' } })),
    );
    await assert.rejects(pair.client.callTool('fickle', {}), (error: unknown) => {
      assert.ok(error instanceof SwitchboardError);
      assert.equal(error.code, 'INPUT_ROUNDS_EXCEEDED');
      assert.match(error.message, /after 3 rounds/);
      return true;
    });
    assert.equal(runs, 4);
    pair.assertClean();
    await pair.close();
  });

  test('concurrent requests keep their own questions and answers', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    server.registerTool(
      'echo',
      { inputSchema: { type: 'object', properties: { tag: { type: 'string' } } } },
      async (args, ctx) => {
        const answer = await ctx.elicit({ message: String(args.tag), requestedSchema: NAME_FORM });
        return `${args.tag}=${answer.content?.name}`;
      },
    );
    const pair = await connectPair(server, MODERN, (client) =>
      client.onElicitation(async (params) => {
        await new Promise((resolve) => setTimeout(resolve, params.message === 'a' ? 20 : 1));
        return { action: 'accept', content: { name: `answer-${params.message}` } };
      }),
    );
    const results = await Promise.all(['a', 'b', 'c'].map((tag) => pair.client.callTool('echo', { tag })));
    assert.deepEqual(results.map(textOf), ['a=answer-a', 'b=answer-b', 'c=answer-c']);
    pair.assertClean();
    await pair.close();
  });

  test('prompts/get and resources/read may ask too; their retried results are never cached', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    let reads = 0;
    server.registerPrompt('greet', {}, async (_args, ctx) => {
      const who = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
      return `Hello ${who.content?.name}`;
    });
    server.registerResource('secret', 'mem://secret', { cache: { ttlMs: 60_000 } }, async (_uri, ctx) => {
      reads++;
      const who = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
      return `for ${who.content?.name}`;
    });
    const pair = await connectPair(server, MODERN, (client) =>
      client.onElicitation(() => ({ action: 'accept', content: { name: 'Cy' } })),
    );
    const prompt = await pair.client.getPrompt('greet');
    assert.deepEqual(prompt.messages[0]!.content, { type: 'text', text: 'Hello Cy' });
    assert.equal((await pair.client.readResource('mem://secret')).contents[0]!.uri, 'mem://secret');
    await pair.client.readResource('mem://secret');
    assert.equal(reads, 4);
    pair.assertClean();
    await pair.close();
  });

  test('other requests cannot ask for input on 2026-07-28', async () => {
    const server = new Server({ name: 'mrtr', version: '1' });
    server.registerResourceTemplate(
      'items',
      'mem://items/{id}',
      {
        list: async (ctx) => {
          await ctx.elicit({ message: 'which?', requestedSchema: NAME_FORM });
          return [];
        },
      },
      () => 'x',
    );
    const pair = await connectPair(server, MODERN, (client) =>
      client.onElicitation(() => ({ action: 'cancel' })),
    );
    await assert.rejects(
      pair.client.listResources(),
      /only tools\/call, prompts\/get and resources\/read may answer input_required/,
    );
    pair.assertClean();
    await pair.close();
  });
});

describe('the client retry', () => {
  test('a new id, the original params plus inputResponses, and no invented requestState', async () => {
    const [clientEnd, serverEnd] = createLinkedChannels();
    const frames: Record<string, any>[] = [];
    const send = (frame: object) => serverEnd.send(JSON.stringify(frame));
    serverEnd.start({
      message: (value) => {
        const frame = value as Record<string, any>;
        frames.push(frame);
        if (frame.method === 'server/discover') {
          send({
            jsonrpc: '2.0',
            id: frame.id,
            result: {
              resultType: 'complete',
              supportedVersions: ['2026-07-28'],
              capabilities: { tools: {} },
              ttlMs: 0,
              cacheScope: 'public',
            },
          });
        } else if (frame.params?.inputResponses === undefined) {
          send({
            jsonrpc: '2.0',
            id: frame.id,
            result: { resultType: 'input_required', inputRequests: { q: { method: 'roots/list' } } },
          });
        } else {
          send({ jsonrpc: '2.0', id: frame.id, result: { resultType: 'complete', content: [] } });
        }
      },
      malformed: () => undefined,
      closed: () => undefined,
    });
    const client = new Client({ name: 'c', version: '1' }, MODERN);
    client.setRoots([{ uri: 'file:///r' }]);
    await client.connect(clientEnd);
    await client.callTool('t', { a: 1 });
    const [first, retry] = frames.filter((f) => f.method === 'tools/call');
    assert.notEqual(retry!.id, first!.id);
    assert.deepEqual(retry!.params.arguments, { a: 1 });
    assert.deepEqual(retry!.params.inputResponses, { q: { roots: [{ uri: 'file:///r' }] } });
    assert.equal('requestState' in retry!.params, false);
    await client.close();
  });
});

describe('requestState', () => {
  function askingServer(options: ConstructorParameters<typeof Server>[1] = {}) {
    const server = new Server({ name: 'state', version: '1' }, options);
    server.registerTool(
      'ask',
      { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
      async (args, ctx) => {
        const a = await ctx.elicit({ message: 'Name?', requestedSchema: NAME_FORM });
        return `${args.n}:${a.content?.name}`;
      },
    );
    return server;
  }
  const ACCEPT = { '0': { action: 'accept', content: { name: 'Di' } } };

  test('the first round answers input_required with the question and a sealed state', async () => {
    const raw = await rawSession(askingServer());
    const first = await raw.modern('tools/call', { name: 'ask', arguments: { n: 1 } }, ALL_CAPS);
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(first.inputRequests, {
      '0': { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: NAME_FORM } },
    });
    assert.match(first.requestState as string, /^sb1\.[A-Za-z0-9_-]+$/);
    assert.equal((first.requestState as string).includes('Name'), false);
    const done = await raw.modern(
      'tools/call',
      { name: 'ask', arguments: { n: 1 }, inputResponses: ACCEPT, requestState: first.requestState },
      ALL_CAPS,
    );
    assert.deepEqual(done.content, [{ type: 'text', text: '1:Di' }]);
    assert.equal(done.resultType, 'complete');
    raw.assertClean();
    await raw.close();
  });

  test('tampered, foreign-key, replayed, wrong-request and wrong-caller states are rejected', async () => {
    const server = askingServer({ requestStateKey: 'node-a-secret' });
    const raw = await rawSession(server);
    const retry = (requestState: unknown, args: Record<string, unknown> = { n: 1 }) =>
      raw.modern(
        'tools/call',
        { name: 'ask', arguments: args, inputResponses: ACCEPT, requestState },
        ALL_CAPS,
      );
    const issue = async () =>
      (await raw.modern('tools/call', { name: 'ask', arguments: { n: 1 } }, ALL_CAPS)).requestState as string;

    const state = await issue();
    const flipped = state.slice(0, 20) + (state[20] === 'A' ? 'B' : 'A') + state.slice(21);
    await assert.rejects(retry(flipped), invalidParamsMatching(/Invalid requestState: it was altered/));
    await assert.rejects(retry('not-a-state'), invalidParamsMatching(/Invalid requestState/));

    const foreign = await rawSession(askingServer({ requestStateKey: 'node-b-secret' }));
    const foreignState = (await foreign.modern('tools/call', { name: 'ask', arguments: { n: 1 } }, ALL_CAPS))
      .requestState;
    await assert.rejects(retry(foreignState), invalidParamsMatching(/sealed by another server or key/));
    await foreign.close();

    await assert.rejects(retry(state, { n: 2 }), invalidParamsMatching(/belongs to another request/));

    raw.setAuth({ subject: 'alice', clientId: 'app' });
    const alices = await issue();
    raw.setAuth({ subject: 'mallory', clientId: 'app' });
    await assert.rejects(retry(alices), invalidParamsMatching(/issued to another caller/));
    raw.setAuth(undefined);
    await assert.rejects(retry(alices), invalidParamsMatching(/issued to another caller/));
    raw.setAuth({ subject: 'alice', clientId: 'app', token: 'refreshed-token' });
    assert.deepEqual((await retry(alices)).content, [{ type: 'text', text: '1:Di' }]);
    raw.setAuth(undefined);

    assert.deepEqual((await retry(state)).content, [{ type: 'text', text: '1:Di' }]);
    await assert.rejects(retry(state), invalidParamsMatching(/already used/));
    raw.assertClean();
    await raw.close();
  });

  test('burning the nonce store full never reopens a used state (finding 6)', async () => {
    let sideEffects = 0;
    const server = new Server(
      { name: 'state', version: '1' },
      { requestStateStore: new MemoryRequestStateStore(5) },
    );
    server.registerTool(
      'pay',
      { inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
      async (args, ctx) => {
        const a = await ctx.elicit({ message: 'Confirm?', requestedSchema: NAME_FORM });
        sideEffects++;
        return `paid ${args.n} to ${a.content?.name}`;
      },
    );
    const raw = await rawSession(server);
    const pay = (n: number, extra: Record<string, unknown> = {}) =>
      raw.modern('tools/call', { name: 'pay', arguments: { n }, ...extra }, ALL_CAPS);
    const state = (await pay(0)).requestState;
    await pay(0, { inputResponses: ACCEPT, requestState: state });
    assert.equal(sideEffects, 1);
    // Another client burns as many nonces as the store holds (and one more).
    let refused = 0;
    for (let n = 1; n <= 5; n++) {
      const other = (await pay(n)).requestState;
      await pay(n, { inputResponses: ACCEPT, requestState: other }).catch((error: ProtocolError) => {
        assert.equal(error.code, ErrorCode.InternalError);
        assert.match(error.message, /holds 5 requestStates that have not expired.*try again/);
        refused++;
      });
    }
    assert.equal(refused, 1, 'the store was full once: the sixth state was refused, nothing forgotten');
    await assert.rejects(pay(0, { inputResponses: ACCEPT, requestState: state }), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      return true;
    });
    assert.equal(sideEffects, 5, 'the replayed state did not run the side effect again');
    raw.assertClean();
    await raw.close();
  });

  test('the memory nonce store forgets a nonce only once its state expired', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    const store = new MemoryRequestStateStore(3);
    assert.equal(await store.consume('a', 1_000_000 + 30_000), true);
    assert.equal(await store.consume('b', 1_000_000 + 10_000), true);
    assert.equal(await store.consume('c', 1_000_000 + 20_000), true);
    await assert.rejects(store.consume('d', 1_000_000 + 40_000), /holds 3 requestStates/);
    assert.equal(await store.consume('a', 1_000_000 + 30_000), false);
    t.mock.timers.tick(10_000); // b expired: its slot is free, a and c are still remembered
    assert.equal(await store.consume('d', 1_000_000 + 40_000), true);
    assert.equal(await store.consume('a', 1_000_000 + 30_000), false);
    assert.equal(await store.consume('c', 1_000_000 + 20_000), false);
    t.mock.timers.tick(20_000); // a and c expired
    assert.equal(await store.consume('e', 1_000_000 + 90_000), true);
    assert.equal(await store.consume('f', 1_000_000 + 90_000), true);
    assert.equal(await store.consume('d', 1_000_000 + 40_000), false);
  });

  test('an expired state is rejected', async () => {
    const raw = await rawSession(askingServer({ requestStateKey: 'k' }));
    const state = (await raw.modern('tools/call', { name: 'ask', arguments: { n: 1 } }, ALL_CAPS))
      .requestState as string;
    // Re-seal the same state with an expiry in the past, under the server's own key.
    const sealer = new RequestStateSealer('k');
    const payload = (await sealer.open(state))!;
    const expired = await sealer.seal({ ...payload, e: Date.now() - 1 } as never);
    await assert.rejects(
      raw.modern(
        'tools/call',
        { name: 'ask', arguments: { n: 1 }, inputResponses: ACCEPT, requestState: expired },
        ALL_CAPS,
      ),
      invalidParamsMatching(/Expired requestState/),
    );
    raw.assertClean();
    await raw.close();
  });

  test('answers must have the shape of their question; unsolicited answers are ignored', async () => {
    const raw = await rawSession(askingServer());
    const call = (extra: Record<string, unknown>) =>
      raw.modern('tools/call', { name: 'ask', arguments: { n: 1 }, ...extra }, ALL_CAPS);
    const { requestState } = await call({});
    await assert.rejects(
      call({ inputResponses: { '0': { action: 'maybe' } }, requestState }),
      invalidParamsMatching(
        /inputResponses\["0"\] is not a valid elicitation\/create result: "action" must be/,
      ),
    );
    // Without a requestState this server never asked anything: the answer is ignored.
    const again = await call({ inputResponses: ACCEPT });
    assert.equal(again.resultType, 'input_required');
    // An accepted answer that breaks the form is refused as invalid params.
    const fresh = await call({});
    await assert.rejects(
      call({
        inputResponses: { '0': { action: 'accept', content: { name: 7 } } },
        requestState: fresh.requestState,
      }),
      invalidParamsMatching(/does not match its requestedSchema: "name": expected string/),
    );
    raw.assertClean();
    await raw.close();
  });

  test('a state from a default (per-process random) key does not open on another server', async () => {
    const a = await rawSession(askingServer());
    const b = await rawSession(askingServer());
    const { requestState } = await a.modern('tools/call', { name: 'ask', arguments: { n: 1 } }, ALL_CAPS);
    await assert.rejects(
      b.modern(
        'tools/call',
        { name: 'ask', arguments: { n: 1 }, inputResponses: ACCEPT, requestState },
        ALL_CAPS,
      ),
      invalidParamsMatching(/Invalid requestState/),
    );
    await a.close();
    await b.close();
  });
});

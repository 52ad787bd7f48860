/**
 * 2026-07-28 input rounds carried through the gateway: an upstream's `input_required` goes down to a
 * 2026-07-28 client with the upstream's own `requestState` sealed inside the gateway's (bound to the
 * caller), and the retry reaches the upstream with that state and the client's answers, so the
 * upstream sees exactly the runs and rounds it sees directly. Upstreams: Switchboard's server (over
 * HTTP) and the official v2 SDK's (over stdio), whose tools count their runs and check their own
 * state; clients: Switchboard's and the official v2 SDK's, 2026-07-28 and legacy.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client } from '../../src/extensions/client.js';
import type { Server } from '../../src/extensions/server.js';
import { frontDoor } from '../../src/gateway/front-door.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { serve } from '../../src/node/serve.js';
import { openTarget } from '../../src/node/target.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import type { CallToolResult, ElicitResult } from '../../src/protocol/types.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { configOf, gatewayOver, textOf, upstreamServer } from './helpers.js';

const OFFICIAL_V2_MRTR = fileURLToPath(new URL('../fixtures/gateway-official-v2-mrtr.js', import.meta.url));

const closing: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const close of closing.reverse()) await close();
});

/** What every client answers, and the messages it was asked. */
function answering(asked: string[]) {
  return (message: string): ElicitResult => {
    asked.push(message);
    return { action: 'accept', content: message === 'Why?' ? { reason: 'release day' } : { confirm: true } };
  };
}

/** A Switchboard client (2026-07-28 unless told) at `url`, answering as {@link answering} says. */
async function switchboardClient(url: string, era: 'auto' | 'legacy' = 'auto', key?: string) {
  const asked: string[] = [];
  /** How each question came: `legacy`, a request of the server's; `modern`, in an input_required result. */
  const how: string[] = [];
  const answer = answering(asked);
  const client = new Client({ name: 'carry-client', version: '1.0.0' }, { version: era });
  client.onElicitation((params, input) => {
    how.push(input.era);
    return answer(params.message);
  });
  await client.connect(
    new StreamableHttpClientChannel(url, {
      fetch: nodeFetch,
      rememberEra: false,
      ...(key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } }),
    }),
  );
  closing.push(() => client.close());
  return { client, asked, how };
}

/**
 * Switchboard's server asking twice (a confirmation, then a reason), each round a retry with its own
 * sealed state (the server refuses any other). `runs` counts the tool's runs; `rounds` what each
 * tools/call brought: a first run, or a retry with a state.
 */
async function switchboardUpstream(options: { legacyOnly?: boolean } = {}) {
  const seen = { runs: 0, rounds: [] as string[] };
  const build = (server: Server) => {
    server.use((next) => (method, params, ctx) => {
      if (method === 'tools/call') seen.rounds.push(params.requestState === undefined ? 'first' : 'retry');
      return next(method, params, ctx);
    });
    server.registerTool(
      'deploy',
      { inputSchema: { type: 'object', properties: { env: { type: 'string' } }, required: ['env'] } },
      async (args, ctx) => {
        seen.runs++;
        const { env } = args as { env: string };
        const confirm = await ctx.elicit(
          {
            message: `Deploy to ${env}?`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
          },
          { key: 'confirm' },
        );
        const why = await ctx.elicit(
          {
            message: 'Why?',
            requestedSchema: { type: 'object', properties: { reason: { type: 'string' } } },
          },
          { key: 'reason' },
        );
        return {
          content: [
            {
              type: 'text',
              text: `deployed ${env}: ${confirm.content?.confirm} because ${why.content?.reason}`,
            },
          ],
        };
      },
    );
  };
  const upstream = await upstreamServer(build, options);
  closing.push(upstream.close);
  return {
    url: upstream.url,
    seen,
    reset() {
      seen.runs = 0;
      seen.rounds = [];
    },
  };
}

describe('gateway: 2026-07-28 requestState carried to the upstream', () => {
  test('a Switchboard upstream sees the same runs and rounds through the gateway as directly, and only its own state', async () => {
    const upstream = await switchboardUpstream();
    const direct = await switchboardClient(upstream.url);
    assert.equal(direct.client.era, 'modern');
    const directly = textOf(await direct.client.callTool('deploy', { env: 'prod' }));
    assert.equal(directly, 'deployed prod: true because release day');
    const expected = { runs: upstream.seen.runs, rounds: upstream.seen.rounds };
    assert.deepEqual(expected, { runs: 3, rounds: ['first', 'retry', 'retry'] });

    upstream.reset();
    const started = await gatewayOver({ up: { url: upstream.url } });
    closing.push(started.close);
    const through = await switchboardClient(started.url);
    assert.equal(textOf(await through.client.callTool('up__deploy', { env: 'prod' })), directly);
    assert.deepEqual({ runs: upstream.seen.runs, rounds: upstream.seen.rounds }, expected);
    assert.deepEqual(through.asked, direct.asked);
    assert.deepEqual(through.how, ['modern', 'modern']);
  });

  test('the questions go down under the upstream keys; the state is the gateway seal, good once, for this request', async () => {
    const upstream = await switchboardUpstream();
    const started = await gatewayOver({ up: { url: upstream.url } });
    closing.push(started.close);
    const { client } = await switchboardClient(started.url);
    const call = { name: 'up__deploy', arguments: { env: 'prod' } };
    // carryInput: the raw rounds, as a client that drives them itself sees them.
    const first = (await client.request('tools/call', call, { carryInput: {} })) as unknown as Record<
      string,
      unknown
    >;
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests as object), ['confirm']);
    const state = first.requestState as string;
    assert.match(state, /^sb1\./);
    const answers = { confirm: { action: 'accept', content: { confirm: true } } };

    const refused = async (params: Record<string, unknown>, message: RegExp) => {
      await assert.rejects(
        client.request('tools/call', params as never, {
          carryInput: { inputResponses: answers, requestState: params.requestState as string },
        }),
        (error: unknown) =>
          error instanceof ProtocolError &&
          error.code === ErrorCode.InvalidParams &&
          message.test(error.message),
      );
    };
    // One character of the sealed bytes changed (the middle one: every bit of it counts).
    const at = Math.floor(state.length / 2);
    const tampered = `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
    await refused({ ...call, requestState: tampered }, /Invalid requestState/);
    await refused({ ...call, arguments: { env: 'dev' }, requestState: state }, /belongs to another request/);
    assert.deepEqual(upstream.seen.rounds, ['first'], 'nothing refused reached the upstream');

    const second = (await client.request('tools/call', call, {
      carryInput: { inputResponses: answers, requestState: state },
    })) as unknown as Record<string, unknown>;
    assert.equal(second.resultType, 'input_required');
    assert.deepEqual(Object.keys(second.inputRequests as object), ['reason']);
    assert.deepEqual(upstream.seen.rounds, ['first', 'retry']);
    // Used once: a replay of the first state is refused, the upstream not asked again.
    await refused({ ...call, requestState: state }, /already used/);
    const done = (await client.request('tools/call', call, {
      carryInput: {
        inputResponses: { reason: { action: 'accept', content: { reason: 'now' } } },
        requestState: second.requestState as string,
      },
    })) as unknown as CallToolResult;
    assert.equal(textOf(done), 'deployed prod: true because now');
    assert.deepEqual(upstream.seen.rounds, ['first', 'retry', 'retry']);
    assert.equal(upstream.seen.runs, 3);
  });

  test("another caller's retry with a state issued to someone else is refused before it reaches the upstream", async () => {
    const upstream = await switchboardUpstream();
    const keys = { alice: 'a'.repeat(8) + crypto.randomUUID(), bob: 'b'.repeat(8) + crypto.randomUUID() };
    const gateway = new Gateway(configOf({ up: { url: upstream.url } }));
    await gateway.start();
    const http = await serve(createHttpHandler(gateway.server, { auth: frontDoor({ apiKeys: keys }) }), {
      port: 0,
    });
    closing.push(async () => {
      await http.close();
      await gateway.close();
    });
    const alice = await switchboardClient(http.url, 'auto', keys.alice);
    const bob = await switchboardClient(http.url, 'auto', keys.bob);
    const call = { name: 'up__deploy', arguments: { env: 'prod' } };
    const first = (await alice.client.request('tools/call', call, { carryInput: {} })) as unknown as Record<
      string,
      unknown
    >;
    const retry = {
      carryInput: {
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        requestState: first.requestState as string,
      },
    };
    await assert.rejects(
      bob.client.request('tools/call', call, retry),
      (error: unknown) =>
        error instanceof ProtocolError &&
        error.code === ErrorCode.InvalidParams &&
        /issued to another caller/.test(error.message),
    );
    assert.deepEqual(upstream.seen.rounds, ['first']);
    const second = (await alice.client.request('tools/call', call, retry)) as unknown as Record<
      string,
      unknown
    >;
    assert.equal(second.resultType, 'input_required');
    assert.deepEqual(upstream.seen.rounds, ['first', 'retry']);
  });

  test('the official v2 SDK server sees the same runs and its own states through the gateway as directly', async () => {
    const direct = new Client({ name: 'carry-direct', version: '1.0.0' });
    const asked: string[] = [];
    const answer = answering(asked);
    direct.onElicitation((params) => answer(params.message));
    await direct.connect(openTarget({ kind: 'stdio', command: process.execPath, args: [OFFICIAL_V2_MRTR] }));
    closing.push(() => direct.close());
    assert.equal(direct.revision, '2026-07-28');
    const directly = textOf(await direct.callTool('deploy', { env: 'prod' }));
    assert.equal(
      directly,
      'deployed prod because release day; runs 3, states [null,"confirm:prod","reason:prod"]',
    );

    const started = await gatewayOver({
      v2: { command: process.execPath, args: [OFFICIAL_V2_MRTR] },
    });
    closing.push(started.close);
    const through = await switchboardClient(started.url);
    // The gateway's own session with the server is the one a 2026-07-28 client's calls go on: a
    // fresh process, so its counts start where the direct one's did.
    assert.equal(textOf(await through.client.callTool('v2__deploy', { env: 'prod' })), directly);
    assert.deepEqual(through.asked, asked);
  });

  test('an official v2 SDK client (2026-07-28) drives the carried rounds itself', async () => {
    for (const target of ['switchboard', 'official'] as const) {
      const upstream = target === 'switchboard' ? await switchboardUpstream() : undefined;
      const started = await gatewayOver(
        upstream
          ? { up: { url: upstream.url } }
          : { up: { command: process.execPath, args: [OFFICIAL_V2_MRTR] } },
      );
      closing.push(started.close);
      const asked: string[] = [];
      const answer = answering(asked);
      const client = new V2Client(
        { name: 'v2-carry', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      client.setRequestHandler('elicitation/create', (request) => ({
        ...answer((request.params as { message: string }).message),
      }));
      await client.connect(new V2Http(new URL(started.url)));
      closing.push(() => client.close());
      const result = await client.callTool({ name: 'up__deploy', arguments: { env: 'prod' } });
      const text = textOf(result as CallToolResult);
      assert.deepEqual(asked, ['Deploy to prod?', 'Why?'], target);
      if (upstream) {
        assert.equal(text, 'deployed prod: true because release day');
        assert.deepEqual(upstream.seen.rounds, ['first', 'retry', 'retry']);
      } else {
        assert.equal(
          text,
          'deployed prod because release day; runs 3, states [null,"confirm:prod","reason:prod"]',
        );
      }
    }
  });

  test('a legacy client is asked with real requests; the upstream still sees its own rounds', async () => {
    const upstream = await switchboardUpstream();
    const started = await gatewayOver({ up: { url: upstream.url } });
    closing.push(started.close);
    const legacy = await switchboardClient(started.url, 'legacy');
    assert.equal(legacy.client.era, 'legacy');
    assert.equal(
      textOf(await legacy.client.callTool('up__deploy', { env: 'prod' })),
      'deployed prod: true because release day',
    );
    assert.deepEqual(legacy.asked, ['Deploy to prod?', 'Why?']);
    assert.deepEqual(legacy.how, ['legacy', 'legacy'], 'each question a request of the gateway');
    assert.deepEqual(upstream.seen.rounds, ['first', 'retry', 'retry']);
  });

  test('a legacy upstream: its call runs again with the answers, as documented (it asks with requests of its own)', async () => {
    const upstream = await switchboardUpstream({ legacyOnly: true });
    const started = await gatewayOver({ up: { url: upstream.url } });
    closing.push(started.close);
    const modern = await switchboardClient(started.url);
    assert.equal(
      textOf(await modern.client.callTool('up__deploy', { env: 'prod' })),
      'deployed prod: true because release day',
    );
    assert.deepEqual(modern.asked, ['Deploy to prod?', 'Why?']);
    // One run per downstream round (a legacy server cannot hand its place in the tool back).
    assert.equal(upstream.seen.runs, 3);
    assert.deepEqual(upstream.seen.rounds, ['first', 'first', 'first']);
  });
});

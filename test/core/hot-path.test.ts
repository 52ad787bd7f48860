/**
 * The shortcuts the request path takes for speed (see bench/) must not change what goes on the wire:
 * cached list serializations, modern results spliced from a precomputed tail, synchronous and
 * asynchronous tool paths, output validators compiled once per schema.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Channel } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { RawJson } from '../../src/protocol/frames.js';
import type { Params } from '../../src/protocol/jsonrpc.js';
import { META } from '../../src/protocol/meta.js';
import type { StandardJsonSchema } from '../../src/schema/types.js';
import type { RequestLink } from '../../src/server/link.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';

const TEXT = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const;

function echoServer(): Server {
  const server = new Server({ name: 'hot-path', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: TEXT }, ({ text }) => text as string);
  return server;
}

const link: RequestLink = {
  notify: () => {},
  finished: false,
  signal: new AbortController().signal,
  extra: undefined,
  legacy: undefined,
};

const modernMeta = { [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {} };

/** A Standard schema whose validation is asynchronous (as with zod's async refinements). */
function asyncSumSchema(): StandardJsonSchema {
  const json = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
  return {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: async (value: unknown) =>
        typeof (value as { sum?: unknown })?.sum === 'number'
          ? { value }
          : { issues: [{ message: 'sum must be a number', path: ['sum'] }] },
      jsonSchema: { input: () => json, output: () => json },
    },
  } as never;
}

describe('the hot path', () => {
  test('a tools/list page is serialized once per revision and served from that string', async () => {
    const server = echoServer();
    const first = await server.serve({ method: 'tools/list', params: { _meta: modernMeta }, id: 1 }, link);
    const second = await server.serve({ method: 'tools/list', params: { _meta: modernMeta }, id: 2 }, link);
    assert.ok(first instanceof RawJson);
    assert.equal(second, first, 'the second list reuses the first serialization');
    server.registerTool('other', {}, () => 'x');
    const third = await server.serve({ method: 'tools/list', params: { _meta: modernMeta }, id: 3 }, link);
    assert.notEqual(third, first, 'a change to the list invalidates it');
    assert.deepEqual(
      (JSON.parse((third as RawJson).json) as { tools: { name: string }[] }).tools.map((t) => t.name),
      ['echo', 'other'],
    );
  });

  test('the per-request capability check follows what is registered', async () => {
    const server = echoServer();
    await assert.rejects(
      server.serve({ method: 'prompts/list', params: { _meta: modernMeta }, id: 1 }, link),
      {
        code: -32601,
      },
    );
    server.registerPrompt('hello', {}, () => 'hi');
    const list = await server.serve({ method: 'prompts/list', params: { _meta: modernMeta }, id: 2 }, link);
    assert.match((list as RawJson).json, /"hello"/);
  });

  test('modern results carry resultType and serverInfo, merged with a _meta of their own', async () => {
    const server = echoServer();
    server.registerTool('tagged', {}, () => ({
      content: [{ type: 'text', text: 'hi' }],
      _meta: { 'com.example/tag': 1 },
    }));
    server.registerTool('empty', {}, () => ({ content: [] }));
    const pair = await connectPair(server, { version: { pin: '2026-07-28' } });
    try {
      const echo = await pair.client.callTool('echo', { text: 'a "quoted" \\ text' });
      assert.deepEqual(echo, {
        content: [{ type: 'text', text: 'a "quoted" \\ text' }],
        resultType: 'complete',
        _meta: { [META.serverInfo]: { name: 'hot-path', version: '1.0.0' } },
      });
      const tagged = await pair.client.callTool('tagged', {});
      assert.deepEqual(tagged._meta, {
        'com.example/tag': 1,
        [META.serverInfo]: { name: 'hot-path', version: '1.0.0' },
      });
      const empty = await pair.client.callTool('empty', {});
      assert.deepEqual(empty.content, []);
      assert.equal((empty as unknown as Record<string, unknown>).resultType, 'complete');
      pair.assertClean();
    } finally {
      await pair.close();
    }
  });

  test('asynchronous output validation still rejects a bad structuredContent', async () => {
    const server = new Server({ name: 'hot-path', version: '1.0.0' });
    server.registerTool('sum', { outputSchema: asyncSumSchema() }, () => ({ structuredContent: { sum: 3 } }));
    server.registerTool('bad', { outputSchema: asyncSumSchema() }, () => ({
      structuredContent: { sum: 'three' } as never,
    }));
    const pair = await connectPair(server, { version: 'legacy' });
    try {
      assert.deepEqual((await pair.client.callTool('sum', {})).structuredContent, { sum: 3 });
      await assert.rejects(pair.client.callTool('bad', {}), (error: Error & { code?: number }) => {
        assert.equal(error.code, -32603);
        assert.match(error.message, /must be a number/);
        return true;
      });
    } finally {
      await pair.close();
    }
  });

  test('a relisted tool whose output schema changed is checked against the new schema', async () => {
    const server = new Server({ name: 'hot-path', version: '1.0.0' });
    const number = { type: 'object', properties: { v: { type: 'number' } }, required: ['v'] } as const;
    const string = { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] } as const;
    let value: unknown = 1;
    const tool = server.registerTool(
      'v',
      { outputSchema: number },
      () => ({ structuredContent: { v: value } }) as never,
    );
    // A lying server: it advertises the schema, but its handler's output is checked on our side too.
    const pair = await connectPair(server, { version: 'legacy' });
    try {
      await pair.client.listTools();
      await pair.client.listTools(); // unchanged: the validator is kept
      assert.deepEqual((await pair.client.callTool('v', {})).structuredContent, { v: 1 });
      tool.update({ outputSchema: string });
      value = 'one';
      await pair.client.listTools();
      assert.deepEqual((await pair.client.callTool('v', {})).structuredContent, { v: 'one' });
    } finally {
      await pair.close();
    }
  });
});

describe('the 2026-07-28 envelope, serialized once, for this client and for those it calls for', () => {
  /** A modern client whose requests' params are recorded as they go on the wire. */
  async function recorded(): Promise<{ client: Client; sent: Params[]; close(): Promise<void> }> {
    const [clientEnd, serverEnd] = createLinkedChannels();
    const sent: Params[] = [];
    const spy: Channel = {
      label: 'spy',
      start: (sink) => clientEnd.start(sink),
      send: (frame, info) => {
        const message = JSON.parse(frame) as { method?: string; params?: Params };
        if (message.method === 'tools/call') sent.push(message.params!);
        clientEnd.send(frame, info);
      },
      close: () => clientEnd.close(),
    };
    echoServer().connect(serverEnd);
    const client = new Client({ name: 'splice', version: '1.0.0' }, { version: { pin: '2026-07-28' } });
    await client.connect(spy);
    return { client, sent, close: () => client.close() };
  }

  test('each call carries the envelope in force, its own, or that of the client it is made for', async () => {
    const { client, sent, close } = await recorded();
    try {
      const downstream = { elicitation: { form: {} } };
      await client.callTool('echo', { text: 'a' });
      await client.callTool('echo', { text: 'b' }, { onBehalfOf: { capabilities: {}, logLevel: 'info' } });
      await client.callTool(
        'echo',
        { text: 'c' },
        { onBehalfOf: { capabilities: downstream, logLevel: undefined } },
      );
      await client.callTool('echo', { text: 'd' }, { onBehalfOf: { capabilities: {}, logLevel: 'info' } });
      // A handler registered now changes this client's own capabilities from the next call on.
      client.onElicitation(() => ({ action: 'decline' }));
      await client.callTool('echo', { text: 'e' });
      await client.callTool('echo', { text: 'f' }, { meta: { trace: 'x' } });
      const meta = sent.map((params) => params._meta as Record<string, unknown>);
      assert.deepEqual(
        sent.map((params) => params.arguments),
        ['a', 'b', 'c', 'd', 'e', 'f'].map((text) => ({ text })),
      );
      assert.deepEqual(meta[0]![META.clientCapabilities], {});
      assert.equal(meta[0]![META.logLevel], undefined);
      assert.deepEqual(meta[1]![META.clientCapabilities], {});
      assert.equal(meta[1]![META.logLevel], 'info');
      assert.deepEqual(meta[2]![META.clientCapabilities], downstream);
      assert.equal(meta[2]![META.logLevel], undefined);
      assert.deepEqual(meta[3], meta[1]);
      assert.ok(
        meta[4]![META.clientCapabilities] && 'elicitation' in (meta[4]![META.clientCapabilities] as object),
      );
      assert.equal(meta[5]!.trace, 'x');
      assert.deepEqual(meta[5]![META.clientCapabilities], meta[4]![META.clientCapabilities]);
      for (const m of meta) {
        assert.equal(m[META.protocolVersion], '2026-07-28');
        assert.deepEqual(m[META.clientInfo], { name: 'splice', version: '1.0.0' });
      }
    } finally {
      await close();
    }
  });
});

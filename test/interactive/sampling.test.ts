import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import type { CreateMessageParams, CreateMessageResult, SamplingContent } from '../../src/protocol/types.js';
import { connectPair } from '../helpers/pair.js';

const textOf = (result: { content: { type: string }[] }) =>
  (result.content[0] as { type: 'text'; text: string }).text;
const pin = (revision: Revision) => ({ version: { pin: revision } });
const TOOL_REVISIONS: Revision[] = ['2026-07-28', '2025-11-25'];

function samplingServer(params: () => CreateMessageParams) {
  const server = new Server({ name: 'sampler', version: '1.0.0' });
  server.registerTool('ask-model', {}, async (_args, ctx) => {
    const reply = await ctx.sample(params());
    const blocks = Array.isArray(reply.content) ? reply.content : [reply.content];
    return `${reply.model}/${reply.stopReason ?? '-'}: ${blocks.map((b) => (b.type === 'text' ? b.text : b.type)).join(' ')}`;
  });
  return server;
}

const simple = (): CreateMessageParams => ({
  messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
  maxTokens: 20,
  systemPrompt: 'Be brief',
});

for (const revision of REVISIONS) {
  describe(`sampling on ${revision}`, () => {
    test('a text completion', async () => {
      const seen: CreateMessageParams[] = [];
      const pair = await connectPair(samplingServer(simple), pin(revision), (client) =>
        client.onSampling((params) => {
          seen.push(params);
          // One block in an array: revisions before 2025-11-25 get the block itself.
          return {
            role: 'assistant',
            content: [{ type: 'text', text: 'hi' }],
            model: 'tiny',
            stopReason: 'endTurn',
          };
        }),
      );
      assert.equal(textOf(await pair.client.callTool('ask-model', {})), 'tiny/endTurn: hi');
      assert.deepEqual(seen[0]!.messages, simple().messages);
      assert.equal(seen[0]!.systemPrompt, 'Be brief');
      pair.assertClean();
      await pair.close();
    });

    test('no sampling capability, no sampling request', async () => {
      const pair = await connectPair(samplingServer(simple), pin(revision));
      if (revision === '2026-07-28') {
        await assert.rejects(pair.client.callTool('ask-model', {}), (error: unknown) => {
          assert.ok(error instanceof ProtocolError);
          assert.equal(error.code, ErrorCode.MissingRequiredClientCapability);
          assert.deepEqual(error.data, { requiredCapabilities: { sampling: {} } });
          return true;
        });
      } else {
        const result = await pair.client.callTool('ask-model', {});
        assert.equal(result.isError, true);
        assert.match(textOf(result), /\{"sampling":\{\}\}/);
      }
      pair.assertClean();
      await pair.close();
    });
  });
}

const weatherTool = {
  name: 'weather',
  description: 'Weather for a city',
  inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

function toolLoopServer() {
  const server = new Server({ name: 'agent', version: '1.0.0' });
  server.registerTool('agent', {}, async (_args, ctx) => {
    const messages: CreateMessageParams['messages'] = [
      { role: 'user', content: { type: 'text', text: 'Weather in Paris?' } },
    ];
    const first = await ctx.sample({
      messages,
      maxTokens: 100,
      tools: [weatherTool],
      toolChoice: { mode: 'auto' },
    });
    const uses = (Array.isArray(first.content) ? first.content : [first.content]).filter(
      (b) => b.type === 'tool_use',
    );
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: uses.map(
        (u): SamplingContent => ({
          type: 'tool_result',
          toolUseId: u.id,
          content: [{ type: 'text', text: 'sunny' }],
        }),
      ),
    });
    const final = await ctx.sample({
      messages,
      maxTokens: 100,
      tools: [weatherTool],
      toolChoice: { mode: 'none' },
    });
    return (final.content as { text: string }).text;
  });
  return server;
}

for (const revision of TOOL_REVISIONS) {
  describe(`sampling with tools on ${revision}`, () => {
    test('tool_use, then tool_result, then the answer', async () => {
      const rounds: CreateMessageParams[] = [];
      const pair = await connectPair(toolLoopServer(), pin(revision), (client) =>
        client.onSampling(
          (params): CreateMessageResult => {
            rounds.push(params);
            if (params.toolChoice?.mode === 'auto') {
              return {
                role: 'assistant',
                model: 'm',
                stopReason: 'toolUse',
                content: [{ type: 'tool_use', id: 'call-1', name: 'weather', input: { city: 'Paris' } }],
              };
            }
            return {
              role: 'assistant',
              model: 'm',
              content: { type: 'text', text: 'It is sunny in Paris.' },
            };
          },
          { tools: true },
        ),
      );
      assert.equal(textOf(await pair.client.callTool('agent', {})), 'It is sunny in Paris.');
      assert.deepEqual(rounds[0]!.tools, [weatherTool]);
      const last = rounds.at(-1)!.messages.at(-1)!;
      assert.deepEqual(last.content, [
        { type: 'tool_result', toolUseId: 'call-1', content: [{ type: 'text', text: 'sunny' }] },
      ]);
      pair.assertClean();
      await pair.close();
    });

    test('tools need the sampling.tools capability', async () => {
      const pair = await connectPair(toolLoopServer(), pin(revision), (client) =>
        client.onSampling(() => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } })),
      );
      if (revision === '2026-07-28') {
        await assert.rejects(pair.client.callTool('agent', {}), (error: unknown) => {
          assert.ok(error instanceof ProtocolError);
          assert.deepEqual(error.data, { requiredCapabilities: { sampling: { tools: {} } } });
          return true;
        });
      } else {
        const result = await pair.client.callTool('agent', {});
        assert.equal(result.isError, true);
        assert.match(textOf(result), /\{"sampling":\{"tools":\{\}\}\}/);
      }
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('sampling on older revisions', () => {
  test('tools are refused before 2025-11-25, with a clear error', async () => {
    for (const revision of ['2025-06-18', '2025-03-26', '2024-11-05'] as const) {
      const pair = await connectPair(toolLoopServer(), pin(revision), (client) =>
        client.onSampling(() => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } }), {
          tools: true,
        }),
      );
      const result = await pair.client.callTool('agent', {});
      assert.equal(result.isError, true);
      assert.match(
        textOf(result),
        new RegExp(`Sampling with tools needs protocol 2025-11-25 or later; this client speaks ${revision}`),
      );
      pair.assertClean();
      await pair.close();
    }
  });

  test('several blocks in one message, or audio on 2024-11-05, cannot be sent', async () => {
    const twoBlocks = (): CreateMessageParams => ({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      maxTokens: 5,
    });
    const audio = (): CreateMessageParams => ({
      messages: [{ role: 'user', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } }],
      maxTokens: 5,
    });
    for (const [params, revision, message] of [
      [twoBlocks, '2025-06-18', /with 2 content blocks needs protocol 2025-11-25/],
      [audio, '2024-11-05', /Audio in sampling needs protocol 2025-03-26/],
    ] as const) {
      const pair = await connectPair(samplingServer(params), pin(revision), (client) =>
        client.onSampling(() => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } })),
      );
      const result = await pair.client.callTool('ask-model', {});
      assert.equal(result.isError, true);
      assert.match(textOf(result), message);
      pair.assertClean();
      await pair.close();
    }
  });

  test('includeContext other than "none" needs sampling.context', async () => {
    const withContext = (): CreateMessageParams => ({ ...simple(), includeContext: 'thisServer' });
    const pair = await connectPair(samplingServer(withContext), pin('2026-07-28'), (client) =>
      client.onSampling(() => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } })),
    );
    await assert.rejects(pair.client.callTool('ask-model', {}), (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.deepEqual(error.data, { requiredCapabilities: { sampling: { context: {} } } });
      return true;
    });
    pair.client.onSampling(() => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'ok' } }), {
      context: true,
    });
    assert.equal(textOf(await pair.client.callTool('ask-model', {})), 'm/-: ok');
    pair.assertClean();
    await pair.close();
  });
});

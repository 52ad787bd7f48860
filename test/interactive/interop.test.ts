/**
 * Elicitation, sampling and roots against the official SDKs, both directions, both eras:
 * official v1 / v2 clients (with handlers) → Switchboard server, and Switchboard client (with
 * handlers) → official v1 / v2 servers whose tools ask for input.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as V1InMemory } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  acceptedContent,
  inputRequired,
  InMemoryTransport as V2InMemory,
  McpServer as V2McpServer,
} from '@modelcontextprotocol/server';
import { serveStdio as v2ServeStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { Client } from '../../src/extensions/client.js';
import type { Revision } from '../../src/protocol/revisions.js';
import { bridge } from '../helpers/official.js';
import { ONBOARDED, onboardingServer } from './fixtures/onboarding-server.js';

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

const EXPECTED = ONBOARDED;

describe('official clients → Switchboard server', () => {
  test('v1 client (legacy, 2025-11-25) answers server→client requests', async () => {
    const log: string[] = [];
    const [clientEnd, serverEnd] = V1InMemory.createLinkedPair();
    const channel = await bridge(serverEnd, 'server');
    onboardingServer(log).connect(channel);
    const client = new V1Client(
      { name: 'v1', version: '1' },
      { capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } } },
    );
    const seenSchemas: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      seenSchemas.push((request.params as { requestedSchema: unknown }).requestedSchema);
      return { action: 'accept', content: { name: 'Ada', color: '#00f' } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'roses are red' },
    }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///home/ada' }] }));
    await client.connect(clientEnd);
    const result = await client.callTool({ name: 'onboard', arguments: {} });
    assert.equal(textOf(result), EXPECTED);
    assert.deepEqual(log, ['run 2025-11-25']);
    assert.equal(
      (seenSchemas[0] as { properties: { color: { oneOf: unknown[] } } }).properties.color.oneOf.length,
      2,
    );
    channel.assertClean();
    await client.close();
  });

  for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
    const era = mode === 'legacy' ? 'legacy' : 'modern';
    test(`v2 client (${era}) fulfils input with the same handlers`, async () => {
      const log: string[] = [];
      const [clientEnd, serverEnd] = V2InMemory.createLinkedPair();
      const channel = await bridge(serverEnd, 'server');
      onboardingServer(log).connect(channel);
      const client = new V2Client(
        { name: 'v2', version: '1' },
        {
          capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
          versionNegotiation: { mode },
        },
      );
      client.setRequestHandler('elicitation/create', () => ({
        action: 'accept',
        content: { name: 'Ada', color: '#00f' },
      }));
      client.setRequestHandler('sampling/createMessage', () => ({
        role: 'assistant',
        model: 'm',
        content: { type: 'text', text: 'roses are red' },
      }));
      client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///home/ada' }] }));
      await client.connect(clientEnd);
      const result = await client.callTool({ name: 'onboard', arguments: {} });
      assert.equal(textOf(result), EXPECTED);
      // Modern: one run per round (asked, answered ×3); legacy: one run.
      assert.deepEqual(log, era === 'modern' ? Array(4).fill('run 2026-07-28') : ['run 2025-11-25']);
      channel.assertClean();
      await client.close();
    });
  }
});

/** A Switchboard client with all three handlers. */
function handlingClient(version: 'auto' | { pin: Revision }) {
  const asked: string[] = [];
  const client = new Client({ name: 'switchboard-client', version: '1.0.0' }, { version });
  client.onElicitation((params) => {
    asked.push(`elicit: ${params.message}`);
    return { action: 'accept', content: { confirm: true } };
  });
  client.onSampling((params) => {
    asked.push(`sample: ${params.maxTokens}`);
    return { role: 'assistant', model: 'm', content: { type: 'text', text: 'sure' } };
  });
  client.setRoots([{ uri: 'file:///work', name: 'work' }]);
  return { client, asked };
}

describe('Switchboard client → official servers', () => {
  test('v1 server (legacy): elicitInput, createMessage and listRoots reach our handlers', async () => {
    const mcp = new V1McpServer({ name: 'v1-server', version: '1' });
    mcp.registerTool('deploy', { inputSchema: { env: z.string() } }, async ({ env }) => {
      const confirm = await mcp.server.elicitInput({
        message: `Deploy to ${env}?`,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      });
      const summary = await mcp.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'summarize' } }],
        maxTokens: 10,
      });
      const { roots } = await mcp.server.listRoots();
      return {
        content: [
          {
            type: 'text',
            text: `${confirm.action}:${confirm.content?.confirm}:${(summary.content as { text: string }).text}:${roots[0]?.uri}`,
          },
        ],
      };
    });
    const [clientEnd, serverEnd] = V1InMemory.createLinkedPair();
    await mcp.connect(serverEnd);
    const { client, asked } = handlingClient('auto');
    const channel = await bridge(clientEnd, 'client');
    await client.connect(channel);
    assert.equal(client.era, 'legacy');
    const result = await client.callTool('deploy', { env: 'prod' });
    assert.equal(textOf(result), 'accept:true:sure:file:///work');
    assert.deepEqual(asked, ['elicit: Deploy to prod?', 'sample: 10']);
    channel.assertClean();
    await client.close();
  });

  for (const version of [{ pin: '2026-07-28' as const }, { pin: '2025-11-25' as const }]) {
    test(`v2 server (${version.pin}): the same tool code asks our handlers (MRTR loop, or legacy requests)`, async () => {
      const Confirm = z.object({ confirm: z.boolean() });
      const states: unknown[] = [];
      // The v2 SDK picks the era per connection in its stdio entry; it runs here over an in-memory transport.
      const v2Server = () => {
        const mcp = new V2McpServer({ name: 'v2-server', version: '1' });
        mcp.registerTool('deploy', { inputSchema: z.object({ env: z.string() }) }, async ({ env }, ctx) => {
          states.push(ctx.mcpReq.requestState());
          const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', Confirm);
          if (confirmed?.confirm !== true) {
            return inputRequired({
              inputRequests: {
                confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: Confirm }),
                roots: inputRequired.listRoots(),
              },
              requestState: 'opaque-round-1',
            });
          }
          const roots = ctx.mcpReq.inputResponses?.roots as { roots: { uri: string }[] };
          return { content: [{ type: 'text', text: `deployed ${env} from ${roots.roots[0]!.uri}` }] };
        });
        return mcp;
      };
      const [clientEnd, serverEnd] = V2InMemory.createLinkedPair();
      const served = v2ServeStdio(v2Server, { transport: serverEnd });
      const { client, asked } = handlingClient(version);
      const channel = await bridge(clientEnd, 'client');
      await client.connect(channel);
      const result = await client.callTool('deploy', { env: 'prod' });
      assert.equal(textOf(result), 'deployed prod from file:///work');
      assert.deepEqual(asked, ['elicit: Deploy to prod?']);
      assert.deepEqual(states, [undefined, 'opaque-round-1']);
      channel.assertClean();
      await client.close();
      await served.close();
    });
  }
});

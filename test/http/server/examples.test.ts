/**
 * The HTTP examples, started for real on 127.0.0.1: an official client connects through each
 * framework (legacy session and 2026-07-28) and calls a tool.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StartedExample } from '../../../examples/http/demo-server.js';
import { startExpress } from '../../../examples/http/express.js';
import { startFastify } from '../../../examples/http/fastify.js';
import { startHono } from '../../../examples/http/hono.js';
import { MODERN } from './helpers.js';
import { WireCheck } from './wire.js';

const examples: [string, () => Promise<StartedExample>][] = [
  ['express', startExpress],
  ['hono', startHono],
  ['fastify', startFastify],
];

for (const [name, start] of examples) {
  describe(`examples/http/${name}`, () => {
    test('SDK v1 (legacy session and HTTP+SSE) and SDK v2 (2026-07-28) call a tool', async () => {
      const example = await start();
      try {
        const wire = await WireCheck.create(`${name} v1`);
        const v1 = new ClientV1({ name: 'v1', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(example.url), { fetch: wire.fetch });
        await v1.connect(transport);
        const sum = await v1.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
        assert.deepEqual(sum.structuredContent, { sum: 5 });
        await transport.terminateSession();
        await v1.close();
        await wire.assertCleanWhenSettled();

        const sseWire = await WireCheck.create(`${name} sse`);
        const sse = new ClientV1({ name: 'v1-sse', version: '1.0.0' });
        await sse.connect(new SSEClientTransport(new URL('/sse', example.url), { fetch: sseWire.fetch }));
        const read = await sse.readResource({ uri: 'example://about' });
        assert.equal((read.contents[0] as { text: string }).text, 'Served over HTTP.');
        await sse.close();
        await sseWire.assertCleanWhenSettled();

        const modernWire = await WireCheck.create(`${name} v2`);
        const v2 = new ClientV2(
          { name: 'v2', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: MODERN } } },
        );
        await v2.connect(new StreamableV2(new URL(example.url), { fetch: modernWire.fetch }));
        const modern = await v2.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
        assert.deepEqual(modern.structuredContent, { sum: 42 });
        await v2.close();
        await modernWire.assertCleanWhenSettled();
      } finally {
        await example.close();
      }
    });
  });
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Server } from '../../src/extensions/server.js';
import { REVISIONS } from '../../src/protocol/revisions.js';
import { connectPair } from '../helpers/pair.js';

function makeServer() {
  const server = new Server({
    name: 'smoke',
    version: '1.0.0',
    title: 'Smoke',
    icons: [{ src: 'https://example.com/i.png' }],
  });
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );
  server.registerResource(
    'readme',
    'file:///readme.md',
    { mimeType: 'text/markdown', title: 'Readme' },
    () => '# hi',
  );
  server.registerPrompt(
    'greet',
    { arguments: [{ name: 'who', required: true }] },
    ({ who }) => `Hello ${who}`,
  );
  return server;
}

for (const revision of REVISIONS) {
  describe(`smoke on ${revision}`, () => {
    test('list, call, read, get', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      assert.equal(client.revision, revision);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['add'],
      );
      const result = await client.callTool('add', { a: 2, b: 3 });
      assert.equal(result.content[0]?.type, 'text');
      const bad = await client.callTool('add', { a: 'x' });
      assert.equal(bad.isError, true);
      const read = await client.readResource('file:///readme.md');
      assert.deepEqual(read.contents[0], {
        uri: 'file:///readme.md',
        mimeType: 'text/markdown',
        text: '# hi',
      });
      const prompt = await client.getPrompt('greet', { who: 'Ada' });
      assert.equal(prompt.messages[0]?.content.type, 'text');
      pair.assertClean();
      await pair.close();
    });
  });
}

/**
 * The example server in-process (`createExampleServer()`), on every revision, with every frame of
 * both sides checked against that revision's schema: what older revisions get in place of content
 * they cannot carry, and the middleware and per-client tool visibility.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createExampleServer, DEBUG } from '../../examples/server.js';
import type { ProtocolError } from '../../src/protocol/errors.js';
import { featuresOf, REVISIONS } from '../../src/protocol/revisions.js';
import { connectPair } from '../helpers/pair.js';

for (const revision of REVISIONS) {
  const f = featuresOf(revision);
  describe(`example server on ${revision}`, () => {
    test('content the revision cannot carry is downgraded, not dropped', async () => {
      const pair = await connectPair(createExampleServer(), { version: { pin: revision } });
      const { client } = pair;
      const beep = await client.callTool('beep', {});
      if (f.annotations) assert.equal(beep.content[0]?.type, 'audio');
      else assert.match((beep.content[0] as { text: string }).text, /audio content \(audio\/wav\) omitted/);

      const found = await client.callTool('find_notes', { query: 'groceries' });
      assert.deepEqual(
        found.content[1],
        f.structured
          ? {
              type: 'resource_link',
              uri: 'notes://groceries',
              name: 'groceries',
              title: 'Groceries',
              mimeType: 'text/plain',
            }
          : { type: 'text', text: 'Resource: Groceries <notes://groceries>' },
      );

      const sum = await client.callTool('add', { a: 1, b: 2 });
      assert.deepEqual(sum.content, [{ type: 'text', text: '{"sum":3}' }]);
      assert.deepEqual(sum.structuredContent, f.structured ? { sum: 3 } : undefined);

      const { tools } = await client.listTools();
      const echo = tools.find((t) => t.name === 'echo')!;
      assert.equal(echo.title, f.structured ? 'Echo' : undefined);
      assert.equal(echo.icons?.length, f.icons ? 1 : undefined);
      assert.equal(echo.annotations?.readOnlyHint, f.annotations ? true : undefined);
      pair.assertClean();
      await pair.close();
    });

    test('the debug tool is visible only to clients declaring the capability; middleware counts requests', async () => {
      const plain = await connectPair(createExampleServer(), { version: { pin: revision } });
      assert.ok(!(await plain.client.listTools()).tools.some((t) => t.name === 'debug_stats'));
      await assert.rejects(plain.client.callTool('debug_stats', {}), (error: ProtocolError) => {
        assert.equal(error.code, -32602);
        return true;
      });
      plain.assertClean();
      await plain.close();

      const debug = await connectPair(createExampleServer(), {
        version: { pin: revision },
        capabilities: { experimental: { [DEBUG]: {} } },
      });
      assert.ok((await debug.client.listTools()).tools.some((t) => t.name === 'debug_stats'));
      const stats = await debug.client.callTool('debug_stats', {});
      // initialize is the connection's business, not a served request: only discover is counted.
      const opening = f.modern ? { 'server/discover': 1 } : {};
      const expected = { ...opening, 'tools/list': 1, 'tools/call': 1 };
      if (f.structured) assert.deepEqual(stats.structuredContent, { served: expected });
      else assert.deepEqual(JSON.parse((stats.content[0] as { text: string }).text), { served: expected });
      debug.assertClean();
      await debug.close();
    });
  });
}

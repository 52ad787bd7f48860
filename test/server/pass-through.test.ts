/**
 * Pass-through items (`registerPassThroughTool` and its siblings): listed as given, answered by the
 * forward with the params as they came (no schema compiled, no argument checked), and still the
 * server's own for admission, `filterList`, scopes, middleware and the encoder, in both eras.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server } from '../../src/extensions/server.js';
import type { Params } from '../../src/protocol/jsonrpc.js';
import type { Tool } from '../../src/protocol/types.js';
import { connectPair } from '../helpers/pair.js';
import { protocolFailure } from '../helpers/rejects.js';

/** An inputSchema the local tool builder refuses (a header name HTTP cannot carry). */
const UNCOMPILABLE: Tool['inputSchema'] = {
  type: 'object',
  properties: { region: { type: 'string', 'x-mcp-header': 'bad header name' } },
};

function passThroughServer() {
  const server = new Server({ name: 'proxy', version: '1.0.0' });
  const forwarded: Params[] = [];
  const tool: Tool = {
    name: 'remote_echo',
    description: 'Echoes, elsewhere.',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    annotations: { readOnlyHint: true },
    _meta: { 'example.com/origin': 'upstream' },
  };
  const handle = server.registerPassThroughTool(tool, (params) => {
    forwarded.push(params);
    return { content: [{ type: 'text', text: `echo ${JSON.stringify(params.arguments)}` }] };
  });
  server.registerPassThroughTool({ name: 'odd_schema', inputSchema: UNCOMPILABLE }, () => ({
    content: [{ type: 'text', text: 'odd ran' }],
  }));
  server.registerPassThroughPrompt(
    { name: 'remote_prompt', arguments: [{ name: 'who', required: true }] },
    (params) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `hi ${JSON.stringify(params.arguments)}` } }],
    }),
    { complete: (params) => ({ completion: { values: [`${params.argument.value}-done`] } }) },
  );
  server.registerPassThroughResource({ uri: 'remote://a', name: 'a' }, (uri) => ({
    contents: [{ uri, text: 'resource a' }],
  }));
  server.registerPassThroughTemplate({ uriTemplate: 'remote://items/{id}', name: 'items' }, (uri) => ({
    contents: [{ uri, text: `item at ${uri}` }],
  }));
  return { server, forwarded, tool, handle };
}

for (const version of ['auto', 'legacy'] as const) {
  describe(`pass-through items (${version === 'auto' ? '2026-07-28' : 'legacy'} client)`, () => {
    test('listed exactly as given; calls reach the forward unchecked, with the params as sent', async () => {
      const { server, forwarded, tool } = passThroughServer();
      const pair = await connectPair(server, { version });
      const { tools } = await pair.client.listTools();
      assert.deepEqual(
        tools.find((t) => t.name === 'remote_echo'),
        tool,
      );
      assert.deepEqual(
        tools.find((t) => t.name === 'odd_schema')?.inputSchema,
        UNCOMPILABLE,
        'a schema the local compiler refuses is shown, not dropped',
      );
      // `n` must be an integer by the schema: the forward is the one to say so, not this server.
      const result = await pair.client.callTool('remote_echo', { n: 'not a number' });
      assert.deepEqual(result.content, [{ type: 'text', text: 'echo {"n":"not a number"}' }]);
      assert.deepEqual(forwarded.at(-1)?.arguments, { n: 'not a number' });
      assert.equal(forwarded.at(-1)?.name, 'remote_echo');
      assert.equal((await pair.client.callTool('odd_schema', { region: 'x' })).isError, undefined);

      const prompt = await pair.client.getPrompt('remote_prompt', {});
      assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'hi {}' });
      const completion = await pair.client.complete({
        ref: { type: 'ref/prompt', name: 'remote_prompt' },
        argument: { name: 'who', value: 'ad' },
      });
      assert.deepEqual(completion.completion.values, ['ad-done']);
      assert.deepEqual((await pair.client.readResource('remote://a')).contents, [
        { uri: 'remote://a', text: 'resource a' },
      ]);
      // The template's URI is the forward's to check: even a climbing one reaches it.
      const read = await pair.client.readResource('remote://items/..%2Fetc');
      assert.equal((read.contents[0] as { text: string }).text, 'item at remote://items/..%2Fetc');
      pair.assertClean();
      await pair.close();
    });

    test('filterList hides a pass-through tool, prompt and resource in lists and refuses them as unknown', async () => {
      const { server, forwarded } = passThroughServer();
      server.filterList('tools', (t) => t.name !== 'remote_echo');
      server.filterList('prompts', (p) => p.name !== 'remote_prompt');
      server.filterList('resources', (r) => r.uri !== 'remote://a');
      server.filterList('resourceTemplates', (t) => t.name !== 'items');
      const pair = await connectPair(server, { version });
      assert.ok(!(await pair.client.listTools()).tools.some((t) => t.name === 'remote_echo'));
      const hidden = await protocolFailure(() => pair.client.callTool('remote_echo', { n: 1 }));
      const unknown = await protocolFailure(() => pair.client.callTool('no_such_tool', { n: 1 }));
      assert.equal(hidden.code, unknown.code);
      assert.equal(hidden.message.replace('remote_echo', 'X'), unknown.message.replace('no_such_tool', 'X'));
      assert.equal(forwarded.length, 0, 'the forward never ran');
      await protocolFailure(() => pair.client.getPrompt('remote_prompt', {}));
      await protocolFailure(() =>
        pair.client.complete({
          ref: { type: 'ref/prompt', name: 'remote_prompt' },
          argument: { name: 'who', value: 'a' },
        }),
      );
      await protocolFailure(() => pair.client.readResource('remote://a'));
      await protocolFailure(() => pair.client.readResource('remote://items/1'));
      await pair.close();
    });

    test('middleware sees pass-through calls and their results, and may replace them', async () => {
      const { server } = passThroughServer();
      const seen: string[] = [];
      server.use((next) => async (method, params, ctx) => {
        const result = (await next(method, params, ctx)) as Record<string, unknown>;
        if (method === 'tools/call') {
          seen.push(`${params.name as string}: ${JSON.stringify(result.content)}`);
          return { content: [{ type: 'text', text: 'replaced' }] };
        }
        return result;
      });
      const pair = await connectPair(server, { version });
      const result = await pair.client.callTool('remote_echo', { n: 2 });
      assert.deepEqual(result.content, [{ type: 'text', text: 'replaced' }]);
      assert.deepEqual(seen, ['remote_echo: [{"type":"text","text":"echo {\\"n\\":2}"}]']);
      pair.assertClean();
      await pair.close();
    });
  });
}

test('a handle replaces the whole descriptor (fields the new one lacks are gone), renames, and removes', async () => {
  const { server, handle } = passThroughServer();
  // Uncached: the client lists again after each change instead of trusting the cache hint.
  const pair = await connectPair(server, { cache: false });
  handle.update({ name: 'renamed', inputSchema: { type: 'object' } });
  const tools = (await pair.client.listTools()).tools;
  assert.deepEqual(
    tools.find((t) => t.name === 'renamed'),
    { name: 'renamed', inputSchema: { type: 'object' } },
  );
  assert.ok(!tools.some((t) => t.name === 'remote_echo'));
  assert.equal(handle.descriptor.name, 'renamed');
  assert.ok(Object.isFrozen(handle.descriptor), 'what every caller shares cannot be changed');
  handle.disable();
  assert.ok(!(await pair.client.listTools()).tools.some((t) => t.name === 'renamed'));
  handle.enable();
  handle.remove();
  assert.ok(!(await pair.client.listTools()).tools.some((t) => t.name === 'renamed'));
  assert.throws(
    () =>
      server.registerPassThroughTool({ name: '', inputSchema: { type: 'object' } }, () => ({ content: [] })),
    /non-empty string key/,
  );
  await pair.close();
});

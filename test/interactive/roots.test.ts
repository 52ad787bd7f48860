import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import type { ServerConnection } from '../../src/server/connection.js';
import { connectPair } from '../helpers/pair.js';

const textOf = (result: { content: { type: string }[] }) =>
  (result.content[0] as { type: 'text'; text: string }).text;
const pin = (revision: Revision) => ({ version: { pin: revision } });

function rootsServer() {
  const server = new Server({ name: 'roots', version: '1.0.0' });
  server.registerTool('where', {}, async (_args, ctx) => {
    const roots = await ctx.listRoots();
    return roots.map((r) => `${r.name ?? '?'}=${r.uri}`).join(' ') || '(none)';
  });
  return server;
}

for (const revision of REVISIONS) {
  describe(`roots on ${revision}`, () => {
    test('a fixed list, then a provider asked on every request', async () => {
      const pair = await connectPair(rootsServer(), pin(revision), (client) =>
        client.setRoots([{ uri: 'file:///repo', name: 'repo', _meta: { 'example.com/x': 1 } }]),
      );
      assert.equal(textOf(await pair.client.callTool('where', {})), 'repo=file:///repo');
      let asked = 0;
      pair.client.setRoots(() => {
        asked++;
        return [{ uri: `file:///dir${asked}` }];
      });
      assert.equal(textOf(await pair.client.callTool('where', {})), '?=file:///dir1');
      assert.equal(textOf(await pair.client.callTool('where', {})), '?=file:///dir2');
      pair.assertClean();
      await pair.close();
    });

    test('no roots capability, no roots request', async () => {
      const pair = await connectPair(rootsServer(), pin(revision));
      if (revision === '2026-07-28') {
        await assert.rejects(pair.client.callTool('where', {}), (error: unknown) => {
          assert.ok(error instanceof ProtocolError);
          assert.equal(error.code, ErrorCode.MissingRequiredClientCapability);
          assert.deepEqual(error.data, { requiredCapabilities: { roots: {} } });
          return true;
        });
      } else {
        assert.equal((await pair.client.callTool('where', {})).isError, true);
      }
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('roots changes', () => {
  test('legacy: setRoots after connect tells the server, which raises rootsListChanged', async () => {
    const server = rootsServer();
    const changes: ServerConnection[] = [];
    const off = server.on('rootsListChanged', ({ connection }) => changes.push(connection));
    const pair = await connectPair(server, pin('2025-11-25'), (client) => client.setRoots([]));
    pair.client.setRoots([{ uri: 'file:///new' }]);
    assert.equal(textOf(await pair.client.callTool('where', {})), '?=file:///new');
    assert.equal(changes.length, 1);
    off();
    pair.client.setRoots([]);
    await pair.client.callTool('where', {});
    assert.equal(changes.length, 1);
    pair.assertClean();
    await pair.close();
  });

  test('modern: capabilities follow the handlers registered after connect', async () => {
    const pair = await connectPair(rootsServer(), pin('2026-07-28'));
    await assert.rejects(pair.client.callTool('where', {}), ProtocolError);
    pair.client.setRoots([{ uri: 'file:///late' }]);
    assert.equal(textOf(await pair.client.callTool('where', {})), '?=file:///late');
    pair.client.setRoots(null);
    await assert.rejects(pair.client.callTool('where', {}), ProtocolError);
    pair.assertClean();
    await pair.close();
  });
});

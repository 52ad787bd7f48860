/** The tap that schema-checks our server behind an official client must itself catch violations. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { OfficialClientTap, type TappableTransport } from './helpers/official-client-tap.js';

function fakeTransport(): TappableTransport & { deliver(message: unknown): void } {
  const transport = {
    pid: null,
    onmessage: undefined as ((message: any) => void) | undefined,
    send: async () => {},
    deliver: (message: unknown) => transport.onmessage?.(message),
  };
  return transport;
}

test('learns the revision from initialize and flags what the server sends beyond it', async () => {
  const tap = new OfficialClientTap(await loadSchemaCatalog());
  const transport = tap.attach(fakeTransport(), 'fake');
  const delivered: unknown[] = [];
  transport.onmessage = (message) => delivered.push(message);
  const initialize = {
    protocolVersion: '2024-11-05',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
  };
  await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize });
  transport.deliver({
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 's', version: '1' } },
  });
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const tool = { name: 'x', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } };
  transport.deliver({ jsonrpc: '2.0', id: 1, result: { tools: [tool] } });

  assert.equal(delivered.length, 2, 'the client still receives every message');
  assert.deepEqual(tap.revisions(), ['2024-11-05']);
  assert.deepEqual(
    tap.violations().map((v) => [v.sender, v.pointer]),
    [['server', '/result/tools/0/execution']],
  );
  assert.throws(() => tap.assertClean(), /execution/);
});

test("reports the official client's violations without failing on them", async () => {
  const tap = new OfficialClientTap(await loadSchemaCatalog());
  const transport = tap.attach(fakeTransport(), 'fake');
  transport.onmessage = () => {};
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta, bogus: 1 } });
  assert.deepEqual(
    tap.peerViolations().map((v) => v.pointer),
    ['/params/bogus'],
  );
  tap.assertClean();
});

/** `switchboard check` flags each seeded bug of JSON-RPC envelope, the schema and stdout with its requirement (see detection.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missedBugs } from './detection.js';

test('switchboard check flags every seeded bug of JSON-RPC envelope, the schema and stdout', async () => {
  assert.deepEqual(await missedBugs(['jsonrpc', 'schema', 'stdio']), []);
});

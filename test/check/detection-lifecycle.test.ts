/** `switchboard check` flags each seeded bug of lifecycle, capabilities and ping with its requirement (see detection.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missedBugs } from './detection.js';

test('switchboard check flags every seeded bug of lifecycle, capabilities and ping', async () => {
  assert.deepEqual(await missedBugs(['lifecycle', 'capabilities', 'ping']), []);
});

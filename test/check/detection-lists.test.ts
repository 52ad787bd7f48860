/** `switchboard check` flags each seeded bug of pagination, logging and the 2026-07-28 result fields with its requirement (see detection.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missedBugs } from './detection.js';

test('switchboard check flags every seeded bug of pagination, logging and the 2026-07-28 result fields', async () => {
  assert.deepEqual(await missedBugs(['pagination', 'logging', 'envelope', 'caching']), []);
});

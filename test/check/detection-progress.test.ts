/** `switchboard check` flags each seeded bug of progress, cancellation and subscriptions with its requirement (see detection.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missedBugs } from './detection.js';

test('switchboard check flags every seeded bug of progress, cancellation and subscriptions', async () => {
  assert.deepEqual(await missedBugs(['progress', 'cancellation', 'subscriptions']), []);
});

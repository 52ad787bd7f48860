/** `switchboard check --client` flags the third part of the hand-written client's seeded bugs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missedClientBugs, PARTS } from './client-detection.js';

test('switchboard check --client flags each seeded bug (third part) with its rule', async () => {
  assert.deepEqual(await missedClientBugs(PARTS[2]), []);
});

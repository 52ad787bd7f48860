/** `switchboard check` flags each seeded bug of resources, prompts and completion with its requirement (see detection.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missedBugs } from './detection.js';

test('switchboard check flags every seeded bug of resources, prompts and completion', async () => {
  assert.deepEqual(await missedBugs(['resources', 'prompts', 'completion']), []);
});

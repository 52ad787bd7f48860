/**
 * The nesting check every message passes (protocol/json-depth.ts), property-tested against a plain
 * recursive depth count: random JSON, random limits (shallow ones cross the recursion/stack switch),
 * and nestings far deeper than any call stack.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { exceedsDepth, MAX_JSON_DEPTH } from '../../src/protocol/json-depth.js';

/** Levels of objects and arrays (a scalar is 0, `{}` is 1). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/** `[[[...]]]` nested `levels` deep, built without recursion. */
function nested(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

test('exceedsDepth agrees with the depth of random JSON, for any limit', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 14 }), (value, limit) => {
      assert.equal(exceedsDepth(value, limit), depthOf(value) > limit);
    }),
    { numRuns: 500 },
  );
});

test('exceedsDepth around the switch from recursion to an explicit stack, and far past any stack', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 0, max: 80 }), (levels, limit) => {
      assert.equal(exceedsDepth(nested(levels), limit), levels > limit);
      // Deep on one side only: the check must find it wherever it is.
      assert.equal(exceedsDepth({ a: 1, b: [2, { c: nested(levels) }] }, limit), levels + 3 > limit);
    }),
  );
  assert.equal(exceedsDepth(nested(MAX_JSON_DEPTH)), false);
  assert.equal(exceedsDepth(nested(MAX_JSON_DEPTH + 1)), true);
  assert.equal(exceedsDepth(nested(200_000)), true);
  assert.equal(exceedsDepth(nested(200_000), 300_000), false);
});

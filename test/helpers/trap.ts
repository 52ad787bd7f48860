/**
 * Fails the test file if any promise rejection goes unhandled while it runs (DESIGN principle 4: no
 * rejection escapes an awaited call). Call once at the top level of a test file.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';

export function trapUnhandledRejections(): void {
  const escaped: unknown[] = [];
  const trap = (reason: unknown) => escaped.push(reason);
  process.on('unhandledRejection', trap);
  after(async () => {
    // Unhandled rejections are reported at the end of a macrotask: let the last ones surface.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 0));
    process.off('unhandledRejection', trap);
    assert.deepEqual(escaped, [], 'a promise rejection went unhandled');
  });
}

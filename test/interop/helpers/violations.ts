/** Peer (official SDK) violations are reported, not failed on: one diagnostic line per kind of problem. */
import type { SchemaViolation } from '../../../src/testing/schema-violation.js';

export function summarizeViolations(violations: readonly SchemaViolation[]): string[] {
  const counts = new Map<string, number>();
  for (const v of violations) {
    const key = `${v.revision} ${v.sender} → ${v.definition} ${v.pointer.replace(/\/\d+(?=\/|$)/g, '/*')}: ${v.reason}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => (n > 1 ? `${key} (×${n})` : key));
}

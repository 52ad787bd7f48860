/**
 * The check report explains a result that breaks an `anyOf` of the schema by naming each branch
 * with why it failed, and shows a `null` result as `null` (test/fixtures/check-bad-results.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkServer } from 'switchboard/check';

const SERVER = fileURLToPath(new URL('../fixtures/check-bad-results.js', import.meta.url));

test('schema.server-messages and tools.output-schema name every branch of a failed anyOf; a null result is null', async () => {
  const report = await checkServer(
    { kind: 'stdio', command: process.execPath, args: [SERVER] },
    { revisions: ['2025-06-18'], timeoutMs: 5_000 },
  );
  const entry = report.checks.find((c) => c.id === 'schema.server-messages');
  assert.equal(entry?.status, 'failed', JSON.stringify(entry));
  const evidence = (entry.evidence ?? []).join('\n');
  assert.match(
    evidence,
    /ReadResourceResult \(resources\/read, id \d+\): \/result\/contents\/0: value matches none of TextResourceContents, BlobResourceContents in revision 2025-06-18 \(TextResourceContents: missing "text"; BlobResourceContents: missing "blob"\)/,
  );
  assert.match(
    evidence,
    /\/result\/content\/0: value matches none of TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource in revision 2025-06-18 \(TextContent: missing "type"; .*; 2 more\); value: \{"text":"found"\}/,
  );
  assert.match(
    evidence,
    /CallToolResult \(tools\/call, id \d+\): \/result: expected object, got null; value: null/,
  );
  const output = report.checks.find((c) => c.id === 'tools.output-schema');
  assert.match(
    (output?.evidence ?? []).join('\n'),
    /"shape": does not match any of the 2 allowed alternatives \(#1 "Circle": r: required; #2 "Square": side: required\)/,
  );
});

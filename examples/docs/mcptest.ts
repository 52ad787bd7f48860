import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSummary, runTestFile } from 'switchboard/mcptest';

// The repository's example server over stdio (any command line, mcpServers entry or URL will do).
const server = fileURLToPath(new URL('../server.js', import.meta.url));
const file = join(mkdtempSync(join(tmpdir(), 'mcptest-')), 'example.mcptest.yaml');
writeFileSync(
  file,
  `server: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}, --stdio] }
tests:
  - name: adds two numbers
    call: add
    args: { a: 2, b: 3 }
    expect:
      structuredContent: { sum: 5 }
  - name: refuses a call without b
    call: add
    args: { a: 2 }
    expect: { outcome: isError }
`,
);

// In node:test or Vitest, wrap this in test(...): the assertion fails with the runner's own account.
const report = await runTestFile(file);
assert.equal(report.summary.passed, report.summary.total, formatSummary(report));
for (const r of report.results) console.log(`${r.status}: ${r.name}`);
console.log(report.summary);

// Output:
// passed: adds two numbers
// passed: refuses a call without b
// { passed: 2, failed: 0, notRun: 0, total: 2 }

/**
 * `switchboard check` flags every seeded bug of the Skills extension (SEP-2640) with its requirement
 * (see detection.ts), and draws no false verdict from a clean skills server nobody here wrote: the
 * working group's reference implementation (`@olaservo/ext-skills` on the official v2 SDK).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkServer } from 'switchboard/check';
import { missedBugs } from './detection.js';

const reference = fileURLToPath(new URL('../fixtures/skills-reference-server.js', import.meta.url));
const noSkills = fileURLToPath(new URL('../fixtures/official-v2-server.js', import.meta.url));

test('switchboard check flags every seeded bug of the Skills extension', async () => {
  assert.deepEqual(await missedBugs(['skills']), []);
});

test('the reference implementation passes every rule of the extension, in both eras, its messages valid', async () => {
  const report = await checkServer(
    { kind: 'stdio', command: process.execPath, args: [reference] },
    { revisions: ['2026-07-28', '2025-06-18'], only: ['skills', 'schema'] },
  );
  const skills = report.checks.filter((c) => c.area === 'skills');
  assert.deepEqual(
    skills
      .filter((c) => c.status !== 'passed' && c.status !== 'not-tested')
      .map((c) => `${c.id} ${c.revision}: ${c.message}`),
    [],
  );
  assert.ok(skills.filter((c) => c.status === 'passed').length >= 30);
  // Its answers to skills/list, skills/get and resources/directory/read are valid against the merged schema.
  const schema = report.checks.filter((c) => c.id === 'schema.server-messages');
  assert.deepEqual(
    schema.filter((c) => c.status !== 'passed').map((c) => `${c.revision}: ${c.message}`),
    [],
  );
});

test('a server that does not declare the extension has none of its rules, in both eras', async () => {
  const report = await checkServer(
    { kind: 'stdio', command: process.execPath, args: [noSkills] },
    { revisions: ['2026-07-28', '2025-11-25'], only: ['skills'] },
  );
  assert.equal(report.checks.length, 42);
  for (const c of report.checks) {
    assert.equal(c.status, 'not-applicable', c.id);
    assert.equal(c.message, 'the server does not declare the io.modelcontextprotocol/skills extension');
  }
});

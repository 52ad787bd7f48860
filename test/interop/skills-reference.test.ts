/**
 * The Skills extension against the working group's reference implementation (`@olaservo/ext-skills`,
 * the TypeScript SDK of modelcontextprotocol/ext-skills, on the official v2 SDK), over real stdio
 * pipes, in both eras: its client functions drive the Switchboard example server (whose skill they
 * list, get, read with their own digest and frontmatter verification, and browse), and the
 * Switchboard Client drives its server (the skills test directory), verifying every file it reads.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  getSkill,
  listSkills,
  readDirectory,
  readSkill,
  serverSupportsDirectoryRead,
} from '@olaservo/ext-skills/client';
import { Client } from '../../src/extensions/client.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';

const example = fileURLToPath(new URL('../../examples/server.js', import.meta.url));
const reference = fileURLToPath(new URL('../fixtures/skills-reference-server.js', import.meta.url));

for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
  const era = mode === 'legacy' ? 'legacy' : '2026-07-28';
  describe(`skills, ${era}`, () => {
    test("the reference client lists, gets, reads (verified) and browses the example server's skill", async () => {
      const client = new V2Client(
        { name: 'reference-host', version: '1.0.0' },
        { versionNegotiation: { mode } },
      );
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [example, '--stdio'] }),
      );
      try {
        assert.equal(serverSupportsDirectoryRead(client as never), true);
        const skills = await listSkills(client as never);
        assert.deepEqual(
          skills.map((s) => s.uri),
          ['skill://notes-research/SKILL.md'],
        );
        const entry = await getSkill(client as never, 'skill://notes-research/SKILL.md');
        assert.deepEqual(entry, skills[0]);
        const text = await readSkill(client as never, entry);
        assert.match(text, /^---\nname: notes-research\n/);
        const children = await readDirectory(client as never, 'skill://notes-research');
        assert.deepEqual(
          children.resources.map((c) => [c.uri, c.mimeType]),
          [
            ['skill://notes-research/SKILL.md', 'text/markdown'],
            ['skill://notes-research/references', 'inode/directory'],
          ],
        );
      } finally {
        await client.close();
      }
    });

    test("the Switchboard Client lists, gets, browses and reads (verified) the reference server's skills", async () => {
      const client = new Client(
        { name: 'switchboard-host', version: '1.0.0' },
        { version: mode === 'legacy' ? 'legacy' : mode, skills: true },
      );
      await client.connect(new StdioClientChannel({ command: process.execPath, args: [reference] }));
      try {
        const { skills } = await client.listSkills();
        assert.deepEqual(skills.map((s) => s.uri).sort(), [
          'skill://acme/billing/refunds/SKILL.md',
          'skill://git-workflow/SKILL.md',
          'skill://pdf-processing/SKILL.md',
          'skill://pdf-processing/forms/SKILL.md',
        ]);
        const pdf = await client.getSkill('skill://pdf-processing/SKILL.md');
        assert.equal(pdf.frontmatter.license, 'Apache-2.0');
        assert.ok(Array.isArray(pdf.resources));
        for (const { uri } of pdf.resources) {
          const file = await client.readSkillFile(uri);
          assert.equal(file.uri, uri);
        }
        const templates = await client.readDirectory('skill://pdf-processing/templates');
        assert.ok(templates.resources.some((r) => r.mimeType === 'inode/directory'));
      } finally {
        await client.close();
      }
    });
  });
}

/**
 * The Skills extension on the wire (SEP-2640), both eras: a server given a directory of skills
 * answers `skills/list`, `skills/get` and `resources/directory/read` with exactly the frames the
 * specification shows, each frame also checked against the working group's own result schemas (the
 * zod schemas of `@olaservo/ext-skills`, its TypeScript reference implementation), and serves the
 * files as resources whose bytes match the digests. What the core protocol carries (the handshake
 * with the extension declared, resources/list and resources/read) is checked against each
 * revision's official schema too.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  DirectoryReadResultSchema,
  SkillsGetResultSchema,
  SkillsListResultSchema,
} from '@olaservo/ext-skills/server';
import { Server } from '../../src/extensions/server.js';
import { openWire, type Wire } from '../helpers/wire.js';
import { SKILLS_DIR } from './skills-fixture.js';

const EXTENSION = 'io.modelcontextprotocol/skills';

const digest = (path: string) =>
  `sha256:${createHash('sha256')
    .update(readFileSync(SKILLS_DIR + path))
    .digest('hex')}`;
const size = (path: string) => readFileSync(SKILLS_DIR + path).byteLength;
const file = (path: string) => ({ uri: `skill://${path}`, digest: digest(path), size: size(path) });

function skillsServer(): Server {
  const server = new Server({ name: 'skills', version: '1.0.0' }, { pageSize: 2 });
  server.registerSkills(SKILLS_DIR);
  return server;
}

const ERAS = [
  {
    era: 'legacy (2025-11-25)',
    open: async () => {
      const wire = await openWire(skillsServer());
      const init = await wire.initialize('2025-11-25');
      return {
        wire,
        capabilities: init.capabilities,
        call: (method: string, params?: object) => wire.request(method, { ...params }),
      };
    },
  },
  {
    era: '2026-07-28',
    open: async () => {
      const wire = await openWire(skillsServer());
      const discover = await wire.modern('server/discover');
      return {
        wire,
        capabilities: discover.result.capabilities,
        call: (method: string, params?: object) => wire.modern(method, { ...params }),
      };
    },
  },
] as const;

for (const { era, open } of ERAS) {
  describe(`skills on the wire, ${era}`, () => {
    let wire: Wire;
    let call: (method: string, params?: object) => Promise<Record<string, any>>;
    /** Every page of a list (the server's pageSize is 2). */
    const all = async (method: string, params: object, key: string): Promise<any[]> => {
      const items: any[] = [];
      let cursor: string | undefined;
      do {
        const answer = await call(method, cursor === undefined ? params : { ...params, cursor });
        assert.equal(answer.error, undefined, JSON.stringify(answer.error));
        if (method === 'resources/directory/read') DirectoryReadResultSchema.parse(answer.result);
        items.push(...answer.result[key]);
        cursor = answer.result.nextCursor;
      } while (cursor !== undefined);
      return items;
    };

    test('the extension is declared with directoryRead, beside the resources capability', async () => {
      const opened = await open();
      wire = opened.wire;
      call = opened.call;
      assert.deepEqual(opened.capabilities.extensions?.[EXTENSION], { directoryRead: true });
      assert.ok(opened.capabilities.resources, 'resources capability');
    });

    test('skills/list pages through every skill (nested ones flat), entries whole, in the SEP shape', async () => {
      const skills: unknown[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const answer = await call('skills/list', cursor === undefined ? {} : { cursor });
        assert.equal(answer.error, undefined, JSON.stringify(answer.error));
        SkillsListResultSchema.parse(answer.result);
        if (era === '2026-07-28') {
          assert.equal(answer.result.resultType, 'complete');
          assert.equal(typeof answer.result.ttlMs, 'number');
          assert.ok(['public', 'private'].includes(answer.result.cacheScope));
        }
        skills.push(...answer.result.skills);
        cursor = answer.result.nextCursor;
        pages++;
      } while (cursor !== undefined);
      assert.equal(pages, 2);
      assert.deepEqual(
        skills.map((s: any) => s.uri),
        [
          'skill://acme/billing/refunds/SKILL.md',
          'skill://git-workflow/SKILL.md',
          'skill://pdf-processing/SKILL.md',
          'skill://pdf-processing/forms/SKILL.md',
        ],
      );
      const pdf = skills[2] as any;
      assert.deepEqual(pdf.frontmatter, {
        name: 'pdf-processing',
        description: 'Extract, fill, and assemble PDF documents.',
        license: 'Apache-2.0',
        metadata: { version: '2.1.0' },
      });
      // The nested skill's files are the enclosing skill's supporting files too.
      assert.deepEqual(
        pdf.resources,
        [
          file('pdf-processing/SKILL.md'),
          file('pdf-processing/forms/SKILL.md'),
          file('pdf-processing/references/FORMS.md'),
          file('pdf-processing/scripts/extract.py'),
          file('pdf-processing/templates/invoice.md'),
          file('pdf-processing/templates/logo.png'),
          file('pdf-processing/templates/regional/eu-invoice.md'),
        ].sort((a, b) => (a.uri < b.uri ? -1 : 1)),
      );
      assert.deepEqual((skills[3] as any).resources, [file('pdf-processing/forms/SKILL.md')]);
    });

    test('skills/get answers for a skill; an unknown URI is -32602', async () => {
      const answer = await call('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' });
      SkillsGetResultSchema.parse(answer.result);
      assert.deepEqual(answer.result.skill.resources, [
        file('acme/billing/refunds/SKILL.md'),
        file('acme/billing/refunds/examples/email.md'),
      ]);
      assert.equal(answer.result.nextCursor, undefined);
      const unknown = await call('skills/get', { uri: 'skill://nope/SKILL.md' });
      assert.equal(unknown.error?.code, -32602);
      assert.match(unknown.error.message, /no skill at "skill:\/\/nope\/SKILL.md"/);
      const bad = await call('skills/get', {});
      assert.equal(bad.error?.code, -32602);
    });

    test('resources/directory/read lists direct children, subdirectories as inode/directory', async () => {
      assert.deepEqual(
        await all('resources/directory/read', { uri: 'skill://pdf-processing/templates' }, 'resources'),
        [
          {
            uri: 'skill://pdf-processing/templates/invoice.md',
            name: 'invoice.md',
            mimeType: 'text/markdown',
            size: size('pdf-processing/templates/invoice.md'),
          },
          {
            uri: 'skill://pdf-processing/templates/logo.png',
            name: 'logo.png',
            mimeType: 'image/png',
            size: size('pdf-processing/templates/logo.png'),
          },
          { uri: 'skill://pdf-processing/templates/regional', name: 'regional', mimeType: 'inode/directory' },
        ],
      );
      assert.deepEqual(await all('resources/directory/read', { uri: 'skill://acme' }, 'resources'), [
        { uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' },
      ]);
      for (const uri of [
        'skill://pdf-processing/SKILL.md',
        'skill://pdf-processing/templates/',
        'skill://missing',
      ]) {
        const refused = await call('resources/directory/read', { uri });
        assert.equal(refused.error?.code, -32602, uri);
      }
    });

    test('files are resources: SKILL.md as text/markdown with the frontmatter name, a PNG as a blob, bytes as digested', async () => {
      const list = await all('resources/list', {}, 'resources');
      assert.equal(list.length, 10);
      const skillMd = list.find((r: any) => r.uri === 'skill://git-workflow/SKILL.md');
      assert.deepEqual(
        { name: skillMd.name, description: skillMd.description, mimeType: skillMd.mimeType },
        {
          name: 'git-workflow',
          description: "Follow this team's Git conventions for branching and commits.",
          mimeType: 'text/markdown',
        },
      );
      const text = await call('resources/read', { uri: 'skill://git-workflow/SKILL.md' });
      assert.equal(text.result.contents[0].text, readFileSync(`${SKILLS_DIR}git-workflow/SKILL.md`, 'utf8'));
      const png = await call('resources/read', { uri: 'skill://pdf-processing/templates/logo.png' });
      const bytes = Buffer.from(png.result.contents[0].blob, 'base64');
      assert.equal(
        `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        digest('pdf-processing/templates/logo.png'),
      );
      assert.equal(png.result.contents[0].mimeType, 'image/png');
      await wire.close();
    });
  });
}

for (const revision of ['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28'] as const) {
  test(`${revision}: the handshake declaring the extension and the skill resources keep the official schema`, async () => {
    const wire = await openWire(skillsServer(), { check: true });
    const modern = revision === '2026-07-28';
    const call = (method: string, params: Record<string, unknown> = {}) =>
      modern ? wire.modern(method, params) : wire.request(method, params);
    const capabilities = modern
      ? (await wire.modern('server/discover')).result.capabilities
      : (await wire.initialize(revision)).capabilities;
    assert.deepEqual(capabilities.extensions, { [EXTENSION]: { directoryRead: true } });
    assert.ok((await call('resources/list')).result.resources.length > 0);
    const read = await call('resources/read', { uri: 'skill://pdf-processing/templates/logo.png' });
    assert.equal(read.result.contents[0].mimeType, 'image/png');
    wire.assertClean();
    await wire.close();
  });
}

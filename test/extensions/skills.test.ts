/**
 * The Skills extension through Switchboard's own API: registration checks every SKILL.md (errors
 * name the file and the Agent Skills rule), one skill from disk or memory, prefixes, conflicts,
 * watching (a changed skill is served, list_changed goes out, a broken edit keeps the last good
 * skills); the Client lists, gets, browses and reads with verification, and refuses content that
 * does not match its entry.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { SkillFileError } from '../../src/extensions/skills/frontmatter.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { SKILLS_DIR } from './skills-fixture.js';

const scratch = mkdtempSync(join(tmpdir(), 'switchboard-skills-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;

/** A fresh directory holding `files` (path → text). */
function tree(files: Record<string, string>): string {
  const dir = join(scratch, `t${n++}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const skillMd = (name: string, description = 'Does a thing.', extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\nBody.\n`;

async function connected(server: Server, version: 'legacy' | 'modern', options = {}): Promise<Client> {
  const [a, b] = createLinkedChannels();
  server.connect(b);
  const client = new Client(
    { name: 'skills-test', version: '1' },
    { version: version === 'modern' ? { pin: '2026-07-28' } : 'legacy', ...options },
  );
  await client.connect(a);
  return client;
}

describe('registration checks each SKILL.md against the Agent Skills rules', () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['no frontmatter', { 'a/SKILL.md': '# just markdown\n' }, 'frontmatter', /first line must be "---"/],
    ['broken YAML', { 'a/SKILL.md': '---\nname: [a\n---\n' }, 'yaml', /not valid YAML/],
    [
      'no name',
      { 'a/SKILL.md': '---\ndescription: x\n---\n' },
      'name',
      /needs a "name" string \(here missing\)/,
    ],
    [
      'capitals',
      { 'Git/SKILL.md': skillMd('Git_Flow') },
      'name',
      /lowercase letters a-z, digits and hyphens; e\.g\. "git-flow"/,
    ],
    ['leading hyphen', { '-a/SKILL.md': skillMd('-a') }, 'name', /must not start or end with a hyphen/],
    ['double hyphen', { 'a--b/SKILL.md': skillMd('a--b') }, 'name', /two hyphens in a row/],
    [
      '65 characters',
      { [`${'a'.repeat(65)}/SKILL.md`]: skillMd('a'.repeat(65)) },
      'name',
      /65 characters long/,
    ],
    [
      'name not the directory',
      { 'b/SKILL.md': skillMd('a') },
      'name-directory',
      /must equal its directory's name, "b"/,
    ],
    ['no description', { 'a/SKILL.md': '---\nname: a\n---\n' }, 'description', /non-empty "description"/],
    [
      'long description',
      { 'a/SKILL.md': skillMd('a', 'x'.repeat(1025)) },
      'description',
      /1025 characters; at most 1024/,
    ],
    [
      'metadata not strings',
      { 'a/SKILL.md': skillMd('a', 'd', 'metadata:\n  n: 1\n') },
      'metadata',
      /string values/,
    ],
    ['duplicate key', { 'a/SKILL.md': skillMd('a', 'd', 'name: b\n') }, 'yaml', /not valid YAML/],
  ];
  for (const [what, files, rule, message] of cases) {
    test(what, () => {
      const dir = tree(files);
      const server = new Server({ name: 's', version: '1' });
      assert.throws(
        () => server.registerSkills(dir),
        (error: unknown) => {
          assert.ok(error instanceof SkillFileError, String(error));
          assert.equal(error.rule, rule);
          assert.ok(error.message.startsWith(join(dir, Object.keys(files)[0]!)), error.message);
          assert.match(error.message, message);
          assert.match(error.message, new RegExp(`Agent Skills rule "${rule}"`));
          return true;
        },
      );
    });
  }

  test('a directory without skills, a missing one, and two registrations serving one URI are errors', () => {
    const server = new Server({ name: 's', version: '1' });
    assert.throws(() => server.registerSkills(tree({ 'notes.txt': 'x' })), /holds no skill/);
    assert.throws(() => server.registerSkills(join(scratch, 'nowhere')), /does not exist/);
    server.registerSkills(SKILLS_DIR);
    assert.throws(
      () => server.registerSkill(join(SKILLS_DIR, 'git-workflow')),
      /Two registrations serve skill:\/\/git-workflow\/SKILL\.md/,
    );
    assert.throws(
      () => server.registerSkills(tree({ 'SKILL.md': skillMd('x') })),
      /registerSkill\(directory\)/,
    );
  });
});

describe('serving skills', () => {
  test('one skill from disk and one from memory, under prefixes; the client lists, gets and reads them verified, both eras', async () => {
    for (const version of ['legacy', 'modern'] as const) {
      const server = new Server({ name: 's', version: '1' });
      server.registerSkill(join(SKILLS_DIR, 'acme/billing/refunds'), { prefix: 'acme/billing' });
      const inline = server.registerSkill(
        {
          name: 'hello',
          files: { 'SKILL.md': skillMd('hello', 'Says hello.'), 'data/hi.bin': new Uint8Array([0, 255, 1]) },
        },
        { prefix: 'demo' },
      );
      assert.deepEqual(inline.skills, ['skill://demo/hello/SKILL.md']);
      const client = await connected(server, version);
      const { skills } = await client.listSkills();
      assert.deepEqual(
        skills.map((s) => s.uri),
        ['skill://acme/billing/refunds/SKILL.md', 'skill://demo/hello/SKILL.md'],
      );
      const md = await client.readSkillFile('skill://demo/hello/SKILL.md');
      assert.equal(md.text, skillMd('hello', 'Says hello.'));
      const bin = await client.readSkillFile('skill://demo/hello/data/hi.bin');
      assert.deepEqual([...bin.bytes], [0, 255, 1]);
      assert.equal(bin.mimeType, 'application/octet-stream');
      assert.deepEqual(
        (await client.getSkill('skill://acme/billing/refunds/SKILL.md')).frontmatter.name,
        'refunds',
      );
      assert.deepEqual((await client.readDirectory('skill://demo')).resources, [
        { uri: 'skill://demo/hello', name: 'hello', mimeType: 'inode/directory' },
      ]);
      await assert.rejects(client.getSkill('skill://demo/nope/SKILL.md'), /serves no skill/);
      await client.close();
    }
  });

  test('readSkillFile refuses content that does not match the entry: bytes, an unlisted file, frontmatter', async () => {
    const server = new Server({ name: 's', version: '1' });
    server.registerSkills(SKILLS_DIR);
    let tamper: ((uri: string, result: any) => any) | undefined;
    server.intercept('resources/read', async (params, _ctx, next) => {
      const result = await next(params);
      return tamper ? tamper(params.uri as string, result) : result;
    });
    const client = await connected(server, 'modern');
    await assert.rejects(
      client.readSkillFile('skill://git-workflow/x.md'),
      /No skill entry this client holds lists/,
    );
    await client.listSkills();
    tamper = (uri, result) => ({
      ...result,
      contents: [{ uri, mimeType: 'text/markdown', text: `${result.contents[0].text}!` }],
    });
    await assert.rejects(
      client.readSkillFile('skill://pdf-processing/references/FORMS.md'),
      (error: unknown) => {
        assert.ok(error instanceof SwitchboardError && error.code === 'INVALID_RESULT');
        assert.match(
          error.message,
          /FORMS\.md failed verification: \d+ bytes arrived, the entry says \d+.*getSkill/,
        );
        return true;
      },
    );
    tamper = (uri, result) => {
      const text: string = result.contents[0].text;
      return { ...result, contents: [{ uri, mimeType: 'text/markdown', text: text.replace('a', 'b') }] };
    };
    await assert.rejects(
      client.readSkillFile('skill://git-workflow/SKILL.md'),
      /its digest is sha256:[0-9a-f]{64}, the entry says/,
    );
    tamper = undefined;
    const file = await client.readSkillFile('skill://pdf-processing/forms/SKILL.md');
    assert.equal(
      file.entry.uri,
      'skill://pdf-processing/forms/SKILL.md',
      'the deepest skill listing the file',
    );
    await client.close();
  });

  test('readDirectory and listSkills need the server to declare the extension', async () => {
    const client = await connected(new Server({ name: 'plain', version: '1' }), 'modern');
    await assert.rejects(
      client.listSkills(),
      (e: unknown) => e instanceof SwitchboardError && e.code === 'CAPABILITY_MISSING',
    );
    await assert.rejects(
      client.readDirectory('skill://x'),
      /does not declare the io\.modelcontextprotocol\/skills extension/,
    );
    await client.close();
  });

  test('a client with skills: true declares the extension, on 2026-07-28 requests and in initialize', async () => {
    const seen: unknown[] = [];
    for (const version of ['legacy', 'modern'] as const) {
      const server = new Server({ name: 's', version: '1' });
      server.registerSkills(SKILLS_DIR);
      server.use((next) => async (method, params, ctx) => {
        if (method === 'skills/list') seen.push(ctx.client.capabilities.extensions);
        return next(method, params, ctx);
      });
      const client = await connected(server, version, { skills: true });
      await client.listSkills();
      await client.close();
    }
    assert.deepEqual(seen, [
      { 'io.modelcontextprotocol/skills': {} },
      { 'io.modelcontextprotocol/skills': {} },
    ]);
  });

  test('a client that does not declare the extension is answered alike, in both eras (SEP-2640 asks the server to declare it, not the client)', async () => {
    for (const version of ['legacy', 'modern'] as const) {
      const server = new Server({ name: 's', version: '1' });
      server.registerSkills(SKILLS_DIR);
      const declared: unknown[] = [];
      server.use((next) => async (method, params, ctx) => {
        if (method.startsWith('skills/') || method === 'resources/directory/read')
          declared.push(ctx.client.capabilities.extensions?.['io.modelcontextprotocol/skills']);
        return next(method, params, ctx);
      });
      const answers = [];
      for (const skills of [true, false]) {
        const client = await connected(server, version, { skills });
        const { skills: entries } = await client.listSkills();
        const entry = await client.getSkill(entries[0]!.uri);
        const children = await client.readDirectory(entries[0]!.uri.replace(/\/SKILL\.md$/, ''));
        answers.push({ entries, entry, children });
        await client.close();
      }
      assert.deepEqual(answers[1], answers[0], version);
      assert.ok(answers[0]!.entries.length > 0);
      // The declaring client's three requests carried the declaration; the other's did not.
      assert.deepEqual(declared, [{}, {}, {}, undefined, undefined, undefined], version);
    }
  });
});

describe('watching a directory', () => {
  test('an added skill is served and announced; a broken edit keeps the last good skills and is reported', async () => {
    const dir = join(scratch, 'watched');
    cpSync(join(SKILLS_DIR, 'git-workflow'), join(dir, 'git-workflow'), { recursive: true });
    const errors: Error[] = [];
    const server = new Server(
      { name: 's', version: '1' },
      { logger: { error: (e: Error) => errors.push(e), warn() {}, info() {}, debug() {} } as never },
    );
    const registration = server.registerSkills(dir, { watch: true });
    const client = await connected(server, 'legacy');
    const changed = () =>
      new Promise<void>((resolve) => {
        const off = client.on('notifications/resources/list_changed', () => {
          off();
          resolve();
        });
      });
    let announced = changed();
    mkdirSync(join(dir, 'second'));
    writeFileSync(join(dir, 'second', 'SKILL.md'), skillMd('second'));
    await announced;
    // The watch may fire once per event burst; wait until the new skill is there.
    while (registration.skills.length < 2) await changed();
    assert.deepEqual(
      (await client.listSkills()).skills.map((s) => s.uri),
      ['skill://git-workflow/SKILL.md', 'skill://second/SKILL.md'],
    );
    const reported = new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (errors.length > 0) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    writeFileSync(join(dir, 'second', 'SKILL.md'), skillMd('Second'));
    await reported;
    assert.match(errors[0]!.message, /second\/SKILL\.md: the name "Second"/);
    assert.equal((await client.listSkills()).skills.length, 2, 'the last good skills stay served');
    announced = changed();
    registration.remove();
    await announced;
    await assert.rejects(client.getSkill('skill://second/SKILL.md'), /serves no skill/);
    await client.close();
    await server.close();
  });
});

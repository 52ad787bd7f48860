/**
 * Skills (SEP-2640) through the gateway, with real upstream processes over stdio: two Switchboard
 * servers (one paging its skills/list two at a time, both serving a `git-workflow` at the same
 * upstream URI) and the working group's reference implementation (`@olaservo/ext-skills`, whose
 * files are served by a template). In both eras the project's Client, over loopback HTTP, lists
 * every upstream's skills under `skill://<server>/`, gets each, reads every file verified against
 * its digest, size and frontmatter, and browses directories; a skill that changes upstream is
 * announced (`list_changed`); with `--lock` a skill whose SKILL.md changed is held back until
 * approved; `gateway.access` hides a skill as an unknown one.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Channel } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { SKILLS_METHOD_SPECS } from '../../src/extensions/skills/plugin.js';
import { SKILLS_EXTENSION, SKILLS_LIST } from '../../src/extensions/skills/types.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { guard } from '../../src/gateway/guard.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { serve } from '../../src/node/serve.js';
import { ProtocolError } from '../../src/protocol/errors.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { SchemaCheckedChannel } from '../../src/testing/schema-checked-channel.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { runCli } from '../cli/run-cli.js';
import { SKILLS_DIR } from '../extensions/skills-fixture.js';
import { configOf, UPSTREAM, upstreamServer } from './helpers.js';

const SKILLS_UPSTREAM = fileURLToPath(new URL('../fixtures/skills-upstream.js', import.meta.url));
const REFERENCE = fileURLToPath(new URL('../fixtures/skills-reference-server.js', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'gateway-skills-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;

/** A fresh copy of the skills test directory (or a directory with one git-workflow skill). */
function skillsDir(only?: 'git-workflow'): string {
  const dir = join(scratch, `d${n++}`);
  cpSync(only ? join(SKILLS_DIR, only) : SKILLS_DIR, only ? join(dir, only) : dir, { recursive: true });
  return dir;
}

const upstream = (dir: string, pageSize = 100) => ({
  command: process.execPath,
  args: [SKILLS_UPSTREAM],
  env: { SKILLS_DIR: dir, PAGE_SIZE: String(pageSize) },
});

type Era = 'legacy' | '2026-07-28';
const ERAS: readonly Era[] = ['legacy', '2026-07-28'];

async function gatewayOf(
  servers: Record<string, unknown>,
  options: { lock?: string; access?: unknown } = {},
) {
  const config = configOf(servers, options.access ? { access: options.access } : {});
  const warnings: string[] = [];
  const catalog = await loadSchemaCatalog();
  // Every frame between the gateway and its upstreams, and with its clients, is checked against
  // its revision's schema, the Skills extension's methods merged in (both sides asserted).
  const checked: SchemaCheckedChannel[] = [];
  const check = (channel: Channel) => {
    const wrapped = new SchemaCheckedChannel(channel, { catalog, side: 'client', peer: 'assert' });
    checked.push(wrapped);
    return wrapped;
  };
  const gateway = new Gateway(config, {
    // An upstream named `bad` sends what no schema allows, on purpose.
    wrapChannel: (channel, upstream) => (upstream === 'bad' ? channel : check(channel)),
    logger: { warn: (m) => warnings.push(m), error: (e) => warnings.push(e.message) },
    ...(options.lock === undefined ? {} : { lock: options.lock }),
    ...(options.access ? { guard: (server) => guard(server, config, {}) } : {}),
  });
  await gateway.start();
  const http = await serve(createHttpHandler(gateway.server), { port: 0 });
  const clients: Client[] = [];
  return {
    gateway,
    warnings,
    async client(era: Era): Promise<Client> {
      const client = new Client(
        { name: 'skills-host', version: '1.0.0' },
        { version: era === 'legacy' ? 'legacy' : { pin: era }, skills: true },
      );
      await client.connect(check(new StreamableHttpClientChannel(http.url, { fetch: nodeFetch })));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await http.close();
      await gateway.close();
      for (const channel of checked) channel.assertClean();
    },
  };
}

const invalidParams = (error: unknown) => error instanceof ProtocolError && error.code === -32602;

describe('skills through the gateway', () => {
  for (const era of ERAS) {
    test(`${era}: every upstream's skills under skill://<server>/, got, read verified and browsed`, async () => {
      const gw = await gatewayOf({
        team: upstream(skillsDir(), 2),
        docs: upstream(skillsDir('git-workflow')),
        ref: { command: process.execPath, args: [REFERENCE] },
      });
      try {
        const client = await gw.client(era);
        assert.deepEqual(client.serverCapabilities.extensions?.[SKILLS_EXTENSION], { directoryRead: true });
        const { skills } = await client.listSkills();
        const fixture = [
          'acme/billing/refunds/SKILL.md',
          'git-workflow/SKILL.md',
          'pdf-processing/SKILL.md',
          'pdf-processing/forms/SKILL.md',
        ];
        assert.deepEqual(
          skills.map((s) => s.uri),
          [
            'skill://docs/git-workflow/SKILL.md',
            ...fixture.map((path) => `skill://ref/${path}`),
            ...fixture.map((path) => `skill://team/${path}`),
          ],
        );
        for (const skill of skills) {
          const server = skill.uri.split('/')[2]!;
          // The SEP's rules hold downstream: the skill's name is its path's last segment, its files under its root.
          assert.equal(skill.uri.split('/').at(-2), skill.frontmatter.name);
          assert.ok(Array.isArray(skill.resources));
          for (const file of skill.resources) assert.ok(file.uri.startsWith(`skill://${server}/`), file.uri);
          assert.deepEqual(await client.getSkill(skill.uri), skill);
          // Every file reaches its upstream and arrives as its entry says (digest, size, frontmatter).
          for (const file of skill.resources) {
            const read = await client.readSkillFile(file.uri);
            assert.equal(read.uri, file.uri);
          }
        }
        // The same upstream URI in two servers: two skills, apart.
        const team = skills.find((s) => s.uri === 'skill://team/git-workflow/SKILL.md')!;
        const docs = skills.find((s) => s.uri === 'skill://docs/git-workflow/SKILL.md')!;
        assert.deepEqual(team.frontmatter, docs.frontmatter);

        for (const server of ['team', 'ref']) {
          const { resources } = await client.readDirectory(`skill://${server}/pdf-processing/templates`);
          assert.deepEqual(
            resources.map((r) => [r.uri, r.mimeType]).sort(([a], [b]) => (a! < b! ? -1 : 1)),
            [
              [`skill://${server}/pdf-processing/templates/invoice.md`, 'text/markdown'],
              [`skill://${server}/pdf-processing/templates/logo.png`, 'image/png'],
              [`skill://${server}/pdf-processing/templates/regional`, 'inode/directory'],
            ],
          );
        }
        await assert.rejects(client.getSkill('skill://team/no-such/SKILL.md'), invalidParams);
        await assert.rejects(client.getSkill('skill://nobody/git-workflow/SKILL.md'), invalidParams);
        await assert.rejects(client.readDirectory('skill://team/no-such'), invalidParams);
        if (era === '2026-07-28') {
          // The list's cache hints are the gateway's (SEP-2549 on skills/list).
          const raw = (await client.request('skills/list', {}, { unchecked: true })) as Record<
            string,
            unknown
          >;
          assert.equal(typeof raw.ttlMs, 'number');
          assert.equal(raw.cacheScope, 'public');
        }
      } finally {
        await gw.close();
      }
    });
  }

  test('without an upstream that declares it, the gateway does not declare the extension', async () => {
    const gw = await gatewayOf({ plain: { command: process.execPath, args: [UPSTREAM] } });
    try {
      for (const era of ERAS) {
        const client = await gw.client(era);
        assert.ok(client.serverCapabilities.resources, era);
        assert.equal(client.serverCapabilities.extensions?.[SKILLS_EXTENSION], undefined, era);
      }
    } finally {
      await gw.close();
    }
  });

  test('an upstream whose skills/list is malformed keeps its resources shown, and the problem is logged', async () => {
    const bad = await upstreamServer((server) => {
      server.registerResource('memo', 'memo://one', {}, () => 'one');
      server.declareExtension(SKILLS_EXTENSION, {}, { legacy: true });
      server.methods.define({
        ...SKILLS_METHOD_SPECS[SKILLS_LIST]!,
        method: SKILLS_LIST,
        handler: () => ({ skills: [{ uri: 'skill://x/SKILL.md' }] }),
      });
    });
    const gw = await gatewayOf({ bad: { url: bad.url } });
    try {
      const client = await gw.client('legacy');
      assert.deepEqual((await client.listSkills()).skills, []);
      assert.deepEqual(
        (await client.listResources()).resources.map((r) => r.uri),
        ['gateway://bad/memo://one'],
      );
      assert.ok(
        gw.warnings.some((w) => /cannot list the skills of "bad": .*skills\[0\]\.frontmatter/.test(w)),
        gw.warnings.join('\n'),
      );
    } finally {
      await gw.close();
      await bad.close();
    }
  });

  test('a skill added upstream is announced downstream (list_changed) and listed', async () => {
    const dir = skillsDir('git-workflow');
    const gw = await gatewayOf({ docs: upstream(dir) });
    try {
      const legacy = await gw.client('legacy');
      const modern = await gw.client('2026-07-28');
      assert.equal((await legacy.listSkills()).skills.length, 1);
      const heard = Promise.all([
        new Promise<void>((resolve) => legacy.on('notifications/resources/list_changed', () => resolve())),
        new Promise<void>((resolve) => {
          const subscription = modern.listen(
            { resourcesListChanged: true },
            { onResourcesListChanged: () => resolve() },
          );
          void subscription.acknowledged.then(() => {
            cpSync(join(SKILLS_DIR, 'acme'), join(dir, 'acme'), { recursive: true });
          });
        }),
      ]);
      await heard;
      const uris = async (client: Client) => (await client.listSkills()).skills.map((s) => s.uri);
      // The gateway re-read the upstream's skills before it told anyone.
      for (const client of [legacy, modern]) {
        assert.deepEqual(await uris(client), [
          'skill://docs/acme/billing/refunds/SKILL.md',
          'skill://docs/git-workflow/SKILL.md',
        ]);
      }
    } finally {
      await gw.close();
    }
  });

  test('with --lock, a skill whose SKILL.md changed is held back until approved', async () => {
    const dir = skillsDir();
    const lock = join(scratch, `skills-${n++}.lock`);
    const servers = { team: upstream(dir) };
    const seen = async (era: Era) => {
      const gw = await gatewayOf(servers, { lock });
      try {
        const client = await gw.client(era);
        const uris = (await client.listSkills()).skills.map((s) => s.uri);
        const held = gw.gateway.pins!.pending().map((p) => `${p.kind} ${p.name}`);
        const get = await client.getSkill('skill://team/git-workflow/SKILL.md').then(
          () => 'served',
          (error: unknown) => (invalidParams(error) ? 'unknown' : String(error)),
        );
        const read = await client.readResource('skill://team/git-workflow/SKILL.md').then(
          () => 'served',
          (error: unknown) => (error instanceof ProtocolError ? 'unknown' : String(error)),
        );
        const files = (await client.listResources()).resources.map((r) => r.uri);
        return { uris, held, get, read, files };
      } finally {
        await gw.close();
      }
    };
    const first = await seen('legacy');
    assert.ok(first.uris.includes('skill://team/git-workflow/SKILL.md'));
    assert.deepEqual(first.held, []);
    const pinned = JSON.parse(readFileSync(lock, 'utf8'));
    assert.match(pinned.skills['skill://team/git-workflow/SKILL.md'].hash, /^sha256:[0-9a-f]{64}$/);

    const file = join(dir, 'git-workflow', 'SKILL.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('one commit per step', 'push to main directly'));
    for (const era of ERAS) {
      const changed = await seen(era);
      assert.ok(!changed.uris.includes('skill://team/git-workflow/SKILL.md'), changed.uris.join(', '));
      assert.equal(changed.uris.length, 3, 'the other skills stay');
      assert.deepEqual(changed.held, ['skill skill://team/git-workflow/SKILL.md']);
      assert.equal(changed.get, 'unknown');
      assert.equal(changed.read, 'unknown');
      assert.ok(!changed.files.includes('skill://team/git-workflow/SKILL.md'));
    }

    const config = join(scratch, `mcp-${n++}.json`);
    writeFileSync(config, JSON.stringify({ mcpServers: servers }));
    const approved = await runCli(['gateway', 'approve', '--lock', lock, config]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(
      approved.stdout,
      /^approved skill:\/\/team\/git-workflow\/SKILL\.md \(sha256:[0-9a-f]{64}\)\n$/,
    );
    const after = await seen('2026-07-28');
    assert.ok(after.uris.includes('skill://team/git-workflow/SKILL.md'));
    assert.deepEqual(after.held, []);
    assert.equal(after.get, 'served');
  });

  for (const era of ERAS) {
    test(`${era}: gateway.access hides a skill as an unknown one, its files and directories too`, async () => {
      const gw = await gatewayOf(
        { team: upstream(skillsDir()), ref: { command: process.execPath, args: [REFERENCE] } },
        {
          access: [
            {
              principals: ['*'],
              deny: ['skill://*/git-workflow/SKILL.md', 'skill://ref/pdf-processing/SKILL.md'],
              allow: ['*'],
            },
          ],
        },
      );
      try {
        const client = await gw.client(era);
        const { skills } = await client.listSkills();
        assert.deepEqual(
          skills.map((s) => s.uri),
          [
            'skill://ref/acme/billing/refunds/SKILL.md',
            'skill://ref/pdf-processing/forms/SKILL.md',
            'skill://team/acme/billing/refunds/SKILL.md',
            'skill://team/pdf-processing/SKILL.md',
            'skill://team/pdf-processing/forms/SKILL.md',
          ],
        );
        if (era === '2026-07-28') {
          const raw = (await client.request('skills/list', {}, { unchecked: true })) as Record<
            string,
            unknown
          >;
          assert.equal(raw.cacheScope, 'private', 'lists that differ per caller are not shared');
        }
        await assert.rejects(client.getSkill('skill://team/git-workflow/SKILL.md'), invalidParams);
        await assert.rejects(client.readResource('skill://team/git-workflow/SKILL.md'), ProtocolError);
        // The reference server serves its files by a template: they are refused all the same.
        await assert.rejects(
          client.readResource('skill://ref/pdf-processing/references/FORMS.md'),
          ProtocolError,
        );
        await assert.rejects(client.readDirectory('skill://ref/pdf-processing/templates'), invalidParams);
        // A nested skill of a hidden one is a skill of its own.
        const forms = await client.getSkill('skill://ref/pdf-processing/forms/SKILL.md');
        for (const file of forms.resources as { uri: string }[]) await client.readSkillFile(file.uri);
        const { resources } = await client.readDirectory('skill://team/pdf-processing');
        assert.ok(resources.some((r) => r.uri === 'skill://team/pdf-processing/forms'));
      } finally {
        await gw.close();
      }
    });
  }
});

/**
 * The Skills extension (SEP-2640) merged into every revision's schema (`withSkillsExtension`): the
 * checker knows skills/list, skills/get and resources/directory/read in each, and checks their
 * results as strictly as the core's (the skill entry field by field, the frontmatter left open).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Revision } from '../../src/protocol/revisions.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { MessageSchemaChecker } from '../../src/testing/message-schema-checker.js';
import type { SchemaCatalog } from '../../src/testing/schema-catalog.js';
import { ALL, clientRequest, listBody, result, resultBody } from './wire-messages.js';

let catalog: SchemaCatalog;
before(async () => {
  catalog = await loadSchemaCatalog();
});

const ENTRY = {
  uri: 'skill://git-workflow/SKILL.md',
  frontmatter: { name: 'git-workflow', description: 'Follow the team Git conventions.', license: 'MIT' },
  resources: [{ uri: 'skill://git-workflow/SKILL.md', digest: `sha256:${'a'.repeat(64)}`, size: 120 }],
};

const reasons = (found: readonly { pointer: string; reason: string }[]) =>
  found.map((v) => `${v.pointer}: ${v.reason}`);

/** What the checker says of the server's answer `body` to `method` (sent by the client as id 1). */
function answer(
  revision: Revision,
  method: string,
  params: Record<string, unknown>,
  body: Record<string, unknown>,
  strict = true,
) {
  const checker = new MessageSchemaChecker(catalog, { strict });
  const sent = checker.checkMessage(revision, 'client', clientRequest(revision, 1, method, params));
  assert.deepEqual(reasons(sent), [], `${revision} ${method} request`);
  return reasons(checker.checkMessage(revision, 'server', result(1, body)));
}

describe('the Skills extension in every revision', () => {
  for (const revision of ALL) {
    test(`${revision}: the three methods and their results, checked field by field`, () => {
      assert.deepEqual(answer(revision, 'skills/list', {}, listBody(revision, { skills: [ENTRY] })), []);
      assert.deepEqual(
        answer(revision, 'skills/get', { uri: ENTRY.uri }, resultBody(revision, { skill: ENTRY })),
        [],
      );
      const children = { resources: [{ uri: 'skill://git-workflow/SKILL.md', name: 'SKILL.md' }] };
      assert.deepEqual(
        answer(
          revision,
          'resources/directory/read',
          { uri: 'skill://git-workflow' },
          resultBody(revision, children),
        ),
        [],
      );
      const dynamic = { ...ENTRY, resources: 'dynamic' };
      assert.deepEqual(
        answer(revision, 'skills/get', { uri: ENTRY.uri }, resultBody(revision, { skill: dynamic })),
        [],
      );
      // The official variant too: what the strict one refuses is only what it closes.
      const noResources = { uri: ENTRY.uri, frontmatter: ENTRY.frontmatter };
      const refused = answer(
        revision,
        'skills/list',
        {},
        listBody(revision, { skills: [noResources] }),
        false,
      );
      assert.ok(
        refused.some((r) => /resources/.test(r)),
        refused.join('\n'),
      );
      const badDigest = { ...ENTRY, resources: [{ ...ENTRY.resources[0], digest: 'md5:abc' }] };
      const digest = answer(
        revision,
        'skills/get',
        { uri: ENTRY.uri },
        resultBody(revision, { skill: badDigest }),
      );
      assert.ok(
        digest.some((r) => r.startsWith('/result/skill/resources')),
        digest.join('\n'),
      );
      const extra = { ...ENTRY, resources: [{ ...ENTRY.resources[0], sha: 'x' }] };
      const closed = answer(
        revision,
        'skills/get',
        { uri: ENTRY.uri },
        resultBody(revision, { skill: extra }),
      );
      assert.ok(
        closed.some((r) => r.startsWith('/result/skill/resources/0')),
        closed.join('\n'),
      );
    });
  }

  test('2026-07-28: skills/list carries the list-caching fields; skills/get and directory reads may', () => {
    const bare = answer('2026-07-28', 'skills/list', {}, { resultType: 'complete', skills: [] });
    assert.ok(
      bare.some((r) => /ttlMs|cacheScope/.test(r)),
      bare.join('\n'),
    );
    assert.deepEqual(
      answer(
        '2026-07-28',
        'skills/get',
        { uri: ENTRY.uri },
        { resultType: 'complete', ttlMs: 0, cacheScope: 'private', skill: ENTRY },
      ),
      [],
    );
  });

  test('a directory read names its directory; skills/get takes no inputResponses', () => {
    const checker = new MessageSchemaChecker(catalog);
    const sent = checker.checkMessage(
      '2025-11-25',
      'client',
      clientRequest('2025-11-25', 1, 'resources/directory/read', {}),
    );
    assert.ok(
      reasons(sent).some((r) => /uri|params/.test(r)),
      reasons(sent).join('\n'),
    );
    const input = new MessageSchemaChecker(catalog).checkMessage(
      '2026-07-28',
      'server',
      result(1, { resultType: 'input_required', inputRequests: {} }),
      { method: 'skills/get' },
    );
    assert.ok(reasons(input).length > 0);
  });
});

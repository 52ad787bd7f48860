import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AccessPolicy } from '../../src/gateway/access.js';
import { ApiKeys, keyEntropyBits, MIN_KEY_BITS } from '../../src/gateway/api-keys.js';
import { callerOf } from '../../src/gateway/caller.js';

const alice = callerOf({ subject: 'alice', issuer: 'https://as', scopes: ['tools.read'] });
const bob = callerOf({
  subject: 'bob',
  issuer: 'https://as',
  extra: { claims: { groups: ['ops'], roles: 'admin' } },
});
const carol = callerOf({ subject: 'carol', issuer: 'https://as' });

describe('gateway.access rules', () => {
  const policy = new AccessPolicy([
    { principals: ['group:ops'], allow: ['github__*'], deny: ['github__delete_*'] },
    { principals: ['alice'], allow: ['github__delete_repo'], deny: [] },
    { principals: ['scope:tools.read'], allow: ['github__list_*', 'gateway://files/*'], deny: [] },
    { principals: ['*'], allow: ['time__now'], deny: [] },
  ]);

  test('the first rule that names the caller and matches the item decides; deny wins within a rule', () => {
    assert.equal(policy.allows(bob, 'github__create_issue'), true);
    assert.equal(
      policy.allows(bob, 'github__delete_repo'),
      false,
      'denied by the ops rule, later rules not read',
    );
    assert.equal(policy.allows(alice, 'github__delete_repo'), true);
    assert.equal(policy.allows(alice, 'github__create_issue'), false, 'no rule allows it for alice');
    assert.equal(policy.allows(alice, 'github__list_repos'), true, 'by scope');
    assert.equal(policy.allows(alice, 'gateway://files/a/b/c.txt'), true, '* covers every depth of a URI');
    assert.equal(policy.allows(carol, 'time__now'), true);
    assert.equal(policy.allows(carol, 'github__list_repos'), false);
    assert.equal(policy.allows(undefined, 'time__now'), true, '* names callers who did not sign in');
    assert.equal(policy.allows(undefined, 'github__list_repos'), false);
  });

  test('groups come from the groups and roles claims', () => {
    assert.deepEqual(bob?.groups, ['admin', 'ops']);
    const admins = new AccessPolicy([{ principals: ['group:admin'], allow: ['*'], deny: [] }]);
    assert.equal(admins.allows(bob, 'x__y'), true);
    assert.equal(admins.allows(alice, 'x__y'), false);
  });

  test('remembered decisions equal fresh ones (property)', () => {
    const name = fc.stringMatching(/^[a-c_*]{0,6}$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, name), { maxLength: 4 }),
        fc.array(name, { maxLength: 8 }),
        (rules, names) => {
          const make = () =>
            new AccessPolicy(
              rules.map(([allow, deny]) => ({ principals: ['*'], allow: [allow], deny: [deny] })),
            );
          const remembering = make();
          for (const n of names) remembering.allows(carol, n);
          for (const n of names) assert.equal(remembering.allows(carol, n), make().allows(carol, n));
        },
      ),
    );
  });
});

describe('API keys', () => {
  test('keys made as the error says pass; short or patterned ones do not', () => {
    assert.ok(keyEntropyBits(randomBytes(32).toString('base64url')) >= MIN_KEY_BITS);
    assert.ok(keyEntropyBits(randomBytes(32).toString('base64')) >= MIN_KEY_BITS);
    assert.ok(keyEntropyBits(randomBytes(16).toString('hex')) >= MIN_KEY_BITS);
    assert.ok(keyEntropyBits('secret') < MIN_KEY_BITS);
    assert.ok(keyEntropyBits('a'.repeat(100)) < MIN_KEY_BITS);
    assert.ok(keyEntropyBits('abab'.repeat(30)) < MIN_KEY_BITS);
    assert.ok(keyEntropyBits('0123456789abcdef'.repeat(4)) < MIN_KEY_BITS, 'a repeated block counts once');
    assert.ok(keyEntropyBits('correct-horse-battery') < MIN_KEY_BITS);
  });

  test('the principal is the key name; a wrong or near key names nobody', () => {
    const a = randomBytes(32).toString('base64url');
    const b = randomBytes(32).toString('base64url');
    const keys = new ApiKeys({ alice: a, bob: b });
    assert.equal(keys.principal(a), 'alice');
    assert.equal(keys.principal(b), 'bob');
    assert.equal(keys.principal(`${a}x`), undefined);
    assert.equal(keys.principal(a.slice(0, -1)), undefined);
    assert.equal(keys.principal(''), undefined);
  });
});

/**
 * The gateway's downstream task ids: every id read back gives the upstream, node and id it was made
 * of, for the caller it was made for alone; any change of caller, upstream, node, id or tag makes it
 * an id the gateway did not make.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatTaskId, parseTaskId, type TaskIdParts, TaskIds } from '../../src/gateway/task-ids.js';

const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const tag = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);
const key = () => crypto.getRandomValues(new Uint8Array(32));

/** Upstream names, one picked, and a separator no name of which reads as another's with it after it. */
const config = fc
  .record({
    names: fc.uniqueArray(name, { minLength: 1, maxLength: 4 }),
    pick: fc.nat(),
    separator: fc.constantFrom('__', '.', '-', '_'),
  })
  .map(({ names, pick, separator }) => ({ names, upstream: names[pick % names.length]!, separator }))
  // Names that read as another's with the separator after it are ambiguous: not a config the gateway allows.
  .filter(({ names, upstream, separator }) =>
    names.every((other) => other === upstream || !upstream.startsWith(`${other}${separator}`)),
  );
const node = fc.option(fc.stringMatching(/^[0-9a-f]{8}$/), { nil: undefined });
const partsOf = (upstream: string, id: string, at: string | undefined): TaskIdParts =>
  at === undefined ? { upstream, id } : { upstream, node: at, id };
/** A task shown to a caller: who, the upstream it runs on, its upstream id, and its node (a local server's). */
const shownTask = fc.record({
  principal: fc.string(),
  upstream: fc.constantFrom('files', 'mail'),
  id: fc.string({ minLength: 1 }),
  at: node,
});

test('a shown task id parses back as what it was made of, for any upstream id', () => {
  fc.assert(
    fc.property(
      config,
      fc.string({ minLength: 1 }),
      node,
      tag,
      ({ names, upstream, separator }, id, at, t) => {
        const parts = partsOf(upstream, id, at);
        const parsed = parseTaskId(formatTaskId(parts, t, separator), separator, (n) => names.includes(n));
        assert.deepEqual(parsed, { parts, tag: t });
      },
    ),
  );
});

test('a task id is read back for the caller it was shown to, whatever its upstream id holds', async () => {
  const ids = new TaskIds(key(), '__');
  const known = (n: string) => n === 'files' || n === 'mail';
  await fc.assert(
    fc.asyncProperty(shownTask, async ({ principal, upstream, id, at }) => {
      const parts = partsOf(upstream, id, at);
      assert.deepEqual(await ids.read(await ids.show(principal, parts), principal, known), parts);
    }),
  );
});

test('another caller, upstream, node, id or tag, or another key: not an id the gateway made', async () => {
  const secret = key();
  const ids = new TaskIds(secret, '__');
  const known = (n: string) => n === 'files' || n === 'files2' || n === 'mail';
  const field = fc.constantFrom('principal', 'upstream', 'node', 'id', 'tag', 'key');
  await fc.assert(
    fc.asyncProperty(
      shownTask,
      field,
      fc.string({ minLength: 1 }),
      fc.nat(),
      async ({ principal, upstream, id, at }, changed, other, where) => {
        const parts = partsOf(upstream, id, at);
        const shown = await ids.show(principal, parts);
        const parsed = parseTaskId(shown, '__', known)!;
        let caller = principal;
        let reader = ids;
        let forged = shown;
        switch (changed) {
          case 'principal':
            caller = principal + other;
            break;
          case 'upstream':
            forged = formatTaskId(
              { ...parts, upstream: upstream === 'files' ? 'files2' : 'files' },
              parsed.tag,
              '__',
            );
            break;
          case 'node':
            forged = formatTaskId(
              partsOf(upstream, id, at === undefined ? 'deadbeef' : undefined),
              parsed.tag,
              '__',
            );
            break;
          case 'id':
            forged = formatTaskId({ ...parts, id: id + other }, parsed.tag, '__');
            break;
          case 'tag': {
            // One character of the tag changed to another of base64url's.
            const i = where % 22;
            const swap = parsed.tag[i] === 'A' ? 'B' : 'A';
            forged = formatTaskId(parts, parsed.tag.slice(0, i) + swap + parsed.tag.slice(i + 1), '__');
            break;
          }
          case 'key':
            reader = new TaskIds(key(), '__');
            break;
        }
        assert.equal(await reader.read(forged, caller, known), undefined, `${changed}: ${forged}`);
      },
    ),
  );
});

test('fields cannot trade characters: the MAC input is length-prefixed', async () => {
  const ids = new TaskIds(key(), '__');
  const known = (n: string) => n === 'a' || n === 'ab';
  const shown = await ids.show('x', { upstream: 'a', id: 'bc' });
  // Same concatenated text of principal, upstream and id, cut elsewhere.
  assert.equal(await ids.read(shown, 'xa', known), undefined);
  const tagged = parseTaskId(shown, '__', known)!.tag;
  assert.equal(
    await ids.read(formatTaskId({ upstream: 'ab', id: 'c' }, tagged, '__'), 'x', known),
    undefined,
  );
});

test('an id naming no known upstream, or without a tag, is not one the gateway made', async () => {
  const known = (n: string) => n === 'files';
  const t = 'AAAAAAAAAAAAAAAAAAAAAA';
  assert.equal(parseTaskId('9f2c-41', '__', known), undefined);
  assert.equal(parseTaskId(`other__${t}.9f2c`, '__', known), undefined);
  assert.equal(parseTaskId('files__', '__', known), undefined);
  assert.equal(parseTaskId('files__9f2c', '__', known), undefined, 'no tag');
  assert.equal(parseTaskId(`files__${t}.`, '__', known), undefined, 'no upstream id');
  assert.deepEqual(parseTaskId(`files@0a1b2c3d__${t}.x__y.z`, '__', known), {
    parts: { upstream: 'files', node: '0a1b2c3d', id: 'x__y.z' },
    tag: t,
  });
  // An untagged id (as the gateway showed them before) is unknown, also to the one who made it.
  const ids = new TaskIds(key(), '__');
  assert.equal(await ids.read('files__9f2c', '', known), undefined);
});

/** A keyring of `secrets`, newest first, as the gateway's Redis keyring hands them over. */
const ring = (secrets: readonly Uint8Array[]) => ({ keys: () => secrets });

test('with a key list: an id made under any key in it is read back; under a key outside it, never', async () => {
  const known = (n: string) => n === 'files';
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 4 }),
      fc.nat(),
      fc.string(),
      fc.string({ minLength: 1 }),
      async (size, pick, principal, id) => {
        const secrets = Array.from({ length: size }, key);
        const reader = new TaskIds(ring(secrets), '__');
        const parts = { upstream: 'files', id };
        // Made by a node whose newest key is any one of the list (another node, or this one before).
        const maker = new TaskIds(secrets[pick % size]!, '__');
        assert.deepEqual(await reader.read(await maker.show(principal, parts), principal, known), parts);
        const outsider = new TaskIds(ring([key(), ...secrets]), '__');
        assert.equal(await reader.read(await outsider.show(principal, parts), principal, known), undefined);
      },
    ),
  );
});

test('with a key list: ids are made under the newest (first) key', async () => {
  const known = (n: string) => n === 'files';
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 2, max: 4 }), fc.string({ minLength: 1 }), async (size, id) => {
      const secrets = Array.from({ length: size }, key);
      const shown = await new TaskIds(ring(secrets), '__').show('alice', { upstream: 'files', id });
      assert.deepEqual(await new TaskIds(secrets[0]!, '__').read(shown, 'alice', known), {
        upstream: 'files',
        id,
      });
      for (const older of secrets.slice(1)) {
        assert.equal(await new TaskIds(older, '__').read(shown, 'alice', known), undefined);
      }
    }),
  );
});

test('an id no key reads: the keyring is asked to read its keys again, and the id tried once more', async () => {
  const known = (n: string) => n === 'files';
  const mine = key();
  const theirs = key();
  let secrets = [mine];
  let misses = 0;
  const reader = new TaskIds(
    {
      keys: () => secrets,
      missed: async () => {
        misses++;
        // What another node holds arrives with this read.
        secrets = [theirs, mine];
        return true;
      },
    },
    '__',
  );
  const parts = { upstream: 'files', id: 't1' };
  assert.deepEqual(
    await reader.read(await new TaskIds(mine, '__').show('alice', parts), 'alice', known),
    parts,
  );
  assert.equal(misses, 0, 'an id a held key reads asks for nothing');
  assert.deepEqual(
    await reader.read(await new TaskIds(theirs, '__').show('alice', parts), 'alice', known),
    parts,
  );
  assert.equal(misses, 1);
  // Another caller's id stays unknown, keys read again or not.
  assert.equal(
    await reader.read(await new TaskIds(theirs, '__').show('bob', parts), 'alice', known),
    undefined,
  );
  assert.equal(misses, 2);
});

/** The gateway's downstream task ids: every id read back gives the upstream, node and id it was made of. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseTaskId, shownTaskId } from '../../src/gateway/task-ids.js';

const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);

test('a shown task id reads back as what it was made of, for any upstream and upstream id', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(name, { minLength: 1, maxLength: 4 }),
      fc.nat(),
      fc.string({ minLength: 1 }),
      fc.option(fc.stringMatching(/^[0-9a-f]{8}$/), { nil: undefined }),
      fc.constantFrom('__', '.', '-'),
      (names, pick, id, node, separator) => {
        const upstream = names[pick % names.length]!;
        // Names that read as another's with the separator after it are ambiguous: not a config the gateway allows.
        fc.pre(names.every((other) => other === upstream || !upstream.startsWith(`${other}${separator}`)));
        const parts = parseTaskId(shownTaskId(upstream, separator, id, node), separator, (n) =>
          names.includes(n),
        );
        assert.deepEqual(parts, node === undefined ? { upstream, id } : { upstream, node, id });
      },
    ),
  );
});

test('an id naming no known upstream is not one the gateway made', () => {
  const known = (n: string) => n === 'files';
  assert.equal(parseTaskId('9f2c-41', '__', known), undefined);
  assert.equal(parseTaskId('other__9f2c', '__', known), undefined);
  assert.equal(parseTaskId('files__', '__', known), undefined);
  assert.deepEqual(parseTaskId('files@0a1b2c3d__x__y', '__', known), {
    upstream: 'files',
    node: '0a1b2c3d',
    id: 'x__y',
  });
});

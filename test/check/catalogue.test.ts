/** The requirement catalogue: well-formed data, and docs/check.md's table generated from it. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { REVISIONS } from 'switchboard';
import { AREAS, REQUIREMENTS } from 'switchboard/check';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

describe('the requirement catalogue', () => {
  test('ids are unique, named area.rule, and every field is filled', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const r of REQUIREMENTS) {
      assert.match(r.id, /^[a-z]+\.[a-z0-9-]+$/, r.id);
      assert.ok((AREAS as readonly string[]).includes(r.area), r.id);
      assert.equal(r.id.split('.')[0], r.area, r.id);
      assert.ok(['MUST', 'SHOULD', 'MAY'].includes(r.level), r.id);
      assert.ok(r.revisions.length > 0 && r.revisions.every((v) => REVISIONS.includes(v)), r.id);
      assert.ok(r.section.length > 0 && r.text.endsWith('.'), r.id);
    }
  });

  test('docs/check.md lists exactly the catalogue of the code', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(process.execPath, ['scripts/check-catalogue.js'], { cwd: repo }, (error, stdout, stderr) =>
          resolve({ code: error ? 1 : 0, stdout, stderr }),
        );
      },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`lists the ${REQUIREMENTS.length} requirements`));
  });
});

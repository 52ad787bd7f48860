/**
 * The markdown shows each example as a verbatim copy of its file (scripts/check-docs.js), so what a
 * reader copies is what the build type-checked and examples.test.ts ran.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(repo, 'scripts', 'check-docs.js');

function checkDocs(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: repo }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

describe('scripts/check-docs.js', () => {
  test('every example in README.md and docs/ matches its file, and every example is shown', async () => {
    const { code, stdout, stderr } = await checkDocs();
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.match(stdout, /examples in \d+ pages match their files/);
  });

  test('fails on a drifted snippet, a missing file, an unshown example and unembedded code; --write repairs the snippet', async () => {
    const root = mkdtempSync(join(tmpdir(), 'check-docs-'));
    try {
      mkdirSync(join(root, 'docs'));
      mkdirSync(join(root, 'examples', 'docs'), { recursive: true });
      writeFileSync(join(root, 'examples', 'docs', 'a.ts'), 'const a = 1;\n');
      writeFileSync(join(root, 'examples', 'docs', 'orphan.ts'), 'const b = 2;\n');
      const page = 'Intro\n\n<!-- example: examples/docs/a.ts -->\n```ts\nconst a = 2;\n```\n\nMore\n';
      const loose = 'Plain text is fine:\n\n```\ndiagram\n```\n\nCode is not:\n\n```js\nrun();\n```\n';
      writeFileSync(join(root, 'docs', 'loose.md'), loose);
      writeFileSync(join(root, 'docs', 'page.md'), page);
      writeFileSync(join(root, 'README.md'), '<!-- example: examples/docs/gone.ts -->\n```ts\nx\n```\n');

      const failed = await checkDocs('--root', root);
      assert.equal(failed.code, 1);
      assert.match(
        failed.stderr,
        /docs\/page\.md: the block for examples\/docs\/a\.ts differs from the file \(first difference at line 1/,
      );
      assert.match(failed.stderr, /README\.md: the example examples\/docs\/gone\.ts does not exist/);
      assert.match(failed.stderr, /examples\/docs\/orphan\.ts is not shown by any page/);
      assert.match(failed.stderr, /docs\/loose\.md:9: a js block that is not an example/);
      assert.doesNotMatch(failed.stderr, /loose\.md:3/);

      await checkDocs('--root', root, '--write');
      assert.equal(
        readFileSync(join(root, 'docs', 'page.md'), 'utf8'),
        'Intro\n\n<!-- example: examples/docs/a.ts -->\n```ts\nconst a = 1;\n```\n\nMore\n',
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

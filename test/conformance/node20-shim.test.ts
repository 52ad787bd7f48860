/**
 * The Node 20 shim that lets the official conformance suite load: `globSync` itself, and the loader
 * hook that hands it to the suite's packages (and only to them).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { globSync } from '../../conformance/node20/glob-sync.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-glob-'));
after(() => rmSync(root, { recursive: true, force: true }));

function tree(files: readonly string[]): string {
  const dir = mkdtempSync(join(root, 'tree-'));
  for (const file of files) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '');
  }
  return dir;
}

const sorted = (paths: string[]) => paths.map((p) => p.split('\\').join('/')).sort();

describe('globSync', () => {
  const dir = tree([
    'checks.json',
    'a/checks.json',
    'a/b/c/checks.json',
    'a/b/other.json',
    'x/checksXjson',
    'x/y.txt',
    'z.ts',
  ]);

  test('** matches any number of directories, including none', () => {
    assert.deepEqual(sorted(globSync('**/checks.json', { cwd: dir })), [
      'a/b/c/checks.json',
      'a/checks.json',
      'checks.json',
    ]);
  });

  test('* and ? stay within one segment; other characters are literal (a dot is not a wildcard)', () => {
    assert.deepEqual(sorted(globSync('a/*/*.json', { cwd: dir })), ['a/b/other.json']);
    assert.deepEqual(sorted(globSync('?.ts', { cwd: dir })), ['z.ts']);
    assert.deepEqual(sorted(globSync('x/checks.json', { cwd: dir })), []);
    assert.deepEqual(sorted(globSync('*', { cwd: dir })), ['a', 'checks.json', 'x', 'z.ts']);
  });

  test('several patterns give each path once; no match and a missing cwd give nothing', () => {
    assert.deepEqual(sorted(globSync(['**/*.ts', 'z.*'], { cwd: dir })), ['z.ts']);
    assert.deepEqual(globSync('**/*.md', { cwd: dir }), []);
    assert.deepEqual(globSync('**/*', { cwd: join(dir, 'missing') }), []);
  });
});

describe('the loader hook', () => {
  const preload = fileURLToPath(new URL('../../conformance/node20/preload.js', import.meta.url));
  // The hook matches on the importing file's path: fake a suite package and an unrelated one.
  const probe =
    "import { globSync } from 'fs';\nimport * as fs from 'node:fs';\nimport { fileURLToPath } from 'node:url';\n";
  const modules = tree([]);
  for (const pkg of ['conformance-next', '@modelcontextprotocol/conformance']) {
    mkdirSync(join(modules, 'node_modules', pkg), { recursive: true });
    writeFileSync(
      join(modules, 'node_modules', pkg, 'probe.mjs'),
      `${probe}console.log(typeof globSync, typeof fs.readFileSync, globSync('*.mjs', { cwd: fileURLToPath(new URL('.', import.meta.url)) }).join());\n`,
    );
  }
  mkdirSync(join(modules, 'node_modules', 'other'), { recursive: true });
  writeFileSync(
    join(modules, 'node_modules', 'other', 'probe.mjs'),
    "import * as fs from 'node:fs';\nconsole.log(typeof fs.globSync);\n",
  );
  const run = (file: string) =>
    spawnSync(process.execPath, ['--import', preload, join(modules, 'node_modules', file)], {
      encoding: 'utf8',
    });

  test('the suite packages get fs with globSync', () => {
    for (const pkg of ['conformance-next', '@modelcontextprotocol/conformance']) {
      const result = run(`${pkg}/probe.mjs`);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), 'function function probe.mjs');
    }
  });

  test('nothing else is redirected', () => {
    const result = run('other/probe.mjs');
    assert.equal(result.status, 0, result.stderr);
    const native = Number(process.versions.node.split('.')[0]) >= 22;
    assert.equal(result.stdout.trim(), native ? 'function' : 'undefined');
  });
});

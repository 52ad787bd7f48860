/**
 * The package as users get it: the bundles of build/dist (scripts/bundle.js). Every export and the
 * bin has one; the entries share one copy of the library; the runtime-neutral ones import no
 * `node:` module, not even lazily; stack traces lead back to src/*.ts. This test process itself
 * resolves `switchboard` to tsc's output (the test runner's condition), so each check that needs
 * the bundles runs a plain `node` child.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAst } from 'rolldown/parseAst';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
};
/** An export's targets by condition (see scripts/bundle.js for the pattern). */
interface Export {
  specifier: string;
  types?: string;
  default?: string;
  node?: string;
}
const exportsOf: Export[] = Object.entries(pkg.exports).flatMap(([key, value]) =>
  typeof value === 'object' ? [{ specifier: `switchboard${key.slice(1)}`, ...value }] : [],
);

function node(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: repo, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

/** The module specifiers a bundle file imports, statically or with `import()`. */
function importsOf(file: string): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const { type, source } = node as { type?: string; source?: { type?: string; value?: unknown } };
    const isImport =
      type === 'ImportDeclaration' ||
      type === 'ExportNamedDeclaration' ||
      type === 'ExportAllDeclaration' ||
      type === 'ImportExpression';
    if (isImport && source?.type === 'Literal' && typeof source.value === 'string') found.push(source.value);
    for (const value of Object.values(node)) visit(value);
  };
  visit(parseAst(readFileSync(file, 'utf8'), null, file));
  return found;
}

/**
 * Every file a program that imports `file` may load (relative imports followed, static or lazy), with
 * the bare specifiers (packages, builtins) each imports.
 */
function closure(file: string): Map<string, string[]> {
  const files = new Map<string, string[]>();
  const stack = [file];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (files.has(next) || !existsSync(next)) continue;
    const imports = importsOf(next);
    files.set(
      next,
      imports.filter((s) => !s.startsWith('.')),
    );
    for (const s of imports) if (s.startsWith('.')) stack.push(join(dirname(next), s));
  }
  return files;
}

describe('package bundles', () => {
  test('every export has a bundle, declarations and a tsc module, and resolves to each where it should', async () => {
    assert.ok(exportsOf.length >= 5, 'the exports were read');
    for (const entry of exportsOf) {
      const bundle = entry.default ?? entry.node ?? '';
      assert.ok(bundle.startsWith('./build/dist/'), `${entry.specifier} is bundled`);
      const tscModule = bundle.replace('/dist/', '/src/');
      for (const file of [bundle, entry.types!, tscModule]) {
        assert.ok(existsSync(join(repo, file)), `${entry.specifier}: ${file} exists`);
      }
      // This process runs under the test runner's resolve hook: tsc's module, the one the tests import.
      assert.equal(import.meta.resolve(entry.specifier), pathToFileURL(join(repo, tscModule)).href);
    }
    const run = await node([join(repo, 'build/test/package/fixtures/entries.js')]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as { resolved: Record<string, string> };
    assert.deepEqual(
      report.resolved,
      Object.fromEntries(
        exportsOf.map((e) => [e.specifier, pathToFileURL(join(repo, (e.default ?? e.node)!)).href]),
      ),
      'a plain node resolves every export to its bundle',
    );
  });

  test('code of one entry works with the classes and state of another (one copy of the library)', async () => {
    const run = await node([join(repo, 'build/test/package/fixtures/entries.js')]);
    assert.equal(run.code, 0, run.stderr);
    const { resolved: _, ...checks } = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(checks, { stdio: true, http: true, testing: true, node: true });
  });

  test('no module is in two bundle files', () => {
    const dist = join(repo, 'build/dist');
    const seen = new Map<string, string>();
    const maps = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js.map'),
    );
    assert.ok(maps.length > 0);
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(dist, map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const id = relative(repo, join(dist, dirname(map), source));
        assert.equal(seen.get(id), undefined, `${id} is bundled into ${seen.get(id)} and ${map}`);
        seen.set(id, map);
      }
    }
    assert.ok(seen.has('src/protocol/errors.ts'), 'the maps name the TypeScript sources');
  });

  test('switchboard and switchboard/http import no node: module, even lazily', () => {
    const neutral = exportsOf.filter((e) => e.default !== undefined).map((e) => e.specifier);
    assert.ok(neutral.includes('switchboard') && neutral.includes('switchboard/http'), neutral.join());
    for (const entry of exportsOf.filter((e) => e.default !== undefined)) {
      const files = closure(join(repo, entry.default!));
      assert.ok(files.size > 1, `${entry.specifier} loads its chunks`);
      for (const [file, outside] of files) {
        const builtins = outside.filter((s) => isBuiltin(s));
        assert.deepEqual(
          builtins,
          [],
          `${entry.specifier} reaches ${relative(repo, file)}, which imports ${builtins}`,
        );
      }
    }
    // The check can fail: a Node-only entry does reach node: modules.
    const stdio = exportsOf.find((e) => e.specifier === 'switchboard/stdio')!;
    assert.ok([...closure(join(repo, stdio.node!)).values()].flat().some((s) => isBuiltin(s)));
  });

  test('stack traces of the bundles lead to src/*.ts under --enable-source-maps', async () => {
    const script =
      "import { Server } from 'switchboard';" +
      "new Server({ name: 'x', version: '1' }).registerTool('x', { inputSchema: 5 }, () => '');";
    const run = await node(['--enable-source-maps', '--input-type=module', '-e', script]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /SwitchboardError: The inputSchema of tool "x" must be a schema object/);
    assert.match(run.stderr, /at compileSchema \(.*[\\/]src[\\/]schema[\\/]compile\.ts:\d+:\d+\)/);
  });

  test('the bin is a bundle that runs', async () => {
    const bin = join(repo, pkg.bin.switchboard!);
    assert.ok(bin.includes(`${join('build', 'dist')}`), bin);
    assert.match(readFileSync(bin, 'utf8'), /^#!\/usr\/bin\/env node\n/);
    // Executable as the build leaves it, so `npx switchboard` in a clone runs after any rebuild.
    assert.equal(statSync(bin).mode & 0o111, 0o111, 'the bin is executable');
    const run = await node([bin, '--version']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), pkg.version);
  });

  test('no compiled helper a test may spawn mixes tsc modules with the package (two copies)', () => {
    // A test file runs under the condition that makes `switchboard` mean tsc's modules; a process a
    // test spawns does not, so a module it starts must use one or the other, never both.
    const testDir = join(repo, 'build/test');
    const files = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js') && !f.endsWith('.test.js'))
      .map((f) => join(testDir, f));
    const src = join(repo, 'build/src');
    for (const file of files) {
      const reached = closure(file);
      const usesSrc = [...reached.keys()].some((f) => f.startsWith(src));
      const usesPackage = [...reached.values()]
        .flat()
        .some((s) => s === 'switchboard' || s.startsWith('switchboard/'));
      assert.ok(
        !(usesSrc && usesPackage),
        `${relative(repo, file)} reaches both build/src and 'switchboard'`,
      );
    }
  });
});

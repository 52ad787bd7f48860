#!/usr/bin/env node
// Bundles the compiled library (tsc's output, build/src) into what the package ships (build/dist):
// one ESM file per package export and one for the bin, with source maps back to src/*.ts.
// Runs after tsc as the last step of `npm run build`. Usage: node scripts/bundle.js
//
// package.json is the one list of entry points. Every export reads
//   "./x": { "types": "./build/src/x.d.ts", "default": "./build/dist/x.js" }
// with "node" in place of "default" for a Node-only export. The bundle build/dist/x.js is made from
// build/src/x.js; the bin's build/dist/<path>.js from build/src/<path>.js, made executable. An export
// that breaks that pattern, or whose files are missing after the build, fails the build with a
// message naming it. Exports name published files only (publint checks it in `npm run lint`): the
// test runner maps `switchboard` to build/src with a resolve hook (scripts/tsc-modules.js) instead.
//
// One copy of every module. Code shared by several entries goes into shared chunks, never into two
// files (a class in two files would break instanceof and split module state). The shared chunks
// follow one rule: everything statically reachable from the root entry (`switchboard`) is one chunk,
// chunks/core.js, since every program that uses another entry loads the root entry too. A stdio
// server so loads four files (index.js, stdio.js, core.js, and the stdio channels' chunk), not
// seventy modules; whatever else the entries share is chunked by the bundler as it sees fit.
//
// Packages stay imports, except @cfworker/json-schema and yaml: they are bundled into core, because
// a stdio server loads them before its first answer (the validator, and the Skills extension's
// frontmatter parser, which every Server holds): the validator's ten modules were 6 ms of a 90 ms
// cold start, yaml's CommonJS files 40 ms of a 160 ms one (see docs/benchmarks.md). They stay
// dependencies for their types (switchboard/testing's and switchboard/mcptest's declarations). The licenses of bundled packages are collected into build/dist/THIRD-PARTY-LICENSES.md.
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { rolldown } from 'rolldown';

const SRC = 'build/src';
const DIST = 'build/dist';
/** Packages bundled into the chunks instead of imported (see above). */
const BUNDLED_PACKAGES = ['@cfworker/json-schema', 'yaml'];

class BuildError extends Error {}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const entries = entryPoints(pkg);

/**
 * name (path under build/dist without `.js`) → the module it is bundled from, for every export and
 * the bin; throws a BuildError naming the first export that breaks the pattern.
 */
function entryPoints({ exports = {}, bin = {} }) {
  const found = new Map();
  const add = (where, target) => {
    const name = /^\.\/build\/dist\/(.+)\.js$/.exec(target)?.[1];
    if (!name)
      throw new BuildError(`${where} is ${JSON.stringify(target)}: it must be "./${DIST}/<name>.js".`);
    found.set(name, { where, source: `./${SRC}/${name}.js` });
    return name;
  };
  for (const [key, value] of Object.entries(exports)) {
    if (key === './package.json') continue;
    const where = `package.json exports[${JSON.stringify(key)}]`;
    const shape = `{ "types": "./${SRC}/<name>.d.ts", "default" (or "node" for a Node-only export): "./${DIST}/<name>.js" }`;
    if (typeof value !== 'object' || value === null) throw new BuildError(`${where} must be ${shape}.`);
    const targets = ['default', 'node'].filter((condition) => condition in value);
    if (targets.length !== 1)
      throw new BuildError(`${where} needs exactly one of "default" and "node": ${shape}.`);
    const name = add(`${where}.${targets[0]}`, value[targets[0]]);
    const expected = { types: `./${SRC}/${name}.d.ts` };
    for (const [condition, path] of Object.entries(expected)) {
      if (value[condition] !== path) {
        throw new BuildError(
          `${where}.${condition} is ${JSON.stringify(value[condition])}, expected "${path}": ${shape}.`,
        );
      }
    }
    if (Object.keys(value)[0] !== 'types')
      throw new BuildError(`${where}: "types" must come first: ${shape}.`);
  }
  for (const [command, target] of Object.entries(typeof bin === 'string' ? { [pkg.name]: bin } : bin)) {
    add(`package.json bin[${JSON.stringify(command)}]`, target);
  }
  return found;
}

function checkFile(path, what) {
  if (!existsSync(path)) throw new BuildError(`${what}: ${path} does not exist.`);
}

/** Feeds tsc's source maps to the bundler, so the bundles' maps lead to src/*.ts, not build/src/*.js. */
const tscSourceMaps = {
  name: 'tsc-source-maps',
  load: {
    filter: { id: /\.js$/ },
    handler(id) {
      if (!id.startsWith(resolve(SRC))) return null;
      const map = `${id}.map`;
      return { code: readFileSync(id, 'utf8'), map: existsSync(map) ? readFileSync(map, 'utf8') : undefined };
    },
  },
};

const isBare = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');
const isBundledPackage = (id) => BUNDLED_PACKAGES.some((p) => id === p || id.startsWith(`${p}/`));

/** The static import closure of the root entry: the `core` chunk. */
function coreChunk(rootId) {
  let core;
  return (id, context) => {
    if (!core) {
      core = new Set();
      const stack = [rootId];
      while (stack.length > 0) {
        const next = stack.pop();
        if (core.has(next)) continue;
        core.add(next);
        stack.push(...(context.getModuleInfo(next)?.importedIds ?? []));
      }
    }
    return core.has(id) ? 'core' : null;
  };
}

/** The licenses of the packages whose code ended up in the bundles. */
function thirdPartyLicenses(moduleIds) {
  const packages = new Map();
  for (const id of moduleIds) {
    const at = id.lastIndexOf('/node_modules/');
    if (at === -1) continue;
    const rest = id.slice(at + '/node_modules/'.length).split('/');
    const root =
      id.slice(0, at + '/node_modules/'.length) + rest.slice(0, rest[0].startsWith('@') ? 2 : 1).join('/');
    packages.set(root, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  }
  const sections = [...packages].map(([root, meta]) => {
    const author = typeof meta.author === 'object' ? meta.author?.name : meta.author;
    const repository = typeof meta.repository === 'object' ? meta.repository?.url : meta.repository;
    const file = readdirSync(root).find((f) => /^(licen[cs]e|copying)/i.test(f));
    return [
      `## ${meta.name} ${meta.version}`,
      '',
      [`License: ${meta.license}`, author && `author: ${author}`, repository].filter(Boolean).join(' · '),
      ...(file ? ['', readFileSync(join(root, file), 'utf8').trim()] : []),
      '',
    ].join('\n');
  });
  return ['# Third-party code in these bundles', '', ...sections].join('\n');
}

async function main() {
  const started = performance.now();
  for (const { where, source } of entries.values())
    checkFile(source, `${where} has no module to bundle (is its src/*.ts missing?)`);
  const root = entries.get('index');
  if (!root) throw new BuildError(`package.json exports["."] must be bundled to ./${DIST}/index.js.`);

  const bundle = await rolldown({
    input: Object.fromEntries([...entries].map(([name, { source }]) => [name, source])),
    platform: 'neutral',
    external: (id) => id.startsWith('node:') || (isBare(id) && !isBundledPackage(id)),
    resolve: { mainFields: ['module', 'main'] },
    plugins: [tscSourceMaps],
    logLevel: 'warn',
    onLog(level, log, handler) {
      // Every log is a problem with the bundle (e.g. an import that cannot resolve): fail loudly.
      if (level === 'warn') throw new BuildError(`${log.code}: ${log.message}`);
      handler(level, log);
    },
  });
  const { output } = await bundle.write({
    dir: DIST,
    format: 'es',
    sourcemap: true,
    // Short names and no whitespace or comments: V8 compiles every byte a program loads before the
    // first line runs (7 ms of a stdio server's cold start for core.js as written, 6 ms minified).
    // Function and class names stay (stack traces, errors' names); the source maps lead back to src.
    minify: { compress: false, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name].js',
    codeSplitting: { groups: [{ name: coreChunk(resolve(root.source)), debugName: 'core' }] },
  });
  await bundle.close();

  // One copy of every module: a module in two chunks would be two classes, two states.
  const chunkOf = new Map();
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    for (const id of chunk.moduleIds) {
      const other = chunkOf.get(id);
      if (other)
        throw new BuildError(`${relative('.', id)} is in two bundles, ${other} and ${chunk.fileName}.`);
      chunkOf.set(id, chunk.fileName);
    }
  }
  for (const [name, { where }] of entries) {
    checkFile(join(DIST, `${name}.js`), `${where} was not bundled`);
    if (where.includes('exports')) checkFile(join(SRC, `${name}.d.ts`), `${where} has no declarations`);
    // A bin runs as a program (`npx switchboard` in a clone): the bundler writes files 0644.
    if (where.includes('bin')) chmodSync(join(DIST, `${name}.js`), 0o755);
  }
  writeFileSync(join(DIST, 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses(chunkOf.keys()));
  const files = output.filter((o) => o.type === 'chunk').length;
  console.log(
    `bundle: ${entries.size} entry points, ${files} files in ${DIST} (${Math.round(performance.now() - started)} ms)`,
  );
}

main().catch((error) => {
  console.error(error instanceof BuildError ? `bundle: ${error.message}` : error);
  process.exit(1);
});

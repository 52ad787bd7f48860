// The resolve hook of scripts/tsc-modules.js: `switchboard` → build/src/index.js, `switchboard/x` →
// build/src/x.js, for exactly the subpaths package.json exports (the entry files are named after them,
// see scripts/bundle.js); anything else resolves as usual.
import { readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const modules = new Map(
  Object.keys(pkg.exports)
    .filter((key) => key !== './package.json')
    .map((key) => [
      `${pkg.name}${key.slice(1)}`,
      new URL(`build/src/${key === '.' ? 'index' : key.slice(2)}.js`, root).href,
    ]),
);

export function resolve(specifier, context, nextResolve) {
  const url = modules.get(specifier);
  return url ? { url, format: 'module', shortCircuit: true } : nextResolve(specifier, context);
}

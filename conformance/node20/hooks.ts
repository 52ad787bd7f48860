// ESM loader hook (registered by ./preload.ts): redirects `fs` and `node:fs` imports made by the official
// conformance packages to ./fs-shim.js. A hook is needed because a module's named exports are fixed when
// it is linked: `syncBuiltinESMExports()` updates existing `node:fs` exports but cannot add `globSync`.
import type { ResolveHook } from 'node:module';

const shim = new URL('./fs-shim.js', import.meta.url).href;

// Both installed versions: 0.1.x under its own name, the 0.2.0 prerelease under the `conformance-next`
// alias. Matched on the importing file's URL (a real path: node_modules may be a symlink).
const suitePackages = /\/node_modules\/(?:@modelcontextprotocol\/conformance|conformance-next)\//;

export const resolve: ResolveHook = (specifier, context, nextResolve) => {
  if ((specifier === 'fs' || specifier === 'node:fs') && suitePackages.test(context.parentURL ?? '')) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
};

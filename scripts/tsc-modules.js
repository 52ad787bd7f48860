// Resolves `switchboard` and its subpaths to tsc's modules (build/src) instead of the bundles
// (build/dist): the test runner's processes import the library from build/src both directly and as
// `switchboard`, so a test process never holds two copies of a class. A resolve hook, not an export
// condition, because what package.json exports is what users get and must name published files only.
// Usage: node --import ./scripts/tsc-modules.js ... (scripts/test.js passes it to every test process).
import { register } from 'node:module';

register('./tsc-modules-hooks.js', import.meta.url);

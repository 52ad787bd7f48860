// Stands in for `fs` / `node:fs` when the conformance suite imports it on Node 20: everything `node:fs`
// exports, plus `globSync`. The loader hook in ./hooks.ts points the suite's imports here; nothing else
// is redirected.
import fs from 'node:fs';
import { globSync } from './glob-sync.js';

export * from 'node:fs';
export { globSync };

const fsWithGlob: typeof fs & { globSync: typeof globSync } = { ...fs, globSync };
export default fsWithGlob;

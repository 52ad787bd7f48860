#!/usr/bin/env node
// Builds the console's page (src/console/page, TypeScript + Preact) into build/dist/console/:
// page.js (one ES module, Preact inside), page.css and index.html. Runs as part of `npm run build`,
// after tsc has type-checked the page (src/console/page/tsconfig.json). Nothing the page needs is
// fetched at run time. Usage: node scripts/bundle-console.js
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { rolldown } from 'rolldown';

const PAGE = 'src/console/page';
const OUT = 'build/dist/console';

async function main() {
  const started = performance.now();
  const bundle = await rolldown({
    input: join(PAGE, 'main.tsx'),
    platform: 'browser',
    tsconfig: join(PAGE, 'tsconfig.json'),
    logLevel: 'warn',
    onLog(level, log, handler) {
      if (level === 'warn') throw new Error(`${log.code}: ${log.message}`);
      handler(level, log);
    },
  });
  await bundle.write({ file: join(OUT, 'page.js'), format: 'es', minify: true, sourcemap: false });
  await bundle.close();
  mkdirSync(OUT, { recursive: true });
  copyFileSync(join(PAGE, 'index.html'), join(OUT, 'index.html'));
  copyFileSync(join(PAGE, 'style.css'), join(OUT, 'page.css'));
  console.log(`bundle-console: ${OUT} (${Math.round(performance.now() - started)} ms)`);
}

main().catch((error) => {
  console.error(`bundle-console: ${error.message ?? error}`);
  process.exit(1);
});

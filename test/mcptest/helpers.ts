/** What the `switchboard test` tests share: servers as target lines, scratch folders, test files. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const quote = (words: readonly string[]) => words.map((w) => JSON.stringify(w)).join(' ');

/** The repository's example server over stdio, as a target line. */
export const EXAMPLE = quote([
  process.execPath,
  fileURLToPath(new URL('../../examples/server.js', import.meta.url)),
  '--stdio',
]);

/** One of the fixture servers of test/fixtures/mcptest/ over stdio, with a behaviour change or not. */
export const fixture = (framework: 'switchboard' | 'sdk-v2' | 'fastmcp' | 'varies', change?: string) =>
  quote([
    process.execPath,
    fileURLToPath(new URL(`../fixtures/mcptest/${framework}.js`, import.meta.url)),
    ...(change ? [change] : []),
  ]);

export const TMCP = fileURLToPath(new URL('../fixtures/mcptest/tmcp-http.js', import.meta.url));

export const scratch = () => mkdtempSync(join(tmpdir(), 'switchboard-mcptest-'));

/** Writes a test file into `dir` and returns its path. */
export function testFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The target and scratch directory the `switchboard check` command tests (cli-*.test.ts) share. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('../fixtures/check-server.js', import.meta.url));
/** The hand-written fixture server's command line, as one target argument, with a bug seeded or not. */
export const server = (bug?: string) =>
  [process.execPath, SERVER, ...(bug ? [bug] : [])].map((w) => JSON.stringify(w)).join(' ');
/** A directory of this test process's own for report files. */
export const scratch = () => mkdtempSync(join(tmpdir(), 'switchboard-check-'));

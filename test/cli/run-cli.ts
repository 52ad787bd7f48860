/** Runs the built `switchboard` CLI as a child process, as a user would: the bundled bin of package.json. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = new URL('../../../', import.meta.url);
const bin = (
  JSON.parse(readFileSync(new URL('package.json', repo), 'utf8')) as { bin: { switchboard: string } }
).bin.switchboard;
export const CLI = fileURLToPath(new URL(bin, repo));
const FIXTURE = fileURLToPath(new URL('../fixtures/cli-server.js', import.meta.url));

/** The fixture server's command line as one target argument (`mode` selects its behaviour). */
export const fixtureTarget = (mode?: string): string =>
  [process.execPath, FIXTURE, ...(mode ? [mode] : [])].map((w) => JSON.stringify(w)).join(' ');

/** The fixture server's command line as words, for the `-- <command ...>` form. */
export const fixtureWords = (mode?: string): string[] => [process.execPath, FIXTURE, ...(mode ? [mode] : [])];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment the CLI runs in: ours, with cache and configuration directories of this test
 * process's own, so what the CLI remembers between runs (docs/cli.md) and the tokens it stores
 * neither leak into the user's directories nor between files.
 */
export const CLI_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'switchboard-cli-cache-')),
  // Tokens the CLI stores on signing in (docs/auth.md) go here, not into the user's.
  XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'switchboard-cli-config-')),
};

export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd, timeout: 90_000, env: options.env ?? CLI_ENV }, // a hang guard
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: unknown }).code as number | null) : 0;
        resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
      },
    );
  });
}

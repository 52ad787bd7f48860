/** A temporary HOME for the fleet commands: every client file a test writes is under it. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CliRun, runCli } from '../cli/run-cli.js';

export const EXAMPLE = fileURLToPath(new URL('../../examples/server.js', import.meta.url));

export interface TempHome {
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  run(args: readonly string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<CliRun>;
  read(relative: string): string;
  write(relative: string, text: string): void;
}

export function tempHome(extraEnv: NodeJS.ProcessEnv = {}): TempHome {
  const home = mkdtempSync(join(tmpdir(), 'switchboard-fleet-home-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...extraEnv };
  delete env.XDG_CONFIG_HOME;
  delete env.CODEX_HOME;
  Object.assign(env, extraEnv);
  env.XDG_CACHE_HOME = join(home, '.cache');
  return {
    home,
    env,
    run: (args, options = {}) => runCli(args, { cwd: options.cwd ?? home, env: { ...env, ...options.env } }),
    read: (relative) => readFileSync(join(home, relative), 'utf8'),
    write(relative, text) {
      mkdirSync(dirname(join(home, relative)), { recursive: true });
      writeFileSync(join(home, relative), text);
    },
  };
}

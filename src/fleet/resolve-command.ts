/**
 * Commands made to start from a desktop app. Claude Desktop, Cursor, VS Code and the like start
 * servers with the PATH of the desktop session, not of the user's login shell, so `npx` installed
 * by nvm, Homebrew or Volta is not found (`spawn npx ENOENT`), and a script run by its absolute
 * path still needs `node` on PATH for its `#!/usr/bin/env node` line. So a bare command is written
 * as its absolute path, with a PATH in `env` holding its folder and node's.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { FleetError } from './errors.js';
import type { StdioSpec } from './spec.js';

/** `arg` made absolute when it names an existing file relative to `cwd` (`server.js`, `./bin/x`). */
function absoluteFile(arg: string, cwd: string): string {
  if (arg.startsWith('-') || isAbsolute(arg) || !/[/\\]|\.(?:[cm]?js|ts|py)$/.test(arg)) return arg;
  const file = resolve(cwd, arg);
  try {
    return statSync(file).isFile() ? file : arg;
  } catch {
    return arg;
  }
}

/** Where desktop sessions look, after the folders the command needs. */
const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/** The absolute path of `command` on `path`, or undefined. */
export function findOnPath(command: string, path: string | undefined): string | undefined {
  if (command.includes('/') || command.includes('\\')) return isExecutable(command) ? command : undefined;
  for (const folder of (path ?? '').split(delimiter)) {
    if (folder === '' || !isAbsolute(folder)) continue;
    const candidate = join(folder, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The spec with its command absolute and PATH set (unless the user set PATH). `env` is the user's
 * environment, where the command is looked up. A command that is not found is an error.
 */
export function resolveCommand(
  spec: StdioSpec,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): StdioSpec {
  if (spec.command.includes('${')) return spec;
  // The client starts the server in a folder of its own: a relative file argument would not be found.
  spec = { ...spec, args: spec.args.map((arg) => absoluteFile(arg, cwd)) };
  const found = findOnPath(
    spec.command.includes('/') ? absoluteFile(spec.command, cwd) : spec.command,
    env.PATH,
  );
  if (found === undefined) {
    throw new FleetError(
      isAbsolute(spec.command)
        ? `${spec.command} does not exist or is not executable.`
        : `${spec.command} is not on your PATH: install it, or give its absolute path.`,
    );
  }
  if (spec.env.PATH !== undefined) return { ...spec, command: found };
  const folders = [dirname(found), dirname(realpathSync(process.execPath)), ...SYSTEM_PATH];
  return { ...spec, command: found, env: { ...spec.env, PATH: [...new Set(folders)].join(delimiter) } };
}

/**
 * The environment a spawned MCP server gets. By default only a small, safe subset of ours, so API
 * keys and tokens in the parent's environment do not leak into every server it starts.
 */

/** Variables passed through by default on POSIX systems. */
const POSIX_SAFE_VARS = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
];

/** Variables passed through by default on Windows (compared case-insensitively, as Windows does). */
const WINDOWS_SAFE_VARS = [
  'APPDATA',
  'COMSPEC',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
];

/** The parent variables a child gets by default on this platform. */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32' ? WINDOWS_SAFE_VARS : POSIX_SAFE_VARS;

export interface ChildEnvOptions {
  /** Variables to set (a string) or remove (undefined), applied last. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Pass the whole parent environment instead of the safe subset. */
  inheritEnv?: boolean;
}

/** Builds the child's environment from `parent` (normally `process.env`). */
export function childEnv(
  parent: Readonly<Record<string, string | undefined>>,
  options: ChildEnvOptions,
  platform: string = process.platform,
): Record<string, string> {
  const windows = platform === 'win32';
  const normalize = windows ? (name: string) => name.toUpperCase() : (name: string) => name;
  const safe = new Set((windows ? WINDOWS_SAFE_VARS : POSIX_SAFE_VARS).map(normalize));
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (!options.inheritEnv) {
      // A value starting with "()" is an exported shell function: code, not configuration.
      if (!safe.has(normalize(name)) || value.startsWith('()')) continue;
    }
    result[name] = value;
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (windows) {
      // "Path" and "PATH" are one variable on Windows: drop every spelling before setting ours.
      for (const existing of Object.keys(result)) {
        if (existing.toUpperCase() === name.toUpperCase()) delete result[existing];
      }
    } else {
      delete result[name];
    }
    if (value !== undefined) result[name] = value;
  }
  return result;
}

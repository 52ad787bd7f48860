/**
 * Writing a client's config: the old file kept beside it as `<file>.bak`, the new one written to a
 * temporary file in the same folder and renamed over it, so a crash or a full disk never leaves a
 * half-written config; the file's mode is kept (Claude Code's ~/.claude.json is private). A
 * symbolic link (a dotfiles checkout) is followed: its target is what changes.
 */
import { copyFileSync, mkdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Written {
  /** The file written (a link's target). */
  readonly file: string;
  /** The backup of the old file, when there was one. */
  readonly backup: string | undefined;
}

export function writeConfig(file: string, text: string): Written {
  let target = file;
  let mode: number | undefined;
  try {
    target = realpathSync(file);
    mode = statSync(target).mode & 0o777;
  } catch {
    // A new file: its folder may be new too.
    mkdirSync(dirname(file), { recursive: true });
  }
  const backup = mode === undefined ? undefined : `${target}.bak`;
  if (backup) copyFileSync(target, backup);
  const temporary = `${target}.switchboard-${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: mode ?? 0o600, flush: true });
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return { file: target, backup };
}

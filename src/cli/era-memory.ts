/**
 * What each server spoke the last time the CLI talked to it, kept between runs in a small file under
 * the user's cache directory (`$XDG_CACHE_HOME/switchboard/eras.json`, else `~/.cache/...`,
 * `~/Library/Caches/...` on macOS, `%LOCALAPPDATA%\...` on Windows). With it, a legacy server is
 * spoken to with `initialize` at once instead of being probed with `server/discover` on every
 * command. A remembered era is a hint, and it is forgotten after a day ({@link TTL_MS}): a server
 * that changed is negotiated with as usual, and the file then records what it speaks now.
 *
 * The file is small (at most {@link MAX_SERVERS} entries, the least recently used dropped), written
 * whole to a temporary file and renamed, and never a reason to fail: unreadable, corrupt or
 * unwritable, it is ignored.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const MAX_SERVERS = 200;

/** How long an era is trusted before the server is negotiated with afresh. */
export const TTL_MS = 24 * 60 * 60 * 1000;

interface Entry {
  readonly era: string;
  /** When it was learned (ms since epoch): it expires after {@link TTL_MS}, the oldest go first. */
  readonly at: number;
}

export class EraMemory {
  readonly #file: string | undefined;
  #entries: Record<string, Entry> | undefined;

  /** `file`: where to keep it; undefined keeps nothing. */
  constructor(file: string | undefined) {
    this.#file = file;
  }

  /** The memory in the user's cache directory. */
  static forUser(env: NodeJS.ProcessEnv = process.env): EraMemory {
    return new EraMemory(join(cacheDirectory(env), 'switchboard', 'eras.json'));
  }

  /** What `server` spoke last time, if known and learned less than a day ago. */
  recall(server: string): string | undefined {
    const entry = this.#read()[server];
    if (typeof entry?.era !== 'string' || !(Date.now() - entry.at < TTL_MS)) return undefined;
    return entry.era;
  }

  /** Records what `server` was just found to speak. */
  remember(server: string, era: string): void {
    const file = this.#file;
    if (file === undefined) return;
    const entries = { ...this.#read(), [server]: { era, at: Date.now() } };
    const kept = Object.entries(entries)
      .sort(([, a], [, b]) => b.at - a.at)
      .slice(0, MAX_SERVERS);
    this.#entries = Object.fromEntries(kept);
    try {
      mkdirSync(join(file, '..'), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify({ version: 1, servers: this.#entries })}\n`);
      renameSync(temporary, file);
    } catch {
      // A read-only home or a full disk costs a probe next time, nothing more.
    }
  }

  #read(): Record<string, Entry> {
    if (this.#entries) return this.#entries;
    let entries: Record<string, Entry> = {};
    try {
      const parsed = JSON.parse(readFileSync(this.#file!, 'utf8')) as { servers?: unknown };
      if (typeof parsed.servers === 'object' && parsed.servers !== null) {
        // No prototype: a key from the file is an entry, never an inherited member.
        entries = Object.assign(Object.create(null), parsed.servers);
      }
    } catch {
      // Missing or corrupt: start over.
    }
    this.#entries = entries;
    return entries;
  }
}

/** The user's cache directory, as each platform defines it. */
function cacheDirectory(env: NodeJS.ProcessEnv): string {
  if (env.XDG_CACHE_HOME) return env.XDG_CACHE_HOME;
  if (process.platform === 'win32' && env.LOCALAPPDATA) return env.LOCALAPPDATA;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches');
  return join(homedir(), '.cache');
}

/**
 * `FileTokenStore`: OAuth clients and tokens in one JSON file readable by its owner only (0600, in
 * a 0700 directory), by default `tokens.json` under the user's configuration directory
 * (`$XDG_CONFIG_HOME/switchboard`, else `~/.config/switchboard`; `~/Library/Application
 * Support/switchboard` on macOS, `%APPDATA%\switchboard` on Windows). The CLI signs in with it.
 * Written whole to a temporary file (created 0600) and renamed, so a crash never leaves half a file.
 * Read once and kept: the file is read again only when it changed (another process signed in), which
 * a `stat` tells, so a client that looks up its token on every request does not parse it every time.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { DataTokenStore, type TokenStoreData } from '../auth/client/store.js';
import { SwitchboardError } from '../protocol/errors.js';

/** The user's configuration directory, as each platform defines it. */
export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CONFIG_HOME) return env.XDG_CONFIG_HOME;
  if (process.platform === 'win32' && env.APPDATA) return env.APPDATA;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support');
  return join(homedir(), '.config');
}

/** Which version of the file a read saw: a rename (every save) changes the inode. */
const versionOf = (stats: Stats) => `${stats.ino}:${stats.size}:${stats.mtimeMs}`;

export class FileTokenStore extends DataTokenStore {
  readonly file: string;
  /** What the file held when last read or written, and its version then. */
  #cached: { data: TokenStoreData; version: string } | undefined;

  /** `file`: where to keep them. Default: `tokens.json` in the user's configuration directory. */
  constructor(file: string = join(configDirectory(), 'switchboard', 'tokens.json')) {
    super();
    this.file = file;
  }

  protected async load(): Promise<TokenStoreData> {
    let text: string;
    let version: string;
    try {
      version = versionOf(statSync(this.file));
      if (this.#cached?.version === version) return this.#cached.data;
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      this.#cached = undefined;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { clients: {}, tokens: {} };
      throw new SwitchboardError(
        'CONFIG',
        `Cannot read the token store ${this.file}: ${(error as Error).message}.`,
      );
    }
    let data: Partial<TokenStoreData>;
    try {
      data = JSON.parse(text) as Partial<TokenStoreData>;
    } catch {
      throw new SwitchboardError(
        'CONFIG',
        `The token store ${this.file} is not valid JSON: delete it (you will sign in again).`,
      );
    }
    const object = (value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.assign(Object.create(null), value)
        : Object.create(null);
    const loaded = { clients: object(data.clients), tokens: object(data.tokens) };
    this.#cached = { data: loaded, version };
    return loaded;
  }

  protected async save(data: TokenStoreData): Promise<void> {
    this.#cached = undefined;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600); // an existing temporary file keeps its mode otherwise
    renameSync(temporary, this.file);
    this.#cached = { data, version: versionOf(statSync(this.file)) };
  }
}

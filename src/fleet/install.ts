/**
 * `add`, `remove` and `list` over the clients' files: each change planned first (the file's text
 * before and after, for `--dry-run`'s diff), then written; what each file holds read back as what
 * the client would start, and checked for what would keep it from starting.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { NAME_CHARS } from '../gateway/config.js';
import { CLIENT_IDS, CLIENTS, type ClientInfo, type Place, type Scope } from './clients.js';
import { openConfig } from './config-file.js';
import { expandLaunch, type Launch, type RenderOptions, readEntry, renderEntry } from './entries.js';
import { FleetError } from './errors.js';
import { findOnPath, resolveCommand } from './resolve-command.js';
import type { ServerSpec } from './spec.js';
import { clientEnvironment } from './verify.js';
import { type Written, writeConfig } from './write-file.js';

export interface PlannedChange {
  readonly client: ClientInfo;
  readonly file: string;
  readonly before: string;
  readonly after: string;
  /** What the client will find under the name, as written. */
  readonly entry: Record<string, unknown> | undefined;
  readonly notes: readonly string[];
}

export type Planned = PlannedChange | { readonly client: ClientInfo; readonly error: string };

export function checkServerName(name: string): void {
  if (!NAME_CHARS.test(name) || name.length > 64) {
    throw new FleetError(
      `The server name ${JSON.stringify(name)} is not one every client accepts: use 1-64 characters from A-Z, a-z, 0-9, "_" and "-".`,
    );
  }
}

/** The clients found on this machine: those whose file or folder exists. */
export function installedClients(place: Place): ClientInfo[] {
  return CLIENT_IDS.map((id) => CLIENTS[id]).filter(
    (c) => existsSync(c.path('user', place)!) || c.installedMarkers(place).some((m) => existsSync(m)),
  );
}

function fileFor(client: ClientInfo, scope: Scope, place: Place): string {
  const file = client.path(scope, place);
  if (file === undefined)
    throw new FleetError(
      `${client.title} has no ${scope}-scope file; use --scope ${scope === 'user' ? 'project' : 'user'}.`,
    );
  return file;
}

/** The spec as written into a local client's file: the command absolute, with the PATH it needs. */
export function localSpec(spec: ServerSpec, env: Readonly<Record<string, string | undefined>>): ServerSpec {
  return spec.kind === 'stdio' ? resolveCommand(spec, env) : spec;
}

export function planAdd(
  clients: readonly ClientInfo[],
  name: string,
  spec: ServerSpec,
  scope: Scope,
  place: Place,
  render: RenderOptions,
): Planned[] {
  return clients.map((client) => {
    try {
      const file = fileFor(client, scope, place);
      const doc = openConfig(file, client);
      const { entry, inputs, notes } = renderEntry(client, name, spec, render);
      const replaced = doc.servers().has(name);
      doc.set(name, entry, inputs);
      return {
        client,
        file,
        before: doc.original,
        after: doc.text(),
        entry,
        notes: replaced ? [`replaced the entry "${name}" it had.`, ...notes] : notes,
      };
    } catch (error) {
      if (error instanceof FleetError) return { client, error: error.message };
      throw error;
    }
  });
}

export function planRemove(
  clients: readonly ClientInfo[],
  name: string,
  scope: Scope,
  place: Place,
): Planned[] {
  return clients.map((client) => {
    try {
      const file = fileFor(client, scope, place);
      const doc = openConfig(file, client);
      if (!doc.remove(name)) return { client, error: `${file} has no server "${name}".` };
      return { client, file, before: doc.original, after: doc.text(), entry: undefined, notes: [] };
    } catch (error) {
      if (error instanceof FleetError) return { client, error: error.message };
      throw error;
    }
  });
}

export function applyChange(change: PlannedChange): Written {
  return writeConfig(change.file, change.after);
}

export interface ListedEntry {
  readonly client: ClientInfo;
  readonly scope: Scope;
  readonly file: string;
  readonly name: string;
  /** What the client would start or connect to; a string when the entry is not usable. */
  readonly launch: Launch | string;
  /** Why it would not start, when that can be told without starting it. */
  readonly problems: readonly string[];
}

export interface ListedFile {
  readonly client: ClientInfo;
  readonly scope: Scope;
  readonly file: string;
  /** The file does not parse (file:line:column). */
  readonly error?: string;
  readonly entries: readonly ListedEntry[];
}

export function listServers(
  clients: readonly ClientInfo[],
  scopes: readonly Scope[],
  place: Place,
): ListedFile[] {
  const out: ListedFile[] = [];
  for (const client of clients) {
    const seen = new Set<string>();
    for (const scope of scopes) {
      const file = client.path(scope, place);
      // In the home folder, a project file can be the user's file.
      if (file === undefined || seen.has(file) || !existsSync(file)) continue;
      seen.add(file);
      try {
        const doc = openConfig(file, client);
        const entries = [...doc.servers()].map(([name, value]): ListedEntry => {
          const launch = readEntry(client, value);
          return {
            client,
            scope,
            file,
            name,
            launch,
            problems: typeof launch === 'string' ? [launch] : startProblems(client, launch, place, scope),
          };
        });
        out.push({ client, scope, file, entries });
      } catch (error) {
        if (!(error instanceof FleetError)) throw error;
        out.push({ client, scope, file, error: error.message, entries: [] });
      }
    }
  }
  return out;
}

/** What keeps an entry from starting, found without starting it: a command or file not there, a variable not set. */
export function startProblems(client: ClientInfo, launch: Launch, place: Place, scope: Scope): string[] {
  const { launch: expanded, missing } = expandLaunch(client, launch, place.env, place);
  const problems = [...missing];
  if (expanded.kind !== 'stdio') return problems;
  const env = { ...clientEnvironment(client, place.env), ...expanded.env };
  if (findOnPath(expanded.command, env.PATH) === undefined) {
    problems.push(
      isAbsolute(expanded.command)
        ? `${expanded.command} does not exist or is not executable`
        : `${expanded.command} is not on the PATH ${client.title} starts servers with (${env.PATH}): spawn ${expanded.command} ENOENT`,
    );
  }
  const cwd = expanded.cwd ?? (scope === 'project' ? place.projectDir : place.home);
  for (const arg of expanded.args) {
    const looksLikeFile = isAbsolute(arg) || /^\.{0,2}[\w@./-]*\.(?:[cm]?js|ts|py)$/.test(arg);
    if (looksLikeFile && !arg.startsWith('-') && !existsSync(resolve(cwd, arg)))
      problems.push(`the file ${arg} does not exist`);
  }
  return problems;
}

/**
 * The server.json of `add --server-json` and `check --server-json`: read, with the inputs it
 * requires taken from `--env`/`--header` or asked for at a terminal (secrets are never asked for:
 * they stay references to environment variables).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { FleetError } from '../fleet/errors.js';
import {
  type Declared,
  declaredServers,
  type InputSource,
  parseServerJson,
  type ServerJson,
} from '../fleet/server-json.js';
import type { ServerSpec, StdioSpec } from '../fleet/spec.js';
import type { CliIo } from './io.js';

export function readServerJson(file: string): ServerJson {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new FleetError(`--server-json: cannot read ${file} (${(error as Error).message}).`);
  }
  return parseServerJson(source, file);
}

export function terminalInputs(given: Readonly<Record<string, string>>): InputSource {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return { given };
  return {
    given,
    async ask(question) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
  };
}

/** The first way of running the server that can be written into a client's file. */
export async function specFromServerJson(
  file: string,
  env: Readonly<Record<string, string>>,
  headers: Readonly<Record<string, string>>,
  _io: CliIo,
): Promise<{ spec: ServerSpec; start?: StdioSpec; notes: string[] }> {
  const json = readServerJson(file);
  const declared = await declaredServers(json, terminalInputs({ ...env, ...headers }));
  const chosen = declared.find((d): d is Declared => !('error' in d));
  if (chosen === undefined)
    throw new FleetError(
      `${file}: nothing it declares can be written into a client: ${declared.map((d) => ('error' in d ? d.error : '')).join(' ')}`,
    );
  const notes = [
    `${json.name}${json.version ? ` ${json.version}` : ''}: the ${chosen.label}${declared.length > 1 ? ` (the first of the ${declared.length} the file declares)` : ''}.`,
  ];
  if (chosen.start && chosen.spec.kind === 'url')
    notes.push(
      `The package serves ${chosen.transport} at ${chosen.spec.url}: each client connects to that URL, so the package must be running first; start it with: ${shellWords([chosen.start.command, ...chosen.start.args])}` +
        (Object.keys(chosen.start.env).length > 0
          ? ` (environment: ${Object.keys(chosen.start.env).join(', ')})`
          : ''),
    );
  if (chosen.secrets.length > 0)
    notes.push(
      `Its secrets are references: set ${chosen.secrets.join(', ')} in the environment the client runs in.`,
    );
  return { spec: chosen.spec, ...(chosen.start ? { start: chosen.start } : {}), notes };
}

/** A command line a person can paste into a POSIX shell. */
function shellWords(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

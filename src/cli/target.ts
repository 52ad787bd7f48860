/**
 * What `<target>` names: the server to talk to. Today that is a command to spawn over stdio; an
 * `http(s)://` URL will be the second kind, handled by its own branch here and in `session.ts`.
 */
import { splitCommandLine } from './command-line.js';
import { UsageError } from './usage-error.js';

export interface StdioTarget {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
}

export type Target = StdioTarget;

/**
 * Reads a target from the words that name it: either one word holding a whole command line
 * (`"node server.js --flag"`, split with shell-like quoting) or the words after `--`, taken as
 * they are (`-- npx -y some-server`).
 */
export function parseTarget(words: readonly string[], fromDoubleDash: boolean): Target {
  const [first] = words;
  if (first === undefined || (words.length === 1 && first.trim() === '')) {
    throw new UsageError(
      'Missing the server to talk to: give its command line as one quoted argument ("node server.js") or after -- (-- node server.js).',
    );
  }
  if (words.length === 1 && /^https?:\/\//i.test(first.trim())) {
    throw new UsageError(
      `HTTP targets (${first.trim()}) are not supported by this version of the CLI yet; run the server over stdio instead, e.g. "node server.js".`,
    );
  }
  const [command, ...args] = fromDoubleDash ? words : splitCommandLine(first);
  if (command === undefined || command === '') {
    throw new UsageError(`The server command ${JSON.stringify(first)} names no program to run.`);
  }
  return { kind: 'stdio', command, args };
}

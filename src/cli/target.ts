/**
 * What `<target>` names: the server to talk to — a command to spawn over stdio, or an `http(s)://`
 * URL of a Streamable HTTP (or legacy HTTP+SSE) endpoint.
 */
import { CommandLineError, splitCommandLine } from '../util/command-line.js';
import { UsageError } from './usage-error.js';

export interface StdioTarget {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
}

export interface HttpTarget {
  readonly kind: 'http';
  readonly url: URL;
}

export type Target = StdioTarget | HttpTarget;

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
  if (!fromDoubleDash && words.length === 1 && /^https?:\/\//i.test(first.trim())) {
    try {
      return { kind: 'http', url: new URL(first.trim()) };
    } catch {
      throw new UsageError(
        `${JSON.stringify(first.trim())} is not a valid URL; give the full endpoint, e.g. http://127.0.0.1:7420/mcp.`,
      );
    }
  }
  const [command, ...args] = fromDoubleDash ? words : splitAsUsage(first);
  if (command === undefined || command === '') {
    throw new UsageError(`The server command ${JSON.stringify(first)} names no program to run.`);
  }
  return { kind: 'stdio', command, args };
}

function splitAsUsage(line: string): string[] {
  try {
    return splitCommandLine(line);
  } catch (error) {
    if (error instanceof CommandLineError) throw new UsageError(error.message);
    throw error;
  }
}

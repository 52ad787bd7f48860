import { type ParseArgsConfig, parseArgs } from 'node:util';
import { errorMessage } from '../util/guards.js';

/**
 * A mistake in how the CLI was invoked (unknown option, bad `key=value`, unparsable target). The CLI
 * exits with code 2 for these and 1 for everything that went wrong after the invocation was
 * understood, so scripts can tell "you called me wrong" from "the server failed".
 */
export class UsageError extends Error {
  override name = 'UsageError';
  /** The command whose help to point at, if the mistake concerns one command. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** How every command reads its words: strictly, with positionals, and with tokens (to find `--`). */
interface CommandLine<O extends CommandOptions> {
  args: string[];
  options: O;
  allowPositionals: true;
  strict: true;
  tokens: true;
}
type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * `parseArgs` as the commands call it. A mistake in the words (an unknown option, a missing value)
 * is a UsageError, worded by `explain` (node's own message by default) and pointing at `command`'s
 * help.
 */
export function parseCommandLine<const O extends CommandOptions>(
  argv: readonly string[],
  options: O,
  command: string | undefined,
  explain: (error: unknown) => string = errorMessage,
): ReturnType<typeof parseArgs<CommandLine<O>>> {
  try {
    return parseArgs<CommandLine<O>>({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(explain(error), command);
  }
}

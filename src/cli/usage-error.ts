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

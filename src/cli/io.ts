/** Where the CLI writes: its own standard output and error, or a test's buffers. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /**
   * Called by a long-running command (`console`) once it runs: resolves when it should stop
   * (Ctrl-C). Only then are signals caught, so the other commands keep Ctrl-C's usual meaning.
   */
  untilStopped?: () => Promise<void>;
}

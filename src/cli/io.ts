/** Where the CLI writes: stdout and stderr, or a test's buffers. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** Where the CLI writes: its own standard output and error, or a test's buffers. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

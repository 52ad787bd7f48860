#!/usr/bin/env node
/** The `switchboard` executable. Everything but the process wiring lives in `cli.ts`. */
import { runCli } from './cli.js';

// A reader that goes away (`switchboard tools ... | head`) must not turn into a crash.
process.stdout.on('error', () => {});

process.exitCode = await runCli(process.argv.slice(2), {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  // Long-running commands (`console`) stop cleanly on Ctrl-C or SIGTERM, closing what they opened.
  untilStopped: () =>
    new Promise((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
});

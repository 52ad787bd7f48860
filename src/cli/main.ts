#!/usr/bin/env node
/** The `switchboard` executable. Everything but the process wiring lives in `cli.ts`. */
import module from 'node:module';

// Every run of the CLI is a cold start, most of it V8 compiling the bundles. Node >= 22.1 can keep
// the compiled code on disk between runs (as tsc does for itself); Node 20 has no such cache, so the
// call is feature-detected. It must come before the rest of the CLI loads, hence the import below.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { runCli } = await import('./cli.js');

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

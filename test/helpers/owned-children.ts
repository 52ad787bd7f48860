/**
 * Child processes a test file owns: killed when the file's process ends, however it ends. The test
 * runner stops a file that outlives its timeout with SIGTERM, which skips every `finally`: a gateway
 * started with `--port` (it does not end with its stdin) would outlive the suite.
 */
import { type ChildProcessWithoutNullStreams, type SpawnOptions, spawn } from 'node:child_process';

const owned = new Set<ChildProcessWithoutNullStreams>();
let installed = false;

function killOwned(): void {
  for (const child of owned) child.kill('SIGKILL');
  owned.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', killOwned);
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    process.once(signal, () => {
      killOwned();
      process.exit(code);
    });
  }
}

/** `spawn` with piped stdio, the child killed (SIGKILL) when this process exits or is stopped. */
export function spawnOwned(
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): ChildProcessWithoutNullStreams {
  install();
  const child = spawn(command, args, { ...options, stdio: 'pipe' }) as ChildProcessWithoutNullStreams;
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  return child;
}

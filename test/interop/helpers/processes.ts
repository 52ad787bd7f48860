/** Process hygiene for the interop tests: every child a test spawned must be gone when it ends. */
import { until } from '../../helpers/wait.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid exists but belongs to someone else (it was reused): ours is gone.
    return (
      (error as NodeJS.ErrnoException).code !== 'ESRCH' && (error as NodeJS.ErrnoException).code !== 'EPERM'
    );
  }
}

/**
 * Fails unless every pid has exited. A closed transport has usually reaped its child already; the
 * bounded wait covers transports whose close() resolves before the exit is observed.
 */
export async function assertExited(pids: Iterable<number>, label: string, limitMs = 30_000): Promise<void> {
  for (const pid of pids)
    await until(() => !alive(pid), `${label}: child process ${pid} exiting after close()`, limitMs);
}

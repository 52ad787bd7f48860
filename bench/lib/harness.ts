/**
 * Process plumbing for the harness: fork a load-client worker for one job, start an HTTP fixture
 * server and ask it for its memory. Every process started here is ended here, by its own pid.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Job } from '../worker.js';

export const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const WORKER = fileURLToPath(new URL('../worker.js', import.meta.url));

/** Absolute path of a compiled fixture, e.g. `fixture('raw-stdio')`. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/${name}.js`, import.meta.url));
}

/** A job that failed: the cell is reported as failed, the run goes on. */
export class JobError extends Error {}

/**
 * Runs `job` in a fresh worker and resolves with its result. `onStep` answers a `sessions` job's
 * checkpoints (the worker waits until it resolves). A worker that outlives `timeoutMs` is killed.
 * `execArgv` goes to the worker's node (e.g. `--cpu-prof`).
 */
export function runJob<T>(
  job: Job,
  timeoutMs: number,
  onStep?: (step: string) => Promise<void>,
  execArgv: readonly string[] = [],
): Promise<T> {
  return new Promise((resolve, reject) => {
    // --no-warnings: the official SDK clients print a MaxListenersExceededWarning per HTTP call
    // (one AbortSignal shared by every fetch), tens of thousands of lines per run.
    const child = fork(WORKER, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: ['--no-warnings', ...execArgv],
    });
    let settled = false;
    const running = () => child.exitCode === null && child.signalCode === null;
    const finish = (error: Error | undefined, value?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        if (running()) child.kill('SIGKILL');
        reject(error);
        return;
      }
      // A worker exits by itself once its result is out (writing a --cpu-prof profile on the way).
      if (!running()) {
        resolve(value as T);
        return;
      }
      const grace = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(grace);
        resolve(value as T);
      });
    };
    const timer = setTimeout(
      () => finish(new JobError(`${describeJob(job)} did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.on('message', (message: { type: string; result?: T; message?: string }) => {
      if (message.type === 'result') finish(undefined, message.result);
      else if (message.type === 'error') finish(new JobError(`${describeJob(job)}: ${message.message}`));
      else if (onStep) {
        onStep(message.type).then(
          () => child.send({ type: 'proceed' }),
          (error: Error) => finish(error),
        );
      }
    });
    child.once('exit', (code, signal) =>
      finish(new JobError(`${describeJob(job)}: the worker exited (${signal ?? code}) without a result`)),
    );
    child.send(job);
  });
}

function describeJob(job: Job): string {
  if (job.type === 'cold') return `cold job (${job.servers.map((s) => s.id).join(', ')})`;
  const where = job.target.kind === 'stdio' ? job.target.args.join(' ') : job.target.url;
  return `${job.type} job (${job.client} client, ${job.era}, ${where})`;
}

export interface MemoryReport {
  rss: number;
  heapUsed: number;
  external: number;
}

/** An HTTP fixture server in its own process. */
export interface ServerProcess {
  readonly pid: number;
  readonly url: string;
  /** Forces a full GC in the server and reports its memory. */
  memory(): Promise<MemoryReport>;
  stop(): Promise<void>;
}

/**
 * Forks an HTTP fixture (with `--expose-gc`, so memory can be measured after a collection, plus
 * `execArgv`) and waits for it to report its URL. Rejects if it exits or stays silent for `timeoutMs`
 * (a hang guard: on a busy 2-core machine the official SDK's fixture once took over 20 s to listen).
 */
export function startServer(
  name: string,
  args: readonly string[],
  timeoutMs = 60_000,
  execArgv: readonly string[] = [],
): Promise<ServerProcess> {
  const child = fork(fixture(name), [...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: ['--expose-gc', ...execArgv],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new JobError(`HTTP fixture ${name} did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new JobError(`HTTP fixture ${name} exited (${code}) before listening`));
    };
    child.once('exit', onExit);
    // `pid`: the process that serves, when it is not the fixture itself (a fixture that starts a
    // third-party proxy reports the proxy's pid, so its CPU is measured and the upstream it spawns
    // counted as its descendants).
    child.once('message', (message: { type: string; url?: string; pid?: number; message?: string }) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (message.type !== 'listening') {
        child.kill('SIGKILL');
        reject(new JobError(`HTTP fixture ${name}: ${message.message ?? message.type}`));
        return;
      }
      resolve(serverHandle(child, message.url!, message.pid));
    });
  });
}

function serverHandle(child: ChildProcess, url: string, pid = child.pid!): ServerProcess {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    pid,
    url,
    memory: () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new JobError('the HTTP fixture did not report its memory')),
          10_000,
        );
        child.once('message', (report: MemoryReport) => {
          clearTimeout(timer);
          resolve(report);
        });
        child.send({ type: 'memory' });
      }),
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Child processes of the conformance run: the suite's CLI and the fixture server. */
import { type ChildProcess, spawn } from 'node:child_process';

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Runs a command to its end (or kills it after `timeoutMs`), collecting its output. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; timeoutMs: number },
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}\n${error.message}`, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

export interface FixtureServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `node <script> --port 0` and waits for the URL it prints once it listens. */
export function startFixtureServer(script: string, cwd: string, timeoutMs = 60_000): Promise<FixtureServer> {
  const child = spawn(process.execPath, [script, '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`The fixture server did not start (${why}).${stderr ? `\n${stderr}` : ''}`));
    };
    const timer = setTimeout(() => fail(`no URL within ${timeoutMs} ms`), timeoutMs);
    child.on('error', (error) => fail(error.message));
    child.on('exit', (code) => fail(`it exited with code ${code}`));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.startsWith('http://'));
      if (!line) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ url: line.trim(), stop: () => stop(child) });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs `jobs` with at most `limit` at a time; results keep the jobs' order. */
export async function pool<T>(limit: number, jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

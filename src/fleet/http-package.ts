/**
 * A server.json package that serves HTTP (its `transport` is streamable-http or sse) is run, and
 * waited for until its URL answers, before it is checked or verified; then it is stopped. The wait
 * ends early, with its stderr, when the package exits before it serves.
 */
import { spawn } from 'node:child_process';
import { clip } from '../util/clip.js';
import { errorMessage } from '../util/guards.js';
import { FleetError } from './errors.js';

export interface HttpPackageStart {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface RunningPackage {
  /** Stops it (SIGTERM, then SIGKILL after a grace period) and waits until it has exited. */
  close(): Promise<void>;
}

const STDERR_TAIL = 2_000;
/** How often the URL is tried while the package starts. */
const RETRY_MS = 100;
const KILL_GRACE_MS = 2_000;

/** Runs `start` and resolves once `url` answers any HTTP request (within `timeoutMs`). */
export async function startHttpPackage(
  start: HttpPackageStart,
  url: string,
  timeoutMs: number,
): Promise<RunningPackage> {
  const child = spawn(start.command, [...start.args], {
    env: { ...process.env, ...start.env },
    ...(start.cwd ? { cwd: start.cwd } : {}),
    // stdin stays open: some servers stop when it closes.
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`it could not be started: ${errorMessage(error)}`));
    child.once('exit', (code, signal) => resolve(`it exited (${signal ?? `code ${code}`})`));
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const close = async () => {
    if (gone) return;
    child.stdin?.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  const command = [start.command, ...start.args].join(' ');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await Promise.race([
      answers(url).then((ok) => (ok ? 'serving' : 'not yet')),
      exited.then((why) => ({ why })),
    ]);
    if (outcome === 'serving') return { close };
    if (typeof outcome === 'object') {
      throw new FleetError(
        `${command} was to serve ${url}, but ${outcome.why} before it did${stderr ? `: ${clip(stderr.trim(), 600)}` : ''}.`,
      );
    }
    if (Date.now() > deadline) {
      await close();
      throw new FleetError(
        `${command} did not serve ${url} within ${timeoutMs} ms${stderr ? ` (its stderr: ${clip(stderr.trim(), 600)})` : ''}.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** Whether anything answers HTTP at `url` (any status: it listens). */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

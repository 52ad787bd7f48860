/**
 * The client side of stdio: spawns an MCP server as a child process and talks to it over its
 * stdin/stdout.
 *
 * - No shell, and by default only a safe subset of our environment (see child-env.ts).
 * - The child's stderr is read all the time (a chatty child must never block on a full pipe) and is
 *   never an error signal (spec); its tail is kept so an exit can be explained.
 * - Shutdown follows the spec: end stdin, wait, SIGTERM, wait, SIGKILL. `close()` resolves only
 *   once the child has exited and been reaped.
 * - Every failure (spawn error, crash, broken pipe) arrives as one `sink.closed(error)`; nothing
 *   is thrown or left as an unhandled rejection.
 */
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Channel, ChannelSink, FrameInfo } from '../../engine/channel.js';
import { SwitchboardError } from '../../protocol/errors.js';
import type { Era } from '../../protocol/revisions.js';
import { formatBytes } from '../../util/bytes.js';
import { errorMessage } from '../../util/guards.js';
import { type Logger, silentLogger } from '../../util/logger.js';
import { childEnv } from './child-env.js';
import { FrameWriter, type SendErrorHandler } from './frame-writer.js';
import { JsonLineDecoder } from './framing.js';
import { StderrTail } from './stderr-tail.js';

/**
 * What happens to the child's stderr:
 * - `'inherit'` (default): copied to our stderr;
 * - `'pipe'`: read and kept only for {@link StdioClientChannel.stderrTail} and error messages;
 * - `'ignore'`: discarded by the OS (no tail either);
 * - a function: called with each decoded chunk of text.
 * In every case but `'ignore'` the last lines are kept for error messages.
 */
export type StderrHandling = 'pipe' | 'inherit' | 'ignore' | ((chunk: string) => void);

export interface StdioClientChannelOptions {
  /** The executable, found on PATH when not a path. Run without a shell: no quoting, no globbing. */
  command: string;
  args?: readonly string[];
  /** Variables to set (string) or remove (undefined) in the child's environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Give the child our whole environment rather than the safe subset. Default false. */
  inheritEnv?: boolean;
  cwd?: string;
  stderr?: StderrHandling;
  /** Largest inbound message in bytes. Default 32 MiB. */
  maxMessageBytes?: number;
  /** How long each shutdown step (stdin EOF, then SIGTERM) may take before the next. Default 2000 ms. */
  shutdownTimeoutMs?: number;
  /**
   * Most bytes of frames that may wait for a server that does not read its stdin; past it the
   * connection closes with a TRANSPORT error. Default 64 MiB.
   */
  maxQueuedBytes?: number;
  /**
   * The era this server is known to speak (e.g. remembered from an earlier run): `auto` negotiation
   * then starts with its handshake instead of probing the other era first.
   */
  preferredEra?: Era;
  /**
   * Told about a frame refused because it contains a raw newline, or sent before `start()`. Default:
   * the logger of the Client this channel connects, if it was given one, else silent.
   */
  logger?: Logger;
  /** Told about the same problems instead of the logger (kept from before `logger`). */
  onSendError?: SendErrorHandler;
}

/** How the child ended: an exit code, or the signal that killed it. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class StdioClientChannel implements Channel {
  readonly #options: StdioClientChannelOptions;
  readonly #commandLine: string;
  readonly #shutdownTimeoutMs: number;
  readonly #decoder: JsonLineDecoder;
  readonly #tail = new StderrTail();
  #child: ChildProcess | undefined;
  #writer: FrameWriter | undefined;
  #sink: ChannelSink | undefined;
  #exit: ChildExit | undefined;
  /** close() was called: the child's exit is then expected, not an error. */
  #closeRequested = false;
  /** The end-stdin/SIGTERM/SIGKILL sequence has begun. */
  #stopping = false;
  /** The child's stdout ended before we saw it exit (it may be exiting, or may have closed it). */
  #stdoutClosedFirst = false;
  /** Bytes that were waiting when the server's stdin backlog passed `maxQueuedBytes`. */
  #overflowed: number | undefined;
  #signalSent: NodeJS.Signals | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #finished = false;
  readonly #done: Promise<void>;
  #resolveDone!: () => void;

  constructor(options: StdioClientChannelOptions) {
    if (typeof options?.command !== 'string' || options.command === '') {
      throw new SwitchboardError('CONFIG', 'StdioClientChannel needs a non-empty `command` to run');
    }
    this.#options = options;
    this.#commandLine = [options.command, ...(options.args ?? [])].map(quoteForDisplay).join(' ');
    this.#shutdownTimeoutMs = options.shutdownTimeoutMs ?? 2000;
    this.#decoder = new JsonLineDecoder(
      {
        message: (value, extra) => {
          if (!this.#finished) this.#sink?.message(value, extra);
        },
        malformed: (error) => {
          if (!this.#finished) this.#sink?.malformed(error);
        },
      },
      { maxMessageBytes: options.maxMessageBytes },
    );
    this.#done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** E.g. `stdio: node server.js (pid 4242)`. */
  get label(): string {
    const pid = this.pid;
    return `stdio: ${this.#commandLine}${pid === undefined ? '' : ` (pid ${pid})`}`;
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** See {@link StdioClientChannelOptions.preferredEra}. */
  get preferredEra(): Era | undefined {
    return this.#options.preferredEra;
  }

  /** How the child ended, once it has. */
  get exitStatus(): ChildExit | undefined {
    return this.#exit;
  }

  /** The last lines (at most 20, 4 KB) the child wrote to stderr. Empty with `stderr: 'ignore'`. */
  stderrTail(): string {
    return this.#tail.toString();
  }

  start(sink: ChannelSink): void {
    if (this.#sink) return;
    this.#sink = sink;
    if (this.#closeRequested) {
      queueMicrotask(() => this.#finish());
      return;
    }
    const options = this.#options;
    const stderr = options.stderr ?? 'inherit';
    let child: ChildProcess;
    try {
      child = childProcess().spawn(options.command, options.args ?? [], {
        cwd: options.cwd,
        env: childEnv(process.env, options),
        stdio: ['pipe', 'pipe', stderr === 'ignore' ? 'ignore' : 'pipe'],
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      // Invalid arguments (e.g. a NUL byte) throw synchronously; report like any spawn failure,
      // but not from inside start(), so the caller is not re-entered.
      queueMicrotask(() => this.#finish(this.#spawnError(error)));
      return;
    }
    this.#child = child;
    this.#writer = new FrameWriter(child.stdin!, {
      onSendError: (error) => this.#report(error),
      maxQueuedBytes: options.maxQueuedBytes,
      onOverflow: (queuedBytes) => {
        // It is not reading: nothing sent now would arrive. Stop it and say why.
        this.#overflowed = queuedBytes;
        this.#stop();
      },
    });
    child.on('error', this.#onChildError);
    child.once('exit', this.#onExit);
    child.once('close', () => this.#finish(this.#closeRequested ? undefined : this.#exitError()));
    // A write to a dead child fails with EPIPE; the exit that follows is what gets reported.
    child.stdin!.on('error', () => {});
    child.stdout!.on('error', () => {});
    child.stdout!.on('data', (chunk: Uint8Array) => this.#decoder.push(chunk));
    child.stdout!.on('end', this.#onStdoutEnd);
    if (child.stderr) {
      child.stderr.setEncoding('utf8');
      child.stderr.on('error', () => {});
      child.stderr.on('data', (text: string) => {
        this.#tail.append(text);
        if (stderr === 'inherit') process.stderr.write(text);
        else if (typeof stderr === 'function') {
          try {
            stderr(text);
          } catch {
            // A throwing log callback must not take the connection (or the process) down.
          }
        }
      });
    }
  }

  send(frame: string, info?: FrameInfo): void {
    if (this.#stopping || this.#finished) return;
    if (!this.#writer) {
      this.#report(
        new SwitchboardError(
          'NOT_CONNECTED',
          'Cannot send before start(): the server process is not running yet',
        ),
      );
      return;
    }
    this.#writer.send(frame, info !== undefined);
  }

  /** A refused frame: to `onSendError` if given, else to the logger. */
  #report(error: SwitchboardError): void {
    const { onSendError, logger } = this.#options;
    if (onSendError) onSendError(error);
    else (logger ?? this.#sink?.logger ?? silentLogger).error(error);
  }

  close(): Promise<void> {
    this.#closeRequested = true;
    if (!this.#child || this.#finished) {
      if (!this.#sink) this.#finish();
      return this.#done;
    }
    this.#stop();
    return this.#done;
  }

  readonly #onChildError = (error: Error): void => {
    // Without a pid the process never started. Later errors (a failed kill) change nothing:
    // the exit, whenever it comes, is what gets reported.
    if (this.#child?.pid === undefined) this.#finish(this.#spawnError(error));
  };

  readonly #onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    this.#exit = { code, signal };
    clearTimeout(this.#timer);
    if (this.#finished) return;
    // 'close' waits for the child's pipes to close. A grandchild that inherited them can keep them
    // open forever; the child itself is gone, so give its last output a moment, then let go.
    this.#timer = setTimeout(() => {
      this.#child?.stdout?.destroy();
      this.#child?.stderr?.destroy();
      this.#child?.stdin?.destroy();
    }, this.#shutdownTimeoutMs);
  };

  readonly #onStdoutEnd = (): void => {
    this.#decoder.end();
    if (this.#exit || this.#stopping) return;
    // A server that closes its stdout can no longer answer: stop it rather than leave it running.
    // (Usually it is exiting and its 'exit' is just behind; then the stop sequence ends at once.)
    this.#stdoutClosedFirst = true;
    this.#stop();
  };

  /** End stdin, then SIGTERM, then SIGKILL, each step after `shutdownTimeoutMs` unless it exited. */
  #stop(): void {
    // Also reached when a failed spawn's stdout ends: nothing to stop then, and no timer to leave.
    if (this.#stopping || this.#exit || this.#finished) return;
    this.#stopping = true;
    this.#writer?.end();
    this.#timer = setTimeout(() => {
      this.#signal('SIGTERM');
      this.#timer = setTimeout(() => this.#signal('SIGKILL'), this.#shutdownTimeoutMs);
    }, this.#shutdownTimeoutMs);
  }

  #signal(signal: NodeJS.Signals): void {
    if (this.#exit || !this.#child) return;
    this.#signalSent = signal;
    this.#child.kill(signal);
  }

  #finish(error?: Error): void {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#timer);
    this.#writer?.fail();
    this.#resolveDone();
    this.#sink?.closed(error);
  }

  #spawnError(error: unknown): SwitchboardError {
    const detail = errorMessage(error);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const cwd = this.#options.cwd;
    let advice: string;
    if (code === 'ENOENT') {
      advice = `Check that the command exists and is on PATH${cwd ? `, and that the directory "${cwd}" exists` : ''}`;
      if (process.platform === 'win32') {
        advice +=
          '; .cmd/.bat wrappers such as npx cannot be run without a shell: run node with the script instead';
      }
    } else if (code === 'EACCES') {
      advice = 'Check that the file is executable (chmod +x) and that you may run it';
    } else {
      advice = 'Check the command, its arguments and the working directory';
    }
    return new SwitchboardError(
      'TRANSPORT',
      `Could not start "${this.#options.command}": ${detail}. ${advice}.`,
      {
        cause: error,
      },
    );
  }

  #exitError(): SwitchboardError {
    const exit = this.#exit;
    const who = `The MCP server "${this.#commandLine}" (pid ${this.pid})`;
    let what: string;
    if (this.#overflowed !== undefined) {
      what =
        `stopped reading its stdin (${formatBytes(this.#overflowed)} of messages ` +
        `would have been waiting, past maxQueuedBytes), so it was stopped`;
    } else if (this.#stdoutClosedFirst && this.#signalSent) {
      what = `closed its stdout while still running, so it was stopped with ${this.#signalSent}`;
    } else if (exit?.signal) {
      what = `was killed by signal ${exit.signal}`;
    } else {
      what = `exited unexpectedly with code ${exit?.code ?? 'unknown'}`;
    }
    const tail = this.stderrTail();
    let stderr: string;
    if (this.#options.stderr === 'ignore') {
      stderr = "Its stderr was discarded (stderr: 'ignore'); use stderr: 'pipe' or 'inherit' to see why.";
    } else if (tail === '') {
      stderr = 'It wrote nothing to stderr; run the command yourself to see what it does.';
    } else {
      stderr = `Last lines of its stderr:\n${tail}`;
    }
    return new SwitchboardError('CONNECTION_CLOSED', `${who} ${what}. ${stderr}`);
  }
}

/**
 * `node:child_process`, loaded on the first spawn. `switchboard/stdio` is imported by every stdio
 * *server* too, which never spawns: loading child_process (and the modules it pulls in) would only
 * lengthen its cold start.
 */
let childProcessModule: typeof import('node:child_process') | undefined;
function childProcess(): typeof import('node:child_process') {
  childProcessModule ??= createRequire(import.meta.url)(
    'node:child_process',
  ) as typeof import('node:child_process');
  return childProcessModule;
}

/** Shows an argument the way a shell user would type it, so labels and errors are unambiguous. */
function quoteForDisplay(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

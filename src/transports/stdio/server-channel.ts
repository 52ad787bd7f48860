/**
 * The server side of stdio: frames in on stdin, frames out on stdout, nothing else ever on stdout.
 *
 * stdin reaching EOF (or closing) reports `closed()`: a server must not outlive its client (the
 * official SDK's server ignored it, leaving zombie servers behind). `close()` stops reading (so the
 * event loop can let the process exit), lets queued frames drain, then reports `closed()`.
 *
 * A client that stops reading stdout is not answered into an unbounded queue: once 1 MiB of frames
 * waits, the channel stops reading stdin until they have gone out (the client's own writes then
 * block on the full pipe), and past `maxQueuedBytes` it gives up on the client and closes.
 */
import type { Readable, Writable } from 'node:stream';
import type { Channel, ChannelSink, FrameInfo } from '../../engine/channel.js';
import { SwitchboardError } from '../../protocol/errors.js';
import { formatBytes } from '../../util/bytes.js';
import { type Logger, lineLogger } from '../../util/logger.js';
import { FrameWriter, type SendErrorHandler } from './frame-writer.js';
import { JsonLineDecoder } from './framing.js';

export interface StdioServerChannelOptions {
  /** Where frames come from. Default `process.stdin`. */
  stdin?: Readable;
  /** Where frames go. Default `process.stdout`. */
  stdout?: Writable;
  /** Largest inbound message in bytes. Default 32 MiB. */
  maxMessageBytes?: number;
  /** How long `close()` waits for queued frames to drain before giving up on them. Default 2000 ms. */
  flushTimeoutMs?: number;
  /**
   * Most bytes of frames that may wait for a client that does not read stdout; past it the channel
   * closes with a TRANSPORT error. Reading stdin pauses long before, at 1 MiB. Default 64 MiB.
   */
  maxQueuedBytes?: number;
  /**
   * Told about a frame refused because it contains a raw newline (an error), and about a client that
   * stopped reading stdout (a warning when reading pauses, an error when the connection is given
   * up). Default: the logger of the Server this channel serves, if it was given one, else a line on
   * stderr (the MCP place for a stdio server's logs).
   */
  logger?: Logger;
  /** Told about the same problems as errors, instead of the logger (kept from before `logger`). */
  onSendError?: SendErrorHandler;
}

/** What a stdio server process does with its problems when nobody said: stderr, its log. */
const stderrLogger: Logger = lineLogger((line) => process.stderr.write(line));

export class StdioServerChannel implements Channel {
  readonly label = 'stdio: stdin/stdout';
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #writer: FrameWriter;
  readonly #decoder: JsonLineDecoder;
  readonly #flushTimeoutMs: number;
  readonly #options: StdioServerChannelOptions;
  #sink: ChannelSink | undefined;
  /** Reading stdin (started and not stopped for good); pausing for backpressure keeps it true. */
  #reading = false;
  /** The client has been told once that reading paused: a slow client is not logged every time. */
  #pauseReported = false;
  #closedReported = false;
  #closing: Promise<void> | undefined;

  constructor(options: StdioServerChannelOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#flushTimeoutMs = options.flushTimeoutMs ?? 2000;
    this.#options = options;
    this.#writer = new FrameWriter(this.#stdout, {
      onSendError: (error) => this.#report(error),
      maxQueuedBytes: options.maxQueuedBytes,
      onCongestion: this.#onCongestion,
      onOverflow: this.#onOverflow,
    });
    this.#decoder = new JsonLineDecoder(
      {
        message: (value, extra) => this.#sink?.message(value, extra),
        malformed: (error) => this.#sink?.malformed(error),
      },
      { maxMessageBytes: options.maxMessageBytes },
    );
  }

  start(sink: ChannelSink): void {
    if (this.#sink || this.#closing) return;
    this.#sink = sink;
    this.#reading = true;
    // Output listeners stay attached after close: an EPIPE with no listener would crash the process.
    this.#stdout.on('error', this.#onOutputError);
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onInputEnd);
    this.#stdin.on('close', this.#onInputEnd);
    this.#stdin.on('error', this.#onInputError);
  }

  send(frame: string, info?: FrameInfo): void {
    if (this.#closing) return;
    this.#writer.send(frame, info !== undefined);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#stopReading();
      await this.#writer.idle(this.#flushTimeoutMs);
      this.#reportClosed();
    })();
    return this.#closing;
  }

  readonly #onData = (chunk: Uint8Array | string): void => {
    this.#decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  readonly #onInputEnd = (): void => {
    this.#decoder.end();
    this.#stopReading();
    this.#reportClosed();
  };

  readonly #onInputError = (error: Error): void => {
    this.#stopReading();
    this.#reportClosed(
      new SwitchboardError('TRANSPORT', `Reading stdin failed: ${error.message}`, { cause: error }),
    );
  };

  readonly #onCongestion = (congested: boolean, queuedBytes: number): void => {
    if (!this.#reading) return;
    if (!congested) {
      this.#stdin.resume();
      return;
    }
    this.#stdin.pause();
    if (this.#pauseReported) return;
    this.#pauseReported = true;
    this.#report(
      new SwitchboardError(
        'TRANSPORT',
        `The client is not reading stdout (${formatBytes(queuedBytes)} of answers waiting): stopped reading stdin until it does`,
      ),
      true,
    );
  };

  readonly #onOverflow = (queuedBytes: number): void => {
    const error = new SwitchboardError(
      'TRANSPORT',
      `The client stopped reading stdout: ${formatBytes(queuedBytes)} of frames would be waiting (maxQueuedBytes). Closing the connection`,
    );
    this.#report(error);
    this.#stopReading();
    this.#reportClosed(error);
  };

  readonly #onOutputError = (error: Error): void => {
    this.#writer.fail();
    this.#stopReading();
    this.#reportClosed(
      new SwitchboardError(
        'TRANSPORT',
        `Writing to stdout failed (${error.message}): the client has most likely exited or closed the pipe`,
        { cause: error },
      ),
    );
  };

  /** A problem no call hears about: to `onSendError` if given, else to the logger. */
  #report(error: SwitchboardError, warning = false): void {
    const { onSendError } = this.#options;
    if (onSendError) {
      onSendError(error);
      return;
    }
    const logger = this.#options.logger ?? this.#sink?.logger ?? stderrLogger;
    if (warning) logger.warn(error.message);
    else logger.error(error);
  }

  #stopReading(): void {
    this.#reading = false;
    const stdin = this.#stdin;
    stdin.off('data', this.#onData);
    stdin.off('end', this.#onInputEnd);
    stdin.off('close', this.#onInputEnd);
    // Keep swallowing late input errors: an unhandled 'error' event would crash the process.
    // Pausing releases process.stdin's hold on the event loop, so the process can exit.
    stdin.pause();
  }

  #reportClosed(error?: Error): void {
    if (this.#closedReported) return;
    this.#closedReported = true;
    this.#sink?.closed(error);
  }
}

/**
 * Writes frames to a Node Writable without ignoring backpressure and without losing or reordering
 * frames: while the stream asks us to wait (`write()` returned false), frames queue here, and on
 * 'drain' everything queued goes out as one write (one syscall instead of one per frame).
 */
import type { Writable } from 'node:stream';
import type { SwitchboardError } from '../../protocol/errors.js';
import { encodeFrame } from './framing.js';

/** Told about a frame that was refused instead of sent. */
export type SendErrorHandler = (error: SwitchboardError) => void;

/** Default {@link SendErrorHandler}: one line on our stderr, the only place a stdio process may log. */
export const reportSendErrorOnStderr: SendErrorHandler = (error) => {
  process.stderr.write(`switchboard: ${error.message}\n`);
};

export class FrameWriter {
  readonly #stream: Writable;
  readonly #onSendError: SendErrorHandler;
  #queue: string[] = [];
  #waitingForDrain = false;
  #failed = false;
  #idleWaiters: (() => void)[] = [];

  constructor(stream: Writable, onSendError: SendErrorHandler) {
    this.#stream = stream;
    this.#onSendError = onSendError;
  }

  /** Frames waiting for the stream to drain. */
  get queuedFrames(): number {
    return this.#queue.length;
  }

  /**
   * Frames and writes (or queues) one serialized message. Dropped once the stream has failed; a
   * frame that would break the framing goes to the send-error handler instead.
   */
  send(frame: string): void {
    if (this.#failed) return;
    let text: string;
    try {
      text = encodeFrame(frame);
    } catch (error) {
      this.#onSendError(error as SwitchboardError);
      return;
    }
    if (this.#waitingForDrain) {
      this.#queue.push(text);
      return;
    }
    if (!this.#stream.write(text)) this.#waitForDrain();
  }

  /**
   * Resolves once every queued frame has been handed to the stream and the stream has drained,
   * or the stream failed, or `timeoutMs` passed (a peer that stops reading must not hang us).
   */
  idle(timeoutMs: number): Promise<void> {
    if (!this.#waitingForDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#idleWaiters = this.#idleWaiters.filter((waiter) => waiter !== done);
        resolve();
      }, timeoutMs);
      this.#idleWaiters.push(done);
    });
  }

  /** Writes whatever is queued, ignoring backpressure, then ends the stream (the stream buffers it). */
  end(): void {
    if (!this.#failed && this.#queue.length > 0) this.#stream.write(this.#queue.join(''));
    this.#queue = [];
    this.#stream.off('drain', this.#onDrain);
    this.#waitingForDrain = false;
    this.#stream.end();
    this.#settleIdle();
  }

  /** The stream is broken: drop the queue and release anyone waiting in {@link idle}. */
  fail(): void {
    this.#failed = true;
    this.#queue = [];
    this.#stream.off('drain', this.#onDrain);
    this.#waitingForDrain = false;
    this.#settleIdle();
  }

  #waitForDrain(): void {
    this.#waitingForDrain = true;
    this.#stream.once('drain', this.#onDrain);
  }

  readonly #onDrain = (): void => {
    this.#waitingForDrain = false;
    if (this.#queue.length > 0) {
      const batch = this.#queue.length === 1 ? this.#queue[0]! : this.#queue.join('');
      this.#queue = [];
      if (!this.#stream.write(batch)) {
        this.#waitForDrain();
        return;
      }
    }
    this.#settleIdle();
  };

  #settleIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const waiter of waiters) waiter();
  }
}

/**
 * Writes frames to a Node Writable without ignoring backpressure and without losing or reordering
 * frames.
 *
 * Frames sent in the same tick are coalesced into one `write()`: a burst of answers (64 requests in
 * flight arrive in one pipe read and are answered in the same microtask drain) costs one syscall
 * instead of 64 — on a pipe the write syscall, not JSON, is what a message costs. The flush runs on
 * `process.nextTick`, i.e. right after the current callback and its promise continuations, so a lone
 * frame goes out with no added latency. While the stream asks us to wait (`write()` returned false),
 * frames keep queueing, and on 'drain' everything queued goes out as one write.
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
  /** Encoded frames (each ending in '\n') not yet handed to the stream. */
  #queue: string[] = [];
  #flushScheduled = false;
  #waitingForDrain = false;
  #failed = false;
  #ended = false;
  #idleWaiters: (() => void)[] = [];

  constructor(stream: Writable, onSendError: SendErrorHandler) {
    this.#stream = stream;
    this.#onSendError = onSendError;
  }

  /** Frames not yet handed to the stream (waiting for this tick's flush or for 'drain'). */
  get queuedFrames(): number {
    return this.#queue.length;
  }

  /**
   * Frames and queues one serialized message for this tick's write. Dropped once the stream has
   * failed or ended; a frame that would break the framing goes to the send-error handler instead.
   *
   * `fromEngine`: the frame was serialized by the engine (it came with its FrameInfo), i.e. by
   * `JSON.stringify`, which never emits a raw line break. Such frames skip the line-break check:
   * on a 10 MB answer that check (which first flattens the concatenated frame) cost as much as
   * writing it. Hand-made frames are always checked.
   */
  send(frame: string, fromEngine = false): void {
    if (this.#failed || this.#ended) return;
    let text: string;
    if (fromEngine) {
      text = `${frame}\n`;
    } else {
      try {
        text = encodeFrame(frame);
      } catch (error) {
        this.#onSendError(error as SwitchboardError);
        return;
      }
    }
    this.#queue.push(text);
    if (!this.#flushScheduled && !this.#waitingForDrain) {
      this.#flushScheduled = true;
      process.nextTick(this.#flush);
    }
  }

  /**
   * Resolves once every queued frame has been handed to the stream and the stream has drained,
   * or the stream failed, or `timeoutMs` passed (a peer that stops reading must not hang us).
   */
  idle(timeoutMs: number): Promise<void> {
    if (!this.#waitingForDrain && !this.#flushScheduled) return Promise.resolve();
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
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#failed && this.#queue.length > 0) this.#stream.write(this.#takeQueue());
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

  /** Everything queued as one string, emptying the queue. */
  #takeQueue(): string {
    const queue = this.#queue;
    this.#queue = [];
    return queue.length === 1 ? queue[0]! : queue.join('');
  }

  /** Hands the queue to the stream; false when the stream now asks us to wait for 'drain'. */
  #writeQueue(): boolean {
    if (this.#queue.length === 0) return true;
    if (this.#stream.write(this.#takeQueue())) return true;
    this.#waitingForDrain = true;
    this.#stream.once('drain', this.#onDrain);
    return false;
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    // A failed or ended writer has nothing left to write; a full stream flushes on 'drain'.
    if (this.#failed || this.#ended || this.#waitingForDrain) return;
    if (this.#writeQueue()) this.#settleIdle();
  };

  readonly #onDrain = (): void => {
    this.#waitingForDrain = false;
    if (this.#writeQueue()) this.#settleIdle();
  };

  #settleIdle(): void {
    if (this.#idleWaiters.length === 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const waiter of waiters) waiter();
  }
}

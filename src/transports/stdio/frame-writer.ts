/**
 * Writes frames to a Node Writable without ignoring backpressure and without losing or reordering
 * frames, and without letting a peer that stops reading grow the queue without bound.
 *
 * A frame that finds the writer idle (nothing written yet in this turn of the event loop) is
 * written at once: a lone frame waits for nothing, and the peer can start on the first frame of a
 * burst while the rest is still being produced. Frames sent after it in the same turn are coalesced
 * and written together when the turn ends (`setImmediate`), or as soon as {@link WRITE_AT_BYTES} of
 * them wait: a burst of answers (64 requests in flight arrive in one pipe read and are answered in
 * the same microtask drain), or frames sent from several I/O callbacks of one poll (a gateway
 * forwarding requests that arrived on 64 sockets), cost a few syscalls instead of 64 — on a pipe the
 * write syscall, not JSON, is what a message costs — and the peer starts on the first of them while
 * the rest is being produced. While
 * the stream asks us to wait (`write()` returned false), frames keep queueing, and on 'drain'
 * everything queued goes out as one write.
 *
 * The queue is bounded twice. Once {@link PAUSE_AT_BYTES} wait for 'drain', the writer reports
 * congestion so its owner stops reading from the peer (a stdio server pauses stdin: the answers to
 * what it reads are what fills the queue); when the queue has gone out, it reports relief. Past
 * `maxQueuedBytes` the peer is taken for gone: the writer fails (drops the queue, writes nothing
 * more) and reports the overflow, and its owner closes the connection.
 */
import type { Writable } from 'node:stream';
import { SwitchboardError } from '../../protocol/errors.js';
import { encodeFrame } from './framing.js';

/** Told about a frame that was refused instead of sent. */
export type SendErrorHandler = (error: SwitchboardError) => void;

/** Default cap on the frames waiting for a peer that does not read: 64 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Frames waiting for 'drain' at which the writer reports congestion: 1 MiB (or `maxQueuedBytes`, if
 * smaller). A client that reads never gets near it; the one a stdio server answers is paused there.
 */
export const PAUSE_AT_BYTES = 1024 * 1024;

/**
 * Bytes of frames coalesced in a turn that are written without waiting for its end: 4 KiB. A burst
 * of 64 answers then goes out in a few writes while it is being produced, so the peer works on the
 * first ones while this side makes the rest, where one write at the end of the turn had the two
 * processes take turns (measured in docs/benchmarks.md, "What the profile showed").
 */
export const WRITE_AT_BYTES = 4096;

export interface FrameWriterOptions {
  /** Told about a frame refused instead of sent. */
  onSendError: SendErrorHandler;
  /**
   * Most bytes of frames that may wait for the stream to drain (counted as UTF-16 code units, which
   * is bytes for ASCII JSON). A frame that would pass it, behind others already waiting, makes the
   * writer fail and report `onOverflow`. The first frame waiting is always accepted, however large.
   * Default {@link DEFAULT_MAX_QUEUED_BYTES}.
   */
  maxQueuedBytes?: number;
  /** The queue reached the pause point (`true`), or went out again (`false`). */
  onCongestion?: (congested: boolean, queuedBytes: number) => void;
  /** The queue would have passed `maxQueuedBytes`: the writer has failed. */
  onOverflow?: (queuedBytes: number) => void;
}

export class FrameWriter {
  readonly #stream: Writable;
  readonly #onSendError: SendErrorHandler;
  readonly #maxQueuedBytes: number;
  readonly #pauseAt: number;
  readonly #onCongestion: FrameWriterOptions['onCongestion'];
  readonly #onOverflow: FrameWriterOptions['onOverflow'];
  /** Encoded frames (each ending in '\n') not yet handed to the stream. */
  #queue: string[] = [];
  /** Their total length. */
  #queuedBytes = 0;
  #congested = false;
  #flushScheduled = false;
  /**
   * Something was written in this turn of the event loop: later frames wait for its end
   * ({@link #endTurn}, always pending while this is set) instead of making one write each.
   */
  #batching = false;
  #waitingForDrain = false;
  #failed = false;
  #ended = false;
  #idleWaiters: (() => void)[] = [];

  constructor(stream: Writable, options: FrameWriterOptions) {
    this.#stream = stream;
    this.#onSendError = options.onSendError;
    const max = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new SwitchboardError(
        'CONFIG',
        `maxQueuedBytes must be a positive integer number of bytes, got ${String(max)}`,
      );
    }
    this.#maxQueuedBytes = max;
    this.#pauseAt = Math.min(PAUSE_AT_BYTES, max);
    this.#onCongestion = options.onCongestion;
    this.#onOverflow = options.onOverflow;
  }

  /** Frames not yet handed to the stream (waiting for the end of the turn or for 'drain'). */
  get queuedFrames(): number {
    return this.#queue.length;
  }

  /** The length of those frames. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Whether the queue is past the pause point (see {@link FrameWriterOptions.onCongestion}). */
  get congested(): boolean {
    return this.#congested;
  }

  /**
   * Frames one serialized message and writes it, now or at the end of the turn. Dropped once the
   * stream has failed or ended; a frame that would break the framing goes to the send-error handler
   * instead.
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
    if (this.#waitingForDrain) {
      const queued = this.#queuedBytes + text.length;
      if (queued > this.#maxQueuedBytes && this.#queue.length > 0) {
        this.fail();
        this.#onOverflow?.(queued);
        return;
      }
      if (!this.#congested && queued >= this.#pauseAt) {
        this.#congested = true;
        this.#onCongestion?.(true, queued);
      }
    }
    this.#queue.push(text);
    this.#queuedBytes += text.length;
    // A full stream flushes on 'drain'; a turn that wrote flushes at its end.
    if (this.#waitingForDrain) return;
    if (this.#batching) {
      if (this.#queuedBytes >= WRITE_AT_BYTES) {
        this.#flushScheduled = false;
        this.#writeQueue();
        return;
      }
      this.#flushScheduled = true;
      return;
    }
    // Idle: this frame goes out now; whatever follows in this turn waits for its end.
    this.#batching = true;
    setImmediate(this.#endTurn);
    this.#writeQueue();
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
    this.#queuedBytes = 0;
    this.#stream.off('drain', this.#onDrain);
    this.#waitingForDrain = false;
    this.#stream.end();
    this.#settleIdle();
  }

  /** The stream is broken: drop the queue and release anyone waiting in {@link idle}. */
  fail(): void {
    this.#failed = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#stream.off('drain', this.#onDrain);
    this.#waitingForDrain = false;
    this.#settleIdle();
  }

  /** Everything queued as one string, emptying the queue. */
  #takeQueue(): string {
    const queue = this.#queue;
    this.#queue = [];
    this.#queuedBytes = 0;
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

  /**
   * The turn that wrote is over: what it queued since goes out as one write (and the next turn
   * batches behind that one); a turn that queued nothing leaves the writer idle.
   */
  readonly #endTurn = (): void => {
    this.#batching = false;
    if (!this.#flushScheduled) return;
    this.#flushScheduled = false;
    // A failed or ended writer has nothing left to write; a full stream flushes on 'drain'.
    if (this.#failed || this.#ended || this.#waitingForDrain) return;
    this.#batching = true;
    setImmediate(this.#endTurn);
    if (this.#writeQueue()) this.#settleIdle();
  };

  readonly #onDrain = (): void => {
    this.#waitingForDrain = false;
    const drained = this.#writeQueue();
    // The queue went out: what it held now waits in the stream's own buffer, at most one queue.
    if (this.#congested) {
      this.#congested = false;
      this.#onCongestion?.(false, 0);
    }
    if (drained) this.#settleIdle();
  };

  #settleIdle(): void {
    if (this.#idleWaiters.length === 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const waiter of waiters) waiter();
  }
}

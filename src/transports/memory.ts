/**
 * Two channels wired to each other in memory, for tests and for running a client and a server in
 * one process. Runtime-neutral.
 *
 * Each frame is delivered asynchronously, in order, as `JSON.parse(frame)`: the receiver gets its
 * own copy, exactly as over a real wire, so neither side can mutate the other's objects.
 */
import type { Channel, ChannelSink } from '../engine/channel.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';

/** Returns a connected pair: what one side sends, the other receives. */
export function createLinkedChannels(): [Channel, Channel] {
  const a = new MemoryChannel('memory: a');
  const b = new MemoryChannel('memory: b');
  a.peer = b;
  b.peer = a;
  return [a, b];
}

type Inbound = { frame: string } | { close: true };

class MemoryChannel implements Channel {
  readonly label: string;
  peer!: MemoryChannel;
  #sink: ChannelSink | undefined;
  /** Frames (and finally the close) waiting to be delivered to this side's sink. */
  #inbox: Inbound[] = [];
  #drainScheduled = false;
  /** No more frames are accepted, in either direction. */
  #closed = false;
  #closeDelivered = false;

  constructor(label: string) {
    this.label = label;
  }

  start(sink: ChannelSink): void {
    if (this.#sink) return;
    this.#sink = sink;
    this.#scheduleDrain();
  }

  send(frame: string): void {
    if (this.#closed) return;
    this.peer.#enqueue({ frame });
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#shutDown();
      this.peer.#shutDown();
    }
    return Promise.resolve();
  }

  /** Accepts nothing more; frames already sent are still delivered, then `closed()`. */
  #shutDown(): void {
    if (this.#closed) return;
    this.#enqueue({ close: true });
    this.#closed = true;
  }

  #enqueue(item: Inbound): void {
    if (this.#closed) return;
    this.#inbox.push(item);
    this.#scheduleDrain();
  }

  #scheduleDrain(): void {
    if (this.#drainScheduled || !this.#sink || this.#inbox.length === 0) return;
    this.#drainScheduled = true;
    queueMicrotask(this.#drain);
  }

  readonly #drain = (): void => {
    this.#drainScheduled = false;
    const sink = this.#sink!;
    const items = this.#inbox;
    this.#inbox = [];
    for (const item of items) {
      if ('close' in item) {
        if (!this.#closeDelivered) {
          this.#closeDelivered = true;
          sink.closed();
        }
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(item.frame);
      } catch (error) {
        sink.malformed(
          new ProtocolError(ErrorCode.ParseError, `Received a frame that is not valid JSON: ${error}`),
        );
        continue;
      }
      sink.message(value);
    }
  };
}

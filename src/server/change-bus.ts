/**
 * How change notifications cross processes. A server publishes each change (`list_changed`,
 * `resources/updated`) to its own {@link NotificationHub} and, when it has a bus, to the bus; what
 * other members publish arrives through the bus and goes to the local hub. So a `subscriptions/listen`
 * stream or a legacy session on one node hears a change made on another. A member never hears its
 * own messages back: the local hub already has them, in order and without a round trip.
 *
 * The default is no bus (one process). {@link MemoryChangeBus} joins servers in one process (tests, a
 * process serving several endpoints); `switchboard/redis` joins nodes through Redis pub/sub.
 */
import type { Params } from '../protocol/jsonrpc.js';

/** One change notification as it travels between members. */
export interface BusChange {
  readonly method: string;
  readonly params?: Params | undefined;
}

/** One member's view of the bus (one per Server). */
export interface ChangeBus {
  /** Sends `change` to every other member. Never throws: a failure to deliver is reported by the bus. */
  publish(change: BusChange): void;
  /** Hears what other members publish. Returns the function that stops listening. */
  subscribe(listener: (change: BusChange) => void): () => void;
}

/** A bus within one process: each {@link member} is one Server's {@link ChangeBus}. */
export class MemoryChangeBus {
  readonly #listeners = new Map<object, Set<(change: BusChange) => void>>();

  /** A new member: it hears what the others publish, never its own messages. */
  member(): ChangeBus {
    const self = {};
    const listeners = new Set<(change: BusChange) => void>();
    this.#listeners.set(self, listeners);
    return {
      publish: (change) => {
        for (const [member, others] of this.#listeners) {
          if (member === self) continue;
          for (const listener of others) listener(change);
        }
      },
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  }
}

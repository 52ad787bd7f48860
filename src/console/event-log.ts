/**
 * The console's events in order, kept in a bounded window so a page that reconnects (or opens
 * late) replays what it missed, and pushed to every open event stream as they happen.
 */
import type { ConsoleEvent } from './api-types.js';

/** Spreads `Omit` over each member of the union, so `kind` still picks the right fields. */
export type NewEvent = ConsoleEvent extends infer E
  ? E extends ConsoleEvent
    ? Omit<E, 'seq' | 'at'>
    : never
  : never;

type Listener = (event: ConsoleEvent) => void;

/** Enough for a long debugging session's trace; older events fall out first. */
const DEFAULT_CAPACITY = 20_000;

export class EventLog {
  #events: ConsoleEvent[] = [];
  #next = 1;
  readonly #listeners = new Set<Listener>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  push(event: NewEvent): ConsoleEvent {
    const stamped = { ...event, seq: this.#next++, at: Date.now() } as ConsoleEvent;
    this.#events.push(stamped);
    // Trimmed in chunks, so a full log costs one splice per tenth of its size, not one per event.
    if (this.#events.length > this.capacity) this.#events.splice(0, Math.ceil(this.capacity / 10));
    for (const listener of this.#listeners) listener(stamped);
    return stamped;
  }

  /** The events after `seq` still kept. */
  since(seq: number): ConsoleEvent[] {
    const first = this.#events.findIndex((event) => event.seq > seq);
    return first === -1 ? [] : this.#events.slice(first);
  }

  /** Calls `listener` with every later event; returns the function that stops it. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

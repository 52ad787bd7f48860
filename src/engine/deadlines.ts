/**
 * Deadlines of one duration, kept with one timer: what a peer's outgoing calls time out with. A
 * `setTimeout` per call and its `clearTimeout` on the answer cost a timer object, a timer-list insert
 * and an unlink per call; calls of the same duration reach their deadlines in the order they were
 * armed, so one timer set for the oldest deadline serves them all. The links live on the entries
 * themselves, so arming and disarming allocate nothing.
 *
 * `Date.now()` is the clock (as for the calls' `startedAt`, and what test clocks mock together with
 * `setTimeout`). The timer is pending only while the queue holds an entry: an empty queue keeps no
 * process alive.
 */

/** What a {@link DeadlineQueue} holds: its deadline and links are fields of the entry. */
export interface Deadlined<T extends Deadlined<T>> {
  /** When it expires (`Date.now()` time); set by {@link DeadlineQueue.add}. */
  deadline: number;
  /** The queue holding it, if any. */
  queue: DeadlineQueue<T> | undefined;
  /** The entry armed just after it in the same queue. */
  newer: T | undefined;
  /** The entry armed just before it in the same queue. */
  older: T | undefined;
}

export class DeadlineQueue<T extends Deadlined<T>> {
  #oldest: T | undefined;
  #newest: T | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `expire` is called for each entry whose deadline passed, after it left the queue. */
  constructor(
    readonly ms: number,
    private readonly expire: (entry: T) => void,
  ) {}

  /** Arms `entry` (held by no queue) to expire `ms` from now. */
  add(entry: T): void {
    entry.deadline = Date.now() + this.ms;
    entry.queue = this;
    entry.newer = undefined;
    entry.older = this.#newest;
    if (this.#newest) this.#newest.newer = entry;
    else this.#oldest = entry;
    this.#newest = entry;
    this.#timer ??= setTimeout(this.#fire, this.ms);
  }

  /** Disarms `entry`, which this queue holds. */
  remove(entry: T): void {
    const { older, newer } = entry;
    if (older) older.newer = newer;
    else this.#oldest = newer;
    if (newer) newer.older = older;
    else this.#newest = older;
    entry.queue = entry.newer = entry.older = undefined;
    if (this.#oldest === undefined && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  /**
   * The timer is due: expires every entry whose deadline passed, oldest first, and sets the timer
   * for the next one. The timer was set for an entry that may have left since, so it can be early.
   */
  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = Date.now();
    for (let entry = this.#oldest; entry !== undefined && entry.deadline <= now; entry = this.#oldest) {
      this.remove(entry);
      // May arm it again, here (its deadline is then later than now) or elsewhere.
      this.expire(entry);
    }
    const next = this.#oldest;
    // At most `ms`: a clock set back must not put the next check further off than a deadline can be.
    if (next !== undefined && this.#timer === undefined) {
      this.#timer = setTimeout(this.#fire, Math.min(this.ms, Math.max(1, next.deadline - now)));
    }
  };
}

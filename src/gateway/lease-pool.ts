/**
 * The sessions an upstream leases to single calls (a 2026-07-28 client's call to a legacy upstream
 * that may ask questions, whose questions must reach that caller alone). At most `cap` are open at
 * once, in use, idle or being opened (stdio: that many processes), and at most `maxIdle` are kept
 * idle. Beyond the cap a call waits, first come first served, for a lease to come back (given back,
 * or closed so that a new one may open) — at most `waitMs`, and never past its own cancellation —
 * then fails with an error naming the upstream and the cap. A waiter holds nothing, so waiting
 * never deadlocks: every lease in use ends with its call, whose time is bounded too.
 */
import type { Cancellable } from '../engine/peer.js';

export interface LeasePoolOptions<S> {
  readonly cap: number;
  readonly maxIdle: number;
  /** Longest a call waits for a lease beyond the cap. */
  readonly waitMs: number;
  /** Opens a session; `onClosed` once it closes, however it closes. */
  open(onClosed: () => void): Promise<S>;
  close(session: S): void;
  /** The error of a call that waited `waitMs` in vain. */
  full(): Error;
}

interface Waiter<S> {
  resolve(session: S): void;
  reject(error: unknown): void;
  /** Stops the wait's timer and cancellation listener. */
  settle(): void;
}

export class LeasePool<S> {
  readonly #idle: S[] = [];
  /** Leases open, idle or being opened: what the cap holds. */
  #open = 0;
  readonly #waiters: Waiter<S>[] = [];
  #closedBy: (() => Error) | undefined;

  constructor(private readonly options: LeasePoolOptions<S>) {}

  /** Calls waiting for a lease now (for `/readyz`). */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * An idle lease, a new one within the cap, or the first to come back. `cancellation` is asked
   * for only when the call has to wait.
   */
  lease(cancellation: () => Cancellable): Promise<S> {
    if (this.#closedBy) return Promise.reject(this.#closedBy());
    const idle = this.#idle.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    if (this.#open < this.options.cap) return this.#openOne();
    return new Promise<S>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#drop(waiter);
        reject(this.options.full());
      }, this.options.waitMs);
      const unsubscribe = cancellation().onCancel((reason) => {
        this.#drop(waiter);
        reject(reason);
      });
      const waiter: Waiter<S> = {
        resolve,
        reject,
        settle: () => {
          clearTimeout(timer);
          unsubscribe();
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /** A lease whose call ended with the upstream's answer: to the next waiter, kept idle, or closed. */
  giveBack(session: S): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter.settle();
      waiter.resolve(session);
    } else if (this.#idle.length < this.options.maxIdle && !this.#closedBy) {
      this.#idle.push(session);
    } else {
      this.options.close(session);
    }
  }

  /** Ends the pool: idle leases are forgotten (the upstream closes every session), waiters fail. */
  close(error: () => Error): void {
    this.#closedBy = error;
    this.#idle.length = 0;
    for (const waiter of this.#waiters.splice(0)) {
      waiter.settle();
      waiter.reject(error());
    }
  }

  async #openOne(): Promise<S> {
    // Counted before the first await, so the cap holds for calls arriving in the same turn.
    this.#open++;
    let counted = true;
    let made: S | undefined;
    const release = () => {
      if (!counted) return;
      counted = false;
      this.#open--;
      const at = made === undefined ? -1 : this.#idle.indexOf(made);
      if (at !== -1) this.#idle.splice(at, 1);
      this.#wake();
    };
    try {
      made = await this.options.open(release);
      return made;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** A lease closed: the first waiter opens a new one in its place. */
  #wake(): void {
    if (this.#closedBy || this.#open >= this.options.cap) return;
    const waiter = this.#waiters.shift();
    if (!waiter) return;
    waiter.settle();
    this.#openOne().then(waiter.resolve, waiter.reject);
  }

  #drop(waiter: Waiter<S>): void {
    const at = this.#waiters.indexOf(waiter);
    if (at !== -1) this.#waiters.splice(at, 1);
    waiter.settle();
  }
}

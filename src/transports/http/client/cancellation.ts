/**
 * The cancellation of one HTTP exchange, with no AbortController unless something needs a signal.
 *
 * Every request of an HTTP client channel can be cancelled (by the client, by closing the channel,
 * by a lingering stream), but almost none is. A fetch that watches `init.cancel` (nodeFetch) is told
 * through {@link onabort}; any other fetch reads `init.signal`, made on first use.
 */
import type { FetchCancel } from './fetch-like.js';

export class Cancellation implements FetchCancel {
  aborted = false;
  reason: unknown = undefined;
  onabort: (() => void) | undefined = undefined;
  #controller: AbortController | undefined;

  /** An AbortSignal following this cancellation, for fetches and waits that need one. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Aborts (once): the fetch watching `onabort` first, then the signal's listeners. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const onabort = this.onabort;
    this.onabort = undefined;
    onabort?.();
    this.#controller?.abort(reason);
  }
}

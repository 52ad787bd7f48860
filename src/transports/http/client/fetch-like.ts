/**
 * The slice of the Fetch API the HTTP client channels use. The global `fetch` fits it; so does any
 * implementation that returns something Response-shaped, which lets a runtime-specific fetch (or a
 * test double) skip building a full WHATWG `Response` per call.
 */

/** What the channels read from a response. A WHATWG `Response` satisfies it. */
export interface ResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  /** The body as a byte stream (only `getReader()` is used), or null when there is none. */
  readonly body: ByteStreamLike | null;
  text(): Promise<string>;
}

export interface ByteStreamLike {
  getReader(): ByteReaderLike;
}

export interface ByteReaderLike {
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  cancel(reason?: unknown): Promise<void>;
}

/** The request the channels make: always a string URL, a method, plain-object headers and a signal. */
export interface RequestInitLike extends Omit<RequestInit, 'headers' | 'body' | 'signal' | 'method'> {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** A `fetch`. The global one is the default. */
export type FetchLike = (url: string, init: RequestInitLike) => Promise<ResponseLike>;

/**
 * @internal A cancellation a fetch may take in place of `signal`: the HTTP channels pass one per
 * request to a fetch listed in {@link takesAbortHook} (nodeFetch), whose `signal` is then a signal
 * that never aborts. An AbortController, its AbortSignal and an 'abort' listener per request cost
 * about 5% of an HTTP client's CPU, for requests that are almost never cancelled.
 */
export interface AbortHook {
  readonly aborted: boolean;
  /** Why, once aborted (undefined: a plain abort, an `AbortError`). */
  readonly reason: unknown;
  /** Set by the fetch while its request or response may still be aborted; called once on abort. */
  onabort: (() => void) | undefined;
}

/** @internal Where a {@link RequestInitLike} carries its {@link AbortHook}. */
export const ABORT_HOOK: unique symbol = Symbol('switchboard.abortHook');

/** @internal A {@link RequestInitLike} that may carry an {@link AbortHook}. */
export type HookedRequestInit = RequestInitLike & { [ABORT_HOOK]?: AbortHook };

/** @internal The fetches that honour {@link ABORT_HOOK} (and so may be given a signal that never aborts). */
export const takesAbortHook = new WeakSet<FetchLike>();

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

/**
 * The request the channels make: always a string URL, a method, plain-object headers (lower-case
 * names) and a way to abort it: `signal`, and on the requests of the hot path also `cancel`.
 */
export interface RequestInitLike extends Omit<RequestInit, 'headers' | 'body' | 'signal' | 'method'> {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Aborts the request, and reading its response. When `cancel` is set too, this is a getter that
   * makes the AbortSignal on first read: a fetch that watches `cancel` should not read it.
   */
  signal: AbortSignal;
  /** The same cancellation as `signal`, for a fetch that can watch it without an AbortSignal. */
  cancel?: FetchCancel;
}

/**
 * A request's cancellation without an AbortSignal. The HTTP channels give one with every request
 * that waits for an answer (`init.cancel`), and make `init.signal` only when a fetch reads it: on
 * Node 20 an AbortController, its AbortSignal and an 'abort' listener per request cost a fifth of
 * the client's CPU at 64 requests in flight (docs/benchmarks.md), for requests that are almost never
 * cancelled. `nodeFetch` watches `cancel`; any other fetch may, or may use `signal`.
 */
export interface FetchCancel {
  readonly aborted: boolean;
  /** Why, once aborted (undefined: a plain abort, which rejects with an `AbortError`). */
  readonly reason: unknown;
  /**
   * Set by the fetch while its request or response can still be aborted (one fetch at a time), and
   * cleared when it no longer can; called once, on abort.
   */
  onabort: (() => void) | undefined;
}

/** A `fetch`. The global one is the default. */
export type FetchLike = (url: string, init: RequestInitLike) => Promise<ResponseLike>;

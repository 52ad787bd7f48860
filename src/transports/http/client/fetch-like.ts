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

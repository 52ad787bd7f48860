/**
 * A response body read as text under a size cap, so that a broken or hostile server cannot make the
 * client buffer without limit (one answering a call with gigabytes of JSON did). Every body the
 * HTTP client channels read whole goes through here; SSE events have the same cap per event
 * (sse-reader.ts).
 */
import { SwitchboardError } from '../../../protocol/errors.js';
import type { ByteReaderLike, ResponseLike } from './fetch-like.js';

/**
 * The body as text, or a MESSAGE_TOO_LARGE error once it is known to exceed `maxBytes` (from its
 * Content-Length, or while reading it), with the rest of it cancelled.
 */
export function readText(response: ResponseLike, maxBytes: number): Promise<string> {
  // Not async: a JSON answer with its Content-Length (every call's, on the hot path) is text()
  // itself, with no promise and microtask of its own around it. Still never throws: a fetch's
  // response that does (its headers) rejects, as before.
  try {
    return readDeclared(response, maxBytes);
  } catch (error) {
    return Promise.reject(error);
  }
}

function readDeclared(response: ResponseLike, maxBytes: number): Promise<string> {
  const declared = response.headers.get('content-length');
  if (declared !== null) {
    const length = Number(declared);
    if (length > maxBytes) {
      cancel(response.body?.getReader());
      return Promise.reject(tooLarge(maxBytes, `it declares Content-Length ${declared}`));
    }
    // The body ends at its Content-Length, so text() reads no more than that; unless the fetch
    // decompresses it, when the declared length is that of the compressed bytes.
    const encoding = response.headers.get('content-encoding');
    if (Number.isSafeInteger(length) && (encoding === null || encoding === 'identity')) {
      return response.text();
    }
  }
  const body = response.body;
  if (!body) return response.text();
  return readCapped(body.getReader(), maxBytes);
}

/** A body of unknown length, read chunk by chunk up to `maxBytes`. */
async function readCapped(reader: ByteReaderLike, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value) continue;
    size += value.byteLength;
    if (size > maxBytes) {
      cancel(reader);
      throw tooLarge(maxBytes, `more than ${maxBytes} bytes arrived`);
    }
    chunks.push(value);
  }
  return decode(chunks, size);
}

function decode(chunks: readonly Uint8Array[], size: number): string {
  const decoder = new TextDecoder();
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return decoder.decode(bytes);
}

/** Stops reading (and so the connection's download); nobody waits on the outcome. */
function cancel(reader: ByteReaderLike | undefined): void {
  reader?.cancel().catch(() => {});
}

function tooLarge(maxBytes: number, why: string): SwitchboardError {
  return new SwitchboardError(
    'MESSAGE_TOO_LARGE',
    `the response body exceeds ${maxBytes} bytes (${why}); raise maxMessageBytes if the server legitimately sends messages that large.`,
  );
}

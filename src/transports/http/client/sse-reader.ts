/**
 * Reads a `text/event-stream` body: bytes → text (`TextDecoder`, streaming) → events
 * (`eventsource-parser`). Comments (keep-alives) are skipped by the parser; the caller sees events,
 * event ids and `retry` hints. The parser's buffer is capped so a stream that never ends a line or
 * an event cannot grow memory without bound.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SwitchboardError } from '../../../protocol/errors.js';
import type { ByteStreamLike } from './fetch-like.js';

export interface EventStreamHandlers {
  /** One complete event. `event.event` is undefined for the default `message` type. */
  event(event: EventSourceMessage): void;
  /** The server's reconnection delay hint, in milliseconds. */
  retry?(ms: number): void;
}

/** The JSON-RPC payload of an event: the data of a default (`message`) event, unless empty (a priming event). */
export function messageData(event: EventSourceMessage): string | undefined {
  return event.data !== '' && (event.event === undefined || event.event === 'message')
    ? event.data
    : undefined;
}

/**
 * Feeds the whole body to `handlers`. Resolves when the server ends the stream; rejects when reading
 * fails (network error, abort) or the buffer cap is exceeded.
 */
export async function readEventStream(
  body: ByteStreamLike | null,
  handlers: EventStreamHandlers,
  maxBufferBytes: number,
): Promise<void> {
  if (!body) return;
  let overflow: Error | undefined;
  const parser = createParser({
    onEvent: handlers.event,
    onRetry: handlers.retry,
    maxBufferSize: maxBufferBytes,
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') {
        overflow = new SwitchboardError(
          'MESSAGE_TOO_LARGE',
          `An SSE event exceeded ${maxBufferBytes} characters; raise maxMessageBytes if the server legitimately sends messages that large.`,
        );
      }
      // Unknown fields and bad retry values are ignored, as the SSE standard says.
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  // A CR that ends a chunk may be half of a CRLF, so the parser waits for what follows; at the end
  // of the body nothing follows, and the CR ends its line (an LF after it changes nothing else).
  let endsWithCr = false;
  const feed = (text: string) => {
    if (text === '') return;
    parser.feed(text);
    endsWithCr = text.endsWith('\r');
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value === undefined || value.byteLength === 0) continue;
      feed(decoder.decode(value, { stream: true }));
      if (overflow) throw overflow;
    }
    feed(decoder.decode());
    if (endsWithCr) parser.feed('\n');
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    throw error;
  }
}

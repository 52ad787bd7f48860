/**
 * A `FetchLike` over undici's `request()` (the npm package): the response's status, headers and
 * body stream as undici returns them, with no WHATWG objects, on a keep-alive `Agent`.
 */
import { STATUS_CODES } from 'node:http';
import type { ByteReaderLike, FetchLike, ResponseLike } from 'switchboard/http';
import { Agent, request } from 'undici';

type Body = Awaited<ReturnType<typeof request>>['body'];
type RawHeaders = Record<string, string | string[] | undefined>;

const dispatcher = new Agent({ keepAliveTimeout: 60_000 });

class UndiciHeaders {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}

class UndiciResponse implements ResponseLike {
  readonly statusText: string;
  readonly headers: UndiciHeaders;

  constructor(
    readonly status: number,
    headers: RawHeaders,
    private readonly stream: Body,
  ) {
    this.statusText = STATUS_CODES[status] ?? '';
    this.headers = new UndiciHeaders(headers);
  }

  get body(): { getReader(): ByteReaderLike } {
    return {
      getReader: () => {
        const chunks = this.stream[Symbol.asyncIterator]();
        return {
          read: async () => {
            const next = await chunks.next();
            return next.done
              ? { done: true, value: undefined }
              : { done: false, value: next.value as Uint8Array };
          },
          cancel: async () => {
            this.stream.destroy();
          },
        };
      },
    };
  }

  text(): Promise<string> {
    return this.stream.text();
  }
}

export const undiciFetch: FetchLike = async (url, init) => {
  const { statusCode, headers, body } = await request(url, {
    method: init.method as 'POST',
    headers: init.headers,
    body: init.body,
    signal: init.signal,
    dispatcher,
  });
  return new UndiciResponse(statusCode, headers, body);
};

/**
 * WHATWG `Request` → {@link HttpExchange} and {@link HttpReply} → `Response`: how the handler core
 * serves `fetch`-style runtimes (Deno, Bun, Workers, Hono...). The Node adapter skips this layer.
 */
import type { AuthInfo } from '../../../engine/channel.js';
import { asError } from '../../../util/guards.js';
import { type BodyRead, type HttpExchange, type HttpReply, isStreamReply } from './exchange.js';

export class FetchExchange implements HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly #host: string;
  readonly localAddress: string | undefined = undefined;

  constructor(
    private readonly request: Request,
    public auth: AuthInfo | undefined,
  ) {
    this.method = request.method.toUpperCase();
    const url = new URL(request.url);
    this.path = url.pathname;
    this.query = url.search.slice(1);
    this.#host = url.host;
  }

  header(name: string): string | undefined {
    const value = this.request.headers.get(name);
    // A Request built in code has no Host header; servers derive the URL from it, so use the URL's.
    if (value === null) return name === 'host' ? this.#host : undefined;
    return value;
  }

  headers(): Record<string, string> {
    return Object.fromEntries(this.request.headers);
  }

  async readBody(maxBytes: number): Promise<BodyRead> {
    const declared = Number(this.request.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) return { kind: 'too-large' };
    const body = this.request.body;
    if (!body) return { kind: 'text', text: '' };
    if (declared >= 0) {
      // The HTTP layer delivers exactly Content-Length bytes, so the runtime's own reader is safe.
      try {
        return { kind: 'text', text: await this.request.text() };
      } catch (error) {
        return { kind: 'failed', error: asError(error) };
      }
    }
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel().catch(() => {});
          return { kind: 'too-large' };
        }
        chunks.push(value);
      }
    } catch (error) {
      return { kind: 'failed', error: asError(error) };
    }
    const bytes = chunks.length === 1 ? chunks[0]! : concat(chunks, size);
    return { kind: 'text', text: new TextDecoder().decode(bytes) };
  }

  onClientGone(listener: () => void): void {
    const signal = this.request.signal;
    if (signal?.aborted) queueMicrotask(listener);
    else signal?.addEventListener('abort', listener, { once: true });
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

export function toResponse(reply: HttpReply): Response {
  if (!isStreamReply(reply))
    return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
  const stream = reply.stream;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream.attach({
          write(chunk) {
            try {
              controller.enqueue(encoder.encode(chunk));
            } catch {
              // The consumer is gone; cancel() reports it.
            }
          },
          end() {
            try {
              controller.close();
            } catch {
              // Already closed or cancelled.
            }
          },
          // With a high-water mark of 0, the desired size is minus the bytes not read yet.
          buffered: () => -(controller.desiredSize ?? 0),
          abort() {
            controller.error(new Error('The client did not read its event stream'));
          },
        });
      },
      cancel() {
        stream.clientGone();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { status: reply.status, headers: reply.headers });
}

/**
 * The exchanges of a legacy Streamable HTTP session that are not one request's POST: the GET event
 * stream (opened with a connect timeout, resumed with `Last-Event-ID`, kept open across the
 * server's closes), and a request of the channel's own whose answer is read here rather than
 * handed to the engine.
 */
import type { RequestId } from '../../../protocol/jsonrpc.js';
import { isPlainObject } from '../../../util/guards.js';
import type { ResponseLike } from './fetch-like.js';
import { answers, type Json } from './frame-info.js';
import { rpcErrorIn } from './http-errors.js';
import { type HttpIo, sleep } from './options.js';
import { messageData, readEventStream } from './sse-reader.js';

export const ok = (status: number) => status >= 200 && status < 300;
export const isEventStream = (response: ResponseLike) =>
  (response.headers.get('content-type') ?? '').startsWith('text/event-stream');

/** An event stream being read, and how to detach it from the signal that can abort it. */
export interface OpenStream {
  readonly response: ResponseLike;
  release(): void;
}

/**
 * GETs an event stream with `headers` (which should carry the session). Gives up if the response
 * headers take longer than the connect timeout; `signal` aborts the stream until `release()`.
 */
export async function openEventStream(
  io: HttpIo,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<OpenStream> {
  headers.accept = 'text/event-stream';
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  const release = () => signal.removeEventListener('abort', abort);
  const timer = setTimeout(abort, io.connectTimeoutMs);
  try {
    const response = await io.fetch(io.href, { method: 'GET', headers, signal: controller.signal });
    return { response, release };
  } catch (error) {
    release();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How a standalone stream ended: `forgotten` when the server answered 404 after the stream had been
 * open (it restarted or expired the session: the caller re-initializes), `ended` otherwise (aborted,
 * no such stream, or given up).
 */
export type StreamEnd = 'ended' | 'forgotten';

/**
 * Keeps a session's standalone GET stream open until `signal` aborts: reconnects when it ends (with
 * `Last-Event-ID`, after the server's `retry` delay) and backs off on failures. A server that answers
 * but will not open the stream is given up after `maxAttempts` refusals in a row (with a warning); an
 * unreachable one (a restart, a network outage) is tried again every `maxDelayMs` once `maxAttempts`
 * are spent, for as long as the session lasts, since it may come back. Returns when the server has no
 * such stream (405) or forgot the session (404). `settled` is called once, as soon as the first
 * attempt has its answer (the stream is open, or refused, or could not be opened).
 */
export async function keepStreamOpen(
  io: HttpIo,
  sessionHeaders: () => Promise<Record<string, string>>,
  onMessage: (data: string) => void,
  signal: AbortSignal,
  settled: () => void = () => {},
): Promise<StreamEnd> {
  try {
    return await keepOpen(io, sessionHeaders, onMessage, signal, settled);
  } finally {
    settled();
  }
}

async function keepOpen(
  io: HttpIo,
  sessionHeaders: () => Promise<Record<string, string>>,
  onMessage: (data: string) => void,
  signal: AbortSignal,
  settled: () => void,
): Promise<StreamEnd> {
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  let failures = 0;
  let everOpened = false;
  const handlers = {
    event: (event: { id?: string | undefined; event?: string | undefined; data: string }) => {
      if (event.id !== undefined) lastEventId = event.id;
      const data = messageData(event);
      if (data !== undefined) onMessage(data);
    },
    retry: (ms: number) => {
      retryMs = ms;
    },
  };
  while (!signal.aborted) {
    let opened = false;
    let refusedWith: number | undefined;
    try {
      const headers = await sessionHeaders();
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const { response, release } = await openEventStream(io, headers, signal);
      settled();
      try {
        if (ok(response.status) && isEventStream(response)) {
          opened = everOpened = true;
          failures = 0;
          await readEventStream(response.body, handlers, io.maxMessageBytes);
        } else {
          refusedWith = response.status;
          await io.text(response).catch(() => undefined);
          if (response.status === 404) return everOpened ? 'forgotten' : 'ended';
          if (response.status === 405) return 'ended';
        }
      } finally {
        release();
      }
    } catch {
      // A network failure or a broken stream: reconnect below.
    }
    settled();
    if (signal.aborted) return 'ended';
    if (!opened) failures++;
    if (refusedWith !== undefined && failures >= io.reconnect.maxAttempts) {
      io.warn(
        `Gave up the standalone event stream of ${io.display} after ${failures} failed attempts ` +
          `(the last answered HTTP ${refusedWith}); server-initiated messages outside requests will not arrive.`,
      );
      return 'ended';
    }
    // Unreachable for longer than the backoff allows: keep knocking, at the slowest pace.
    const delay =
      failures >= io.reconnect.maxAttempts
        ? io.reconnect.maxDelayMs
        : io.backoff(Math.max(failures, 1), retryMs);
    await sleep(delay, signal);
  }
  return 'ended';
}

/**
 * POSTs a request of the channel's own and reads its answer (JSON, or from an event stream, which
 * is then closed) without involving the engine. Other messages on the stream are dropped. Rejects
 * on an HTTP failure or when no answer comes; `controller` aborts it.
 */
export async function postForAnswer(
  io: HttpIo,
  frame: string,
  id: RequestId,
  headers: Record<string, string>,
  controller: AbortController,
): Promise<{ response: ResponseLike; message: Json }> {
  const response = await io.fetch(io.href, {
    method: 'POST',
    headers,
    body: frame,
    signal: controller.signal,
  });
  if (!ok(response.status)) {
    const body = await io.text(response);
    throw new Error(rpcErrorIn(body)?.message ?? `HTTP ${response.status}`);
  }
  let found: Json | undefined;
  const take = (value: unknown) => {
    if (!found && isPlainObject(value) && answers(value, id)) found = value;
  };
  if (isEventStream(response)) {
    await readEventStream(
      response.body,
      {
        event: (event) => {
          const data = messageData(event);
          if (found || data === undefined) return;
          try {
            take(JSON.parse(data));
          } catch {
            return;
          }
          // Got it: the server may keep the stream open, so close it ourselves.
          if (found) controller.abort();
        },
      },
      io.maxMessageBytes,
    ).catch((error) => {
      if (!found) throw error;
    });
  } else {
    take(JSON.parse(await io.text(response)));
  }
  if (!found) throw new Error(`the server sent no answer to its request ${JSON.stringify(id)}`);
  return { response, message: found };
}

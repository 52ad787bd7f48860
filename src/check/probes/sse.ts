/**
 * The event streams of Streamable HTTP, as the checker's own traffic meets them: {@link HttpTap}
 * sits between the checker's client channel and the network, reads every `text/event-stream` body
 * the server sends line by line (strictly: a line a client would ignore is a message lost) and keeps
 * its events. After a revision's probes, {@link judgeStreams} gives the SSE verdicts: framing, event
 * ids unique within the session, and resumption with `Last-Event-ID` of a stream that had ids.
 */
import type {
  ByteReaderLike,
  ByteStreamLike,
  FetchLike,
  ResponseLike,
} from '../../transports/http/client/fetch-like.js';
import { clip } from '../../util/clip.js';
import { errorMessage } from '../../util/guards.js';
import type { Verdicts } from '../results.js';

export interface SseEvent {
  /** The event's own `id` field, if it had one. */
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** Reads an event stream as the SSE standard does, and notes what breaks MCP's framing. */
class Framing {
  readonly events: SseEvent[] = [];
  readonly problems: string[] = [];
  #buffer = '';
  #data: string[] | undefined;
  #id: string | undefined;
  #event: string | undefined;

  feed(text: string): void {
    let all = this.#buffer + text;
    // A CR at the very end may be half of a CRLF: it waits for what follows.
    const held = all.endsWith('\r') ? '\r' : '';
    if (held) all = all.slice(0, -1);
    const lines = all.split(/\r\n|\r|\n/);
    // The last piece has no line end yet.
    this.#buffer = lines.pop()! + held;
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') {
      this.#data ??= [];
      this.#data.push(value);
    } else if (field === 'id') this.#id = value;
    else if (field === 'event') this.#event = value;
    else if (field === 'retry') {
      if (!/^\d+$/.test(value)) this.problems.push(`a retry field that is not a number: ${clip(line)}`);
    } else {
      this.problems.push(`a line that is no SSE field (a client ignores it): ${clip(line)}`);
    }
  }

  #dispatch(): void {
    const data = this.#data?.join('\n');
    const id = this.#id;
    const event = this.#event;
    this.#data = undefined;
    this.#id = undefined;
    this.#event = undefined;
    if (data === undefined) return;
    this.events.push({
      ...(id === undefined ? {} : { id }),
      ...(event === undefined ? {} : { event }),
      data,
    });
    if (event !== undefined && event !== 'message') {
      this.problems.push(`an event of type "${clip(event)}" (a client reads only message events)`);
    }
    if (data === '') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      this.problems.push(`an event whose data is not JSON: ${clip(data)}`);
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.problems.push(`an event whose data is not one JSON-RPC message: ${clip(data)}`);
    }
  }
}

/** The events of a response body, one at a time, strictly framed; undefined once the body ends. */
export class EventReader {
  readonly framing = new Framing();
  readonly #reader: ByteReaderLike;
  readonly #decoder = new TextDecoder();
  #taken = 0;
  #done = false;

  constructor(body: ByteStreamLike) {
    this.#reader = body.getReader();
  }

  async next(): Promise<SseEvent | undefined> {
    while (this.#taken >= this.framing.events.length) {
      if (this.#done) return undefined;
      const chunk = await this.#reader.read();
      if (chunk.value) this.framing.feed(this.#decoder.decode(chunk.value, { stream: true }));
      if (chunk.done) {
        this.framing.feed(`${this.#decoder.decode()}\n`);
        this.#done = true;
      }
    }
    return this.framing.events[this.#taken++];
  }

  close(): Promise<void> {
    return this.#reader.cancel().catch(() => undefined);
  }
}

/** One event stream the server sent. */
export interface TappedStream {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON-RPC method of the POST that opened it. */
  readonly opener?: string;
  readonly framing: Framing;
  /** The server ended the stream (as opposed to the checker leaving it). */
  ended: boolean;
}

/** A fetch that keeps a copy of every event stream it reads. */
export class HttpTap {
  readonly streams: TappedStream[] = [];
  /** The session id the server assigned (legacy Streamable HTTP), once it did: a resumption carries it. */
  session: string | undefined;
  constructor(readonly inner: FetchLike) {}

  readonly fetch: FetchLike = async (url, init) => {
    const response = await this.inner(url, init);
    this.session = response.headers.get('mcp-session-id') ?? init.headers['mcp-session-id'] ?? this.session;
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    if (!type.startsWith('text/event-stream') || !response.body) return response;
    const stream: TappedStream = {
      method: init.method,
      url,
      headers: init.headers,
      ...(init.body ? { opener: methodOf(init.body) } : {}),
      framing: new Framing(),
      ended: false,
    };
    this.streams.push(stream);
    return tapped(response, stream);
  };
}

function methodOf(body: string): string | undefined {
  try {
    const method = (JSON.parse(body) as { method?: unknown }).method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

/** The response, its body read through `stream`'s framing. */
function tapped(response: ResponseLike, stream: TappedStream): ResponseLike {
  const body = response.body!;
  const decoder = new TextDecoder();
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    text: () => response.text(),
    body: {
      getReader() {
        const reader = body.getReader();
        return {
          async read() {
            const chunk = await reader.read();
            if (chunk.value) stream.framing.feed(decoder.decode(chunk.value, { stream: true }));
            if (chunk.done) {
              stream.framing.feed(`${decoder.decode()}\n`);
              stream.ended = true;
            }
            return chunk;
          },
          cancel: (reason?: unknown) => reader.cancel(reason),
        };
      },
    },
  };
}

/** The rules judged on the event streams the tap saw. */
export const SSE_IDS: readonly string[] = [
  'http.sse-framing',
  'http.event-ids-unique',
  'http.resume',
  'http.resume-same-stream',
];

const label = (stream: TappedStream) =>
  `${stream.method}${stream.opener ? ` ${stream.opener}` : ''}${stream.headers['last-event-id'] ? ` (Last-Event-ID ${stream.headers['last-event-id']})` : ''}`;

/** How long a resumed stream gets to replay (a replay is sent at once; the stream may stay open after). */
const REPLAY_WAIT_MS = 2_000;

const messages = (events: readonly SseEvent[]) => events.filter((e) => e.data !== '').map((e) => e.data);

/**
 * The SSE verdicts of one revision, on what the tap saw; resumes one stream to see its replay.
 * `delivered`: every message the connection received (event streams and JSON answers alike).
 */
export async function judgeStreams(
  v: Verdicts,
  tap: HttpTap,
  timeoutMs: number,
  delivered: readonly unknown[] = [],
): Promise<void> {
  const streams = tap.streams;
  if (streams.length === 0) {
    for (const id of SSE_IDS) v.notTested(id, 'the server answered no request with an event stream');
    return;
  }
  const problems = streams.flatMap((s) => s.framing.problems.map((p) => `${label(s)}: ${p}`));
  for (const problem of problems) v.fail('http.sse-framing', problem);
  if (problems.length === 0) v.pass('http.sse-framing', `${streams.length} event stream(s), all well-formed`);

  // Streams resumed by the client replay their events, ids included: only first deliveries count.
  const originals = streams.filter((s) => s.headers['last-event-id'] === undefined);
  const seen = new Map<string, TappedStream>();
  let ids = 0;
  for (const stream of originals) {
    for (const event of stream.framing.events) {
      if (event.id === undefined || event.id === '') continue;
      ids++;
      const key = `${stream.headers['mcp-session-id'] ?? ''}\u0000${event.id}`;
      const first = seen.get(key);
      if (first) {
        v.fail(
          'http.event-ids-unique',
          `event id ${JSON.stringify(event.id)} was sent on ${label(first)} and again on ${first === stream ? 'the same stream' : label(stream)}; ids must be unique across the session's streams`,
        );
      } else {
        seen.set(key, stream);
      }
    }
  }
  if (ids === 0) {
    for (const id of ['http.event-ids-unique', 'http.resume', 'http.resume-same-stream']) {
      v.notApplicable(id, 'the server gives its SSE events no ids (resumability is optional)');
    }
    return;
  }
  v.pass('http.event-ids-unique', `${ids} event ids, all distinct`);
  await resume(v, tap, originals, timeoutMs, delivered);
}

/** A message's text, the same however the server spaced it. */
function canonical(data: string): string {
  try {
    return JSON.stringify(JSON.parse(data));
  } catch {
    return data;
  }
}

/**
 * GET + Last-Event-ID on a POST stream the server ended after sending its response: what comes
 * back must be that stream's messages after the event, and nothing else.
 */
async function resume(
  v: Verdicts,
  tap: HttpTap,
  originals: readonly TappedStream[],
  timeoutMs: number,
  delivered: readonly unknown[],
): Promise<void> {
  let chosen: { stream: TappedStream; id: string; expected: string[] } | undefined;
  for (const stream of originals) {
    if (stream.method !== 'POST' || !stream.ended) continue;
    const events = stream.framing.events;
    const at = events.findIndex((e) => e.id !== undefined && e.id !== '');
    const expected = messages(events.slice(at + 1));
    if (at !== -1 && expected.length > 0) {
      chosen = { stream, id: events[at]!.id!, expected };
      break;
    }
  }
  if (!chosen) {
    for (const id of ['http.resume', 'http.resume-same-stream']) {
      v.notTested(id, 'no POST stream had an event with an id followed by a message, to resume from');
    }
    return;
  }
  const { stream, id, expected } = chosen;
  const {
    'content-type': _type,
    'mcp-method': _method,
    'mcp-name': _name,
    ...kept
  } = stream.headers as Record<string, string>;
  // The session exists by now, even when the stream resumed is that of the initialize that made it.
  const headers = {
    ...kept,
    ...(tap.session === undefined ? {} : { 'mcp-session-id': tap.session }),
    accept: 'text/event-stream',
    'last-event-id': id,
  };
  const all = (m: readonly string[]) => expected.every((e) => m.includes(e));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no replay within ${timeoutMs} ms`)), timeoutMs);
  let framing = new Framing();
  let status = '';
  try {
    const response = await tap.inner(stream.url, { method: 'GET', headers, signal: controller.signal });
    const type = response.headers.get('content-type') ?? '';
    status = `HTTP ${response.status} (${type || 'no Content-Type'})`;
    if (response.status === 200 && type.toLowerCase().startsWith('text/event-stream') && response.body) {
      const reader = new EventReader(response.body);
      framing = reader.framing;
      try {
        // Read on until every expected message came (other messages may come between: the stream
        // may go on as the standalone one), the stream ended, or the replay is given up on.
        const gaveUp = new Promise<undefined>((resolve) => {
          const wait = setTimeout(() => resolve(undefined), Math.min(timeoutMs, REPLAY_WAIT_MS));
          controller.signal.addEventListener('abort', () => clearTimeout(wait));
        });
        while (!all(messages(framing.events)) && (await Promise.race([reader.next(), gaveUp]))) {
          // next event
        }
      } finally {
        await reader.close();
      }
    }
  } catch (error) {
    status += ` ${errorMessage(error)}`;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  const replayed = messages(framing.events);
  const what = `GET with Last-Event-ID ${JSON.stringify(id)} (an event of the stream of POST ${stream.opener ?? ''}, ${expected.length} message(s) after it) was answered with ${status.trim()}`;
  // Foreign: a message the server delivered elsewhere, on another stream or as a JSON answer (a
  // message never sent before may rightly come: the stream goes on after its replay).
  const own = new Set(messages(stream.framing.events).map(canonical));
  const elsewhere = new Set(
    [
      ...originals.filter((o) => o !== stream).flatMap((o) => messages(o.framing.events).map(canonical)),
      ...delivered.map((m) => JSON.stringify(m)),
    ].filter((m) => !own.has(m)),
  );
  const foreign = replayed.filter((m) => !expected.includes(m) && elsewhere.has(canonical(m)));
  if (replayed.length > 0) {
    v.expect(
      'http.resume-same-stream',
      foreign.length === 0,
      'a resumed stream replays only its own messages',
      () =>
        `${what}, replaying ${foreign.length} message(s) delivered on another stream, e.g. ${clip(foreign[0]!, 200)}`,
    );
  } else {
    v.notTested('http.resume-same-stream', `${what}, and replayed nothing`);
  }
  v.expect(
    'http.resume',
    all(replayed),
    'a stream resumed with Last-Event-ID replays the messages after the event',
    () =>
      `${what}, replaying ${expected.filter((m) => replayed.includes(m)).length} of them (replay is optional: the server MAY replay)`,
  );
}

/**
 * The client's event-stream reader under random chunking and random bytes, against a reference
 * parser written from the SSE standard (WHATWG HTML §9.2.6): lines end at CRLF, LF or CR; a leading
 * BOM is dropped; `:` starts a comment; `data` lines accumulate; a blank line dispatches. However the
 * body is cut (inside a UTF-8 character, between CR and LF), the events are the reference's. Events
 * with empty data are left out of the comparison: the channels ignore them (priming events, see
 * `messageData`), and the parser does not dispatch an event whose only data line was empty.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { readEventStream } from '../../src/transports/http/client/sse-reader.js';
import { cut } from '../helpers/cut.js';

interface Seen {
  events: { event: string | undefined; data: string }[];
  retries: number[];
}

/** The standard's parser, on the whole body decoded at once. */
function reference(bytes: Uint8Array): Seen {
  const seen: Seen = { events: [], retries: [] };
  let text = new TextDecoder().decode(bytes);
  if (text.startsWith('\ufeff')) text = text.slice(1);
  const lines = text.split(/\r\n|\r|\n/);
  // The last piece has no line end: it is not a line yet, and is dropped at the end of the stream.
  lines.pop();
  let data = '';
  let event: string | undefined;
  for (const line of lines) {
    if (line === '') {
      const payload = data.endsWith('\n') ? data.slice(0, -1) : data;
      if (payload !== '') seen.events.push({ event, data: payload });
      data = '';
      event = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event')
      event = value === '' ? undefined : value; // empty: the default type
    else if (field === 'retry' && /^\d+$/.test(value)) seen.retries.push(Number(value));
  }
  return seen;
}

/** What readEventStream delivers for the body given as these chunks. */
async function read(chunks: Uint8Array[]): Promise<Seen> {
  const seen: Seen = { events: [], retries: [] };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  await readEventStream(
    body,
    {
      event: (e) => {
        if (e.data !== '') seen.events.push({ event: e.event, data: e.data });
      },
      retry: (ms) => seen.retries.push(ms),
    },
    1 << 20,
  );
  return seen;
}

const encoder = new TextEncoder();
const lineEnd = fc.constantFrom('\n', '\r\n', '\r');
/** Field values without line breaks: what one SSE line can carry. */
const value = fc.string({ unit: 'binary', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ''));

const field = fc.oneof(
  fc.tuple(fc.constant('data'), value),
  fc.tuple(fc.constant('event'), value),
  fc.tuple(
    fc.constant('id'),
    value.map((s) => s.replace(/\0/g, '')),
  ),
  fc.tuple(fc.constant('retry'), fc.oneof(fc.nat({ max: 100000 }).map(String), value)),
  fc.tuple(fc.constant(':'), value),
  fc.tuple(fc.constantFrom('dat', 'x', 'Data'), value),
);

describe('readEventStream (property)', () => {
  test('well-formed streams, cut anywhere, give the reference events', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.array(fc.tuple(field, lineEnd), { maxLength: 5 }), lineEnd), { maxLength: 10 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (events, bom, offsets) => {
          let text = bom ? '\ufeff' : '';
          for (const [fields, end] of events) {
            for (const [[name, v], eol] of fields)
              text += name === ':' ? `:${v}${eol}` : `${name}: ${v}${eol}`;
            text += end;
          }
          const bytes = encoder.encode(text);
          assert.deepEqual(await read(cut(bytes, offsets).filter((p) => p.length > 0)), reference(bytes));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('random bytes, cut anywhere, give the reference events', async () => {
    const byte = fc.oneof(
      fc.integer({ min: 0, max: 255 }),
      fc.constantFrom(0x0a, 0x0d, 0x3a, 0x20, 0xef, 0xbb, 0xbf, 0xe2, 0x82, 0xac),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(byte, { maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (raw, offsets) => {
          const bytes = Uint8Array.from(raw);
          assert.deepEqual(await read(cut(bytes, offsets).filter((p) => p.length > 0)), reference(bytes));
        },
      ),
      { numRuns: 500 },
    );
  });
});

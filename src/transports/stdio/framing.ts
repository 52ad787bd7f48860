/**
 * Newline-delimited JSON framing (MCP stdio, and any custom byte stream: the spec asks UDS/TCP
 * transports to reuse it). Runtime-neutral: bytes in as Uint8Array, no Node APIs.
 *
 * Inbound cost is linear in the bytes received: each byte is scanned for '\n' once, the pieces of
 * an unfinished line are kept in a list and joined once when the line ends, and a line over the
 * size cap is dropped as it streams in instead of being buffered. (The official SDK concatenates
 * its whole buffer on every chunk and re-scans it from the start: quadratic on large messages.)
 */
import type { ChannelSink, InboundExtra } from '../../engine/channel.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../protocol/errors.js';
import { mayExceedDepth } from '../../protocol/json-depth.js';
import { headOf } from '../../util/clip.js';

/** Default cap on one inbound message: 32 MiB (the official SDK stops at 10 MB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Where decoded lines go: the message and malformed halves of a {@link ChannelSink}. */
export type JsonLineSink = Pick<ChannelSink, 'message' | 'malformed'>;

export interface JsonLineDecoderOptions {
  /** Largest line accepted, in bytes (without its line ending). Default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
}

const LF = 0x0a;
const SHALLOW: InboundExtra = Object.freeze({ shallow: true });
const CR = 0x0d;
const EMPTY = new Uint8Array(0);

/**
 * Splits a byte stream into lines and decodes each as one JSON value.
 *
 * - `\n` ends a line; a `\r` before it is dropped; empty (or blank) lines are ignored.
 * - A UTF-8 byte order mark at the very start of the stream is stripped.
 * - UTF-8 is decoded per complete line, so a character split across chunks is never mangled.
 *   Invalid UTF-8 becomes U+FFFD rather than failing the message (what Node's own decoders do).
 * - A line that is not JSON goes to `sink.malformed` (-32700); a line over `maxMessageBytes` is
 *   reported once (-32600) and skipped up to its '\n'. Decoding then goes on with the next line.
 *
 * The decoder keeps references to the pushed chunks until their line is complete: callers must
 * not reuse a chunk's memory after pushing it (Node stream chunks are never reused).
 * Sink callbacks must not throw.
 */
export class JsonLineDecoder {
  readonly maxMessageBytes: number;
  readonly #sink: JsonLineSink;
  readonly #text = new TextDecoder('utf-8', { ignoreBOM: true });
  /** Pieces of the current, unfinished line. */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** True while skipping the rest of an oversized line. */
  #discarding = false;
  /** True until the first line ends: only that line may start with a BOM. */
  #atStreamStart = true;

  constructor(sink: JsonLineSink, options: JsonLineDecoderOptions = {}) {
    const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new SwitchboardError(
        'CONFIG',
        `maxMessageBytes must be a positive integer number of bytes, got ${String(max)}`,
      );
    }
    this.maxMessageBytes = max;
    this.#sink = sink;
  }

  /** Bytes held for the current unfinished line. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Feeds the next chunk of the stream; every line it completes is delivered before this returns. */
  push(chunk: Uint8Array): void {
    const length = chunk.length;
    let start = 0;
    // The first '\n' at or after `start`; every byte is scanned once.
    let newline = chunk.indexOf(LF);
    while (start < length) {
      const end = newline === -1 ? length : newline;
      if (this.#discarding) {
        if (newline === -1) return;
        this.#discarding = false;
      } else if (this.#pendingBytes + (end - start) > this.maxMessageBytes) {
        this.#reportOversize(this.#pendingBytes + (end - start));
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#atStreamStart = false;
        if (newline === -1) {
          this.#discarding = true;
          return;
        }
      } else if (newline === -1) {
        this.#pending.push(chunk.subarray(start));
        this.#pendingBytes += length - start;
        return;
      } else if (this.#pendingBytes === 0) {
        start = this.#wholeLines(chunk, start, newline);
        newline = this.#after;
        continue;
      } else {
        this.#line(this.#join(chunk.subarray(start, newline)));
      }
      start = newline + 1;
      newline = start < length ? chunk.indexOf(LF, start) : -1;
    }
  }

  /** Set by {@link #wholeLines}: the first '\n' after the run it decoded, or -1. */
  #after = -1;

  /**
   * Delivers the run of complete lines that starts at `start` (a line boundary; its first line ends
   * at `newline` and fits the cap) and goes on up to the chunk's last '\n' or the first line over the
   * cap. Returns where the run ends; `#after` is the next '\n' found. The run is UTF-8-decoded in
   * one call and split as text: a chunk carrying 64 answers costs one decode, not 64 (a '\n' byte
   * never occurs inside a multi-byte character, so the text splits exactly where the bytes do).
   */
  #wholeLines(chunk: Uint8Array, start: number, newline: number): number {
    let end = newline + 1;
    let next = end < chunk.length ? chunk.indexOf(LF, end) : -1;
    while (next !== -1 && next - end <= this.maxMessageBytes) {
      end = next + 1;
      next = end < chunk.length ? chunk.indexOf(LF, end) : -1;
    }
    this.#after = next;
    const text = this.#text.decode(chunk.subarray(start, end - 1));
    let from = 0;
    for (let at = text.indexOf('\n'); ; at = text.indexOf('\n', from)) {
      this.#textLine(text, from, at === -1 ? text.length : at);
      if (at === -1) return end;
      from = at + 1;
    }
  }

  /** The stream ended: a last line without a trailing '\n' is still decoded. */
  end(): void {
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    if (this.#pendingBytes > 0) this.#line(this.#join(EMPTY));
  }

  /** The whole line: the pending pieces plus `tail`, copied once (or not at all when there are none). */
  #join(tail: Uint8Array): Uint8Array {
    if (this.#pending.length === 0) return tail;
    const line = new Uint8Array(this.#pendingBytes + tail.length);
    let offset = 0;
    for (const piece of this.#pending) {
      line.set(piece, offset);
      offset += piece.length;
    }
    line.set(tail, offset);
    this.#pending = [];
    this.#pendingBytes = 0;
    return line;
  }

  /** One line given as `text[from, to)`: the same rules as {@link #line}, on decoded text. */
  #textLine(text: string, from: number, to: number): void {
    if (this.#atStreamStart) {
      this.#atStreamStart = false;
      if (to > from && text.charCodeAt(from) === 0xfeff) from++;
    }
    if (to > from && text.charCodeAt(to - 1) === CR) to--;
    if (to === from) return;
    this.#parse(from === 0 && to === text.length ? text : text.slice(from, to));
  }

  #line(bytes: Uint8Array): void {
    let from = 0;
    let to = bytes.length;
    if (this.#atStreamStart) {
      this.#atStreamStart = false;
      if (to >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) from = 3;
    }
    if (to > from && bytes[to - 1] === CR) to--;
    if (to === from) return;
    this.#parse(this.#text.decode(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to)));
  }

  #parse(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Checked only on failure, so the hot path pays nothing for tolerating blank lines.
      if (text.trim() === '') return;
      this.#sink.malformed(
        new ProtocolError(
          ErrorCode.ParseError,
          `Received a line that is not valid JSON: ${preview(text)}. An MCP stdio stream carries only ` +
            'JSON-RPC messages, one per line; log output belongs on stderr, never on stdout.',
        ),
      );
      return;
    }
    // A line too short to nest deeper than the limit spares the engine its walk of the value.
    this.#sink.message(value, mayExceedDepth(text.length) ? undefined : SHALLOW);
  }

  #reportOversize(atLeast: number): void {
    this.#sink.malformed(
      new ProtocolError(
        ErrorCode.InvalidRequest,
        `Dropped a message of at least ${atLeast} bytes: it exceeds maxMessageBytes=${this.maxMessageBytes}; ` +
          'raise maxMessageBytes or send smaller messages',
      ),
    );
  }
}

/**
 * Turns one serialized message into the text to write: the JSON plus '\n'.
 * Throws when the frame contains a raw '\n', which would split it into two broken lines on the
 * wire. `JSON.stringify` without indentation never produces one; a hand-made frame might.
 */
export function encodeFrame(frame: string): string {
  if (frame.includes('\n')) {
    throw new SwitchboardError(
      'TRANSPORT',
      `Refused to send a frame containing a raw line break: ${preview(frame)}. Newline-delimited framing ` +
        'needs each message on one line; serialize it with JSON.stringify and no indentation.',
    );
  }
  return `${frame}\n`;
}

const PREVIEW_CHARS = 80;
/** Characters JSON.stringify leaves raw that can still reorder or drive a terminal: C1, bidi, separators. */
const UNSAFE_IN_MESSAGES = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A short, quoted, escaped start of `text`, safe to put in an error message or a terminal. */
function preview(text: string): string {
  const head = headOf(text, PREVIEW_CHARS);
  const quoted = JSON.stringify(head).replace(
    UNSAFE_IN_MESSAGES,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return head.length < text.length ? `${quoted}... (${text.length} characters)` : quoted;
}

/**
 * Content negotiation and body decoding for MCP POSTs: a JSON `Content-Type` (415 otherwise), an
 * `Accept` that lists what the reply may be (406 otherwise), a body under the size cap (413
 * otherwise) that parses as JSON (400 + -32700 otherwise).
 */
import { ErrorCode } from '../../../protocol/errors.js';
import { exceedsDepth, mayExceedDepth, tooDeepMessage } from '../../../protocol/json-depth.js';
import { isRequestId } from '../../../protocol/jsonrpc.js';
import { isPlainObject } from '../../../util/guards.js';
import { type BodyRead, errorReply, type HttpExchange, type HttpReply } from './exchange.js';
import type { ResponseMode } from './options.js';

export const JSON_TYPE = 'application/json';
export const SSE_TYPE = 'text/event-stream';

/** What a POST carrying requests must accept, given how replies are framed. */
export const REPLY_TYPES: Readonly<Record<ResponseMode, readonly string[]>> = {
  auto: [JSON_TYPE, SSE_TYPE],
  json: [JSON_TYPE],
  sse: [SSE_TYPE],
};

/** The media type without parameters, lower-case (`application/json; charset=utf-8` → `application/json`). */
function essence(value: string): string {
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
}

export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && essence(value) === JSON_TYPE;
}

/** Whether an `Accept` header admits `type` (exactly, as `type/*`, or as `*\/*`). */
export function accepts(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  // The common case, "application/json, text/event-stream", needs no splitting.
  if (accept.includes(type)) return true;
  const major = `${type.slice(0, type.indexOf('/'))}/*`;
  for (const range of accept.split(',')) {
    const media = essence(range);
    if (media === '*/*' || media === major || media === type) return true;
  }
  return false;
}

/** 406 unless `Accept` lists every type in `needed`. */
export function checkAccept(exchange: HttpExchange, needed: readonly string[]): HttpReply | undefined {
  const accept = exchange.header('accept');
  let acceptable = true;
  for (const type of needed) acceptable &&= accepts(accept, type);
  if (acceptable) return undefined;
  return errorReply(
    406,
    `Not Acceptable: the Accept header (${accept === undefined ? 'absent' : JSON.stringify(accept)}) must list ${needed.join(' and ')}, ` +
      `because the reply may be ${needed.length > 1 ? 'either ' : ''}${needed.join(' or ')}. Send "Accept: ${needed.join(', ')}".`,
  );
}

type ParsedBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reply: HttpReply };

/** 415 unless the body is declared as JSON. */
export function checkJsonContentType(exchange: HttpExchange): HttpReply | undefined {
  const contentType = exchange.header('content-type');
  if (isJsonContentType(contentType)) return undefined;
  return errorReply(
    415,
    `Unsupported Media Type ${contentType === undefined ? '(no Content-Type)' : JSON.stringify(contentType)}: MCP messages are JSON; send "Content-Type: application/json".`,
  );
}

/**
 * Reads the body under the cap and parses it, then continues with `next` (one continuation per
 * request: this is on the hot path). The content type must have been checked.
 */
export function withJsonBody(
  exchange: HttpExchange,
  maxBytes: number,
  next: (value: unknown) => HttpReply | Promise<HttpReply>,
): Promise<HttpReply> {
  return exchange.readBody(maxBytes).then((body) => {
    const parsed = decodeBody(body, maxBytes);
    return parsed.ok ? next(parsed.value) : parsed.reply;
  });
}

function decodeBody(body: BodyRead, maxBytes: number): ParsedBody {
  switch (body.kind) {
    case 'parsed':
      return exceedsDepth(body.value) ? tooDeep(body.value) : { ok: true, value: body.value };
    case 'too-large':
      return {
        ok: false,
        reply: errorReply(
          413,
          `Payload Too Large: this server accepts request bodies up to ${maxBytes} bytes (option maxBodyBytes). Send a smaller message.`,
          { headers: { connection: 'close' } },
        ),
      };
    case 'failed':
      return {
        ok: false,
        reply: errorReply(
          400,
          `The request body could not be read: ${body.error.message}. Send the request again.`,
        ),
      };
    case 'text':
      try {
        const value: unknown = JSON.parse(body.text);
        return mayExceedDepth(body.text.length) && exceedsDepth(value) ? tooDeep(value) : { ok: true, value };
      } catch (error) {
        return {
          ok: false,
          reply: errorReply(
            400,
            `Parse error: the request body is not valid JSON (${(error as Error).message}). Send one JSON-RPC message as JSON.`,
            { code: ErrorCode.ParseError },
          ),
        };
      }
  }
}

/** 400 for a body nested deeper than {@link MAX_JSON_DEPTH}, under the request's id when it has one. */
function tooDeep(value: unknown): ParsedBody {
  const message = isPlainObject(value) ? value : undefined;
  const id = message && 'id' in message && isRequestId(message.id) ? message.id : null;
  return { ok: false, reply: errorReply(400, tooDeepMessage('The request body'), { id }) };
}

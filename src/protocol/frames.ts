/**
 * JSON-RPC frames as strings: what every transport writes. Hand-written rather than
 * `JSON.stringify({ jsonrpc, id, ... })` because the envelope is fixed and a result may already be
 * serialized ({@link RawJson}): cached list pages are spliced in without being stringified again.
 */
import type { JsonRpcErrorObject, Params, RequestId } from './jsonrpc.js';

/**
 * A result that is already serialized. {@link resultFrame} splices `json` into the response frame
 * instead of calling JSON.stringify, which is how cached list pages are served without
 * re-serializing.
 */
export class RawJson {
  constructor(readonly json: string) {}
}

/**
 * A `_meta` value sent unchanged on many requests (a 2026-07-28 client's envelope: protocol version,
 * capabilities, client info), serialized once. {@link requestFrame} splices its JSON into each
 * request instead of serializing the same object again: on a tool call that was a third of the
 * client's serialization. `value` is frozen by its owner; its JSON is taken when this is made.
 */
export class SerializedMeta {
  readonly json: string;
  constructor(readonly value: Readonly<Record<string, unknown>>) {
    this.json = JSON.stringify(value);
  }
}

/**
 * Serializes a request (our own ids are numbers). With `meta`, the request's params are `params`
 * plus `_meta: meta.value` as their last key (`params` must have no `_meta` of their own): the
 * same bytes as serializing that object, with `meta`'s JSON spliced in.
 */
export function requestFrame(
  id: number,
  method: string,
  params: Params | undefined,
  meta?: SerializedMeta,
): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}`;
  if (meta !== undefined) return `${head},"params":${withMeta(JSON.stringify(params ?? {}), meta.json)}}`;
  return params === undefined ? `${head}}` : `${head},"params":${JSON.stringify(params)}}`;
}

/** `object` (the JSON of an object) with `"_meta":meta` added as its last member. */
function withMeta(object: string, meta: string): string {
  return object.length === 2 ? `{"_meta":${meta}}` : `${object.slice(0, -1)},"_meta":${meta}}`;
}

/** Serializes a notification. */
export function notificationFrame(method: string, params: Params | undefined): string {
  return params === undefined
    ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)}}`
    : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
}

/** Serializes a result response; a {@link RawJson} result is spliced in as is. Throws if `result` cannot be serialized. */
export function resultFrame(id: RequestId, result: unknown): string {
  const json = result instanceof RawJson ? result.json : JSON.stringify(result ?? {});
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`;
}

/** Serializes an error response. */
export function errorFrame(id: RequestId | null, error: JsonRpcErrorObject): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(error)}}`;
}

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

/** Serializes a request (our own ids are numbers). */
export function requestFrame(id: number, method: string, params: Params | undefined): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}`;
  return params === undefined ? `${head}}` : `${head},"params":${JSON.stringify(params)}}`;
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

import { isPlainObject } from '../util/guards.js';
/**
 * JSON-RPC 2.0 envelope: message types and a hand-written classifier.
 *
 * Every inbound frame passes through {@link classify} exactly once. It checks only the envelope
 * (never a method's params) so it stays cheap on the hot path, and it reports precisely what is
 * wrong so the engine can answer -32600 with the right id.
 */

export type RequestId = string | number;
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Params;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What {@link classify} makes of one decoded JSON value. */
export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'result'; message: JsonRpcResultResponse }
  | { kind: 'error'; message: JsonRpcErrorResponse }
  /** Not a valid JSON-RPC message. `id` is the request id when one could be read, else null. */
  | { kind: 'invalid'; id: RequestId | null; reason: string };

/** MCP ids are strings or integers; never null, never fractional. */
export const isRequestId = (v: unknown): v is RequestId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

/** Classifies one JSON value (not a batch array: callers split batches first). */
export function classify(value: unknown): Classified {
  if (!isPlainObject(value)) {
    return { kind: 'invalid', id: null, reason: 'A JSON-RPC message must be a JSON object' };
  }
  const rawId = value.id;
  const readableId = isRequestId(rawId) ? rawId : null;
  if (value.jsonrpc !== '2.0') {
    return { kind: 'invalid', id: readableId, reason: 'The "jsonrpc" member must be exactly "2.0"' };
  }
  const hasId = 'id' in value;
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method.length === 0) {
      return { kind: 'invalid', id: readableId, reason: 'The "method" member must be a non-empty string' };
    }
    const params = value.params;
    if (params !== undefined && !isPlainObject(params)) {
      return {
        kind: 'invalid',
        id: readableId,
        reason: 'The "params" member must be an object when present',
      };
    }
    if (!hasId) return { kind: 'notification', message: value as unknown as JsonRpcNotification };
    if (readableId === null) {
      return {
        kind: 'invalid',
        id: null,
        reason: 'The "id" member must be a string or an integer (null is not allowed in MCP)',
      };
    }
    return { kind: 'request', message: value as unknown as JsonRpcRequest };
  }
  if ('result' in value) {
    if (readableId === null)
      return { kind: 'invalid', id: null, reason: 'A response must carry a valid "id"' };
    if ('error' in value) {
      return {
        kind: 'invalid',
        id: readableId,
        reason: 'A response must not carry both "result" and "error"',
      };
    }
    if (!isPlainObject(value.result)) {
      return { kind: 'invalid', id: readableId, reason: 'The "result" member must be an object' };
    }
    return { kind: 'result', message: value as unknown as JsonRpcResultResponse };
  }
  if ('error' in value) {
    const error = value.error;
    if (!isPlainObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string') {
      return {
        kind: 'invalid',
        id: readableId,
        reason: 'The "error" member must be an object with a numeric "code" and a string "message"',
      };
    }
    if (readableId === null && rawId !== null) {
      return { kind: 'invalid', id: null, reason: 'An error response must carry a valid "id" or null' };
    }
    return { kind: 'error', message: value as unknown as JsonRpcErrorResponse };
  }
  return {
    kind: 'invalid',
    id: readableId,
    reason: 'A JSON-RPC message needs a "method" (request or notification) or a "result"/"error" (response)',
  };
}

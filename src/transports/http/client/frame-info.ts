/**
 * Message shapes for the HTTP client: the structure of an outbound frame, for the rare sender that
 * does not pass {@link FrameInfo} (the engine always does; parsing costs a copy of the frame, so it
 * is only the fallback), and whether an inbound message answers a given request.
 */
import type { FrameInfo } from '../../../engine/channel.js';
import { isRequestId, type Params } from '../../../protocol/jsonrpc.js';

export type Json = Record<string, unknown>;

export function frameInfoOf(frame: string): FrameInfo {
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return { kind: 'notification', method: '', params: undefined };
  }
  if (Array.isArray(value)) return { kind: 'batch' };
  const message = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const params =
    typeof message.params === 'object' && message.params !== null ? (message.params as Params) : undefined;
  if (typeof message.method === 'string') {
    return isRequestId(message.id)
      ? { kind: 'request', id: message.id, method: message.method, params }
      : { kind: 'notification', method: message.method, params };
  }
  return { kind: 'response', id: isRequestId(message.id) ? message.id : null };
}

/** Whether `value` (one message or a batch) holds the response to request `id`. */
export function answers(value: unknown, id: string | number): boolean {
  if (Array.isArray(value)) return value.some((item) => answers(item, id));
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  return message.id === id && ('result' in message || 'error' in message);
}

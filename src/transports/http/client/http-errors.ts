/**
 * Turning HTTP-level failures into JSON-RPC errors for the request that suffered them. The engine
 * correlates by id, so an HTTP failure of a request becomes an error response carrying that id: the
 * caller's promise rejects with a ProtocolError whose `data.httpStatus` says what happened, and the
 * client's era negotiation can tell "not a modern server" from a modern JSON-RPC error.
 */
import { ErrorCode, SwitchboardError } from '../../../protocol/errors.js';
import type { JsonRpcErrorObject, RequestId } from '../../../protocol/jsonrpc.js';
import { errorMessage, isPlainObject } from '../../../util/guards.js';
import type { Json } from './frame-info.js';

/** Where a request went, as shown in messages: no query string (it may carry secrets) and no fragment. */
export const displayUrl = (url: URL): string => url.origin + url.pathname;

/** The JSON-RPC error response for request `id`. */
export const errorResponse = (id: RequestId | null, error: JsonRpcErrorObject) => ({
  jsonrpc: '2.0' as const,
  id,
  error,
});

/** The JSON-RPC error a failed response's body carries, if it is one (a single error response). */
export function rpcErrorIn(body: string): JsonRpcErrorObject | undefined {
  if (body === '' || (body[0] !== '{' && body.trimStart()[0] !== '{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || !isPlainObject(value.error)) return undefined;
  const { code, message, data } = value.error;
  if (typeof code !== 'number' || !Number.isInteger(code) || typeof message !== 'string') return undefined;
  return data === undefined ? { code, message } : { code, message, data };
}

const ADVICE: Record<number, string> = {
  400: 'The server rejected the request as malformed.',
  401: 'The server requires authorization: pass `bearerToken` (or an Authorization header).',
  403: "The server refused access: check the token's scopes, or the Origin the server accepts.",
  404: 'Nothing answers there: check that the URL is the MCP endpoint.',
  405: 'The URL does not accept this HTTP method: check that it is the MCP endpoint.',
  406: 'The server cannot produce JSON or an event stream for this request.',
  413: 'The message is larger than the server accepts.',
  415: 'The server does not accept JSON request bodies here.',
  429: 'The server is rate limiting this client: retry later.',
};

export interface HttpFailure {
  readonly method: string;
  readonly url: URL;
  readonly status: number;
  readonly statusText: string;
  readonly body: string;
  readonly wwwAuthenticate?: string | null;
}

/** An error for a response that failed without a JSON-RPC error body of its own. */
export function httpStatusError(failure: HttpFailure): JsonRpcErrorObject {
  const { method, url, status, statusText, body } = failure;
  const advice =
    ADVICE[status] ?? (status >= 500 ? 'The server failed while handling it; see its logs.' : '');
  const data: Json = { httpStatus: status, url: displayUrl(url) };
  if (failure.wwwAuthenticate) data.wwwAuthenticate = failure.wwwAuthenticate;
  const excerpt = body.trim().slice(0, 300);
  if (excerpt) data.body = excerpt;
  return {
    code: ErrorCode.InternalError,
    message: `HTTP ${status}${statusText ? ` ${statusText}` : ''} from ${method} ${displayUrl(url)}.${advice ? ` ${advice}` : ''}`,
    data,
  };
}

/** An error for a request that never got an HTTP response (refused, reset, DNS...). */
export function networkError(method: string, url: URL, error: unknown): JsonRpcErrorObject {
  // Signing in failed inside the fetch (an OAuthClient): the server was reached, the sign-in was not.
  if (error instanceof SwitchboardError && error.code === 'AUTHORIZATION') {
    return {
      code: ErrorCode.InternalError,
      message: `Could not sign in to ${displayUrl(url)}: ${error.message}`,
      data: { url: displayUrl(url) },
    };
  }
  return {
    code: ErrorCode.InternalError,
    message: `Could not ${method} ${displayUrl(url)}: ${describeCause(error)}. Check that the server is running and the URL is right.`,
    data: { url: displayUrl(url) },
  };
}

/** An error for a response we could not use (not JSON, wrong content type, stream ended early). */
export function badResponseError(url: URL, problem: string): JsonRpcErrorObject {
  return {
    code: ErrorCode.InternalError,
    message: `The server at ${displayUrl(url)} ${problem}`,
    data: { url: displayUrl(url) },
  };
}

/** The most useful text of an error from fetch: undici hides the real reason in `cause`. */
export function describeCause(error: unknown): string {
  let text = errorMessage(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error && cause.message && cause.message !== text) {
    const code = (cause as { code?: unknown }).code;
    text = `${text} (${typeof code === 'string' && !cause.message.includes(code) ? `${code}: ` : ''}${cause.message})`;
  }
  return text;
}

/**
 * One rule for errors (DESIGN principle 4):
 * - a failure the peer reported, or one we report to the peer, is a {@link ProtocolError} with the
 *   spec's numeric code;
 * - a failure that happened here (timeout, closed connection, bad configuration) is a
 *   {@link SwitchboardError} with a stable string `code`;
 * - a tool's own failure is neither: it is a `CallToolResult` with `isError: true`.
 * Messages say what went wrong and what to do. No "MCP error -32602:" prefixes are added: the code is
 * a property, not part of the text.
 */

import { clip } from '../util/clip.js';
import { errorMessage } from '../util/guards.js';
import type { JsonRpcErrorObject } from './jsonrpc.js';

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy (≤ 2025-11-25) resource-not-found; 2026-07-28 uses InvalidParams instead. */
  ResourceNotFound: -32002,
  /** 2025-11-25 only. */
  UrlElicitationRequired: -32042,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  /**
   * Too many requests (draft SEP-3304, not in any revision yet): `data.retryAfterMs` says how long
   * to wait; over HTTP the status is 429 with `Retry-After`.
   */
  RateLimited: -32023,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** An error carried by a JSON-RPC error response, in either direction. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  static fromObject(error: JsonRpcErrorObject): ProtocolError {
    return new ProtocolError(error.code, error.message, error.data);
  }

  toObject(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const invalidParams = (message: string, data?: unknown) =>
  new ProtocolError(ErrorCode.InvalidParams, message, data);
export const methodNotFound = (method: string, hint?: string) =>
  new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${clip(method)}${hint ? `. ${hint}` : ''}`);
export const invalidRequest = (message: string) => new ProtocolError(ErrorCode.InvalidRequest, message);

/** The draft SEP-3304 error: `data` carries `retryAfterMs` (and `limit` when known). */
export const rateLimited = (message: string, data: { retryAfterMs: number; limit?: number }) =>
  new ProtocolError(ErrorCode.RateLimited, message, data);

/** Stable codes for failures that happen locally rather than at the peer. */
export type LocalErrorCode =
  /** No response within the request's timeout. */
  | 'TIMEOUT'
  /** The connection closed (or the child process exited) while the request was pending. */
  | 'CONNECTION_CLOSED'
  /** The call was made before `connect()` or after `close()`. */
  | 'NOT_CONNECTED'
  /** The caller's AbortSignal fired. */
  | 'ABORTED'
  /** The two sides share no protocol revision, or the handshake failed. */
  | 'NEGOTIATION_FAILED'
  /** A list walk hit the configured page cap. */
  | 'PAGINATION_LIMIT'
  /** The peer sent a result that does not have the required shape. */
  | 'INVALID_RESULT'
  /** The peer lacks a capability this call needs. */
  | 'CAPABILITY_MISSING'
  /** A message exceeded the configured size limit. */
  | 'MESSAGE_TOO_LARGE'
  /** The user's configuration or arguments are wrong. */
  | 'CONFIG'
  /** The transport failed (spawn error, broken pipe, HTTP failure). */
  | 'TRANSPORT'
  /** The peer answered an input request (elicitation, sampling, roots) with an error. */
  | 'INPUT_FAILED'
  /** A 2026-07-28 request still needed input after the configured number of rounds. */
  | 'INPUT_ROUNDS_EXCEEDED'
  /** The task whose result was awaited was cancelled (by `cancel()`, another client, or the server). */
  | 'TASK_CANCELLED'
  /**
   * OAuth failed: discovery, registration, sign-in or a token request (`switchboard/auth`). The
   * message says which step and what to configure; it never contains a token.
   */
  | 'AUTHORIZATION';

export class SwitchboardError extends Error {
  override name = 'SwitchboardError';
  readonly code: LocalErrorCode;

  constructor(code: LocalErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Turns anything thrown by a handler into the error object sent to the peer. */
export function toErrorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof ProtocolError) return error.toObject();
  const message = errorMessage(error);
  return { code: ErrorCode.InternalError, message: message || 'Internal error' };
}

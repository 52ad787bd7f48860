/**
 * The contract between the HTTP handler and an authorization layer (the `auth` option; `bearer()`
 * from `switchboard/auth` makes one). The handler asks it three things, at three points:
 *
 * 1. before routing, whether the request is for a public document it serves (Protected Resource
 *    Metadata), answered without credentials;
 * 2. for every request to an MCP path, who the caller is: verified credentials (then `ctx.auth`,
 *    and what legacy sessions are bound to), or the 401 that refuses the request;
 * 3. once the body is read, whether the caller holds the scopes its requests need: nothing, or
 *    the 403 that asks for more (step-up).
 */
import type { AuthInfo } from '../../../engine/channel.js';
import type { HttpExchange, HttpReply } from './exchange.js';

/** One JSON-RPC request of a body, and the scopes what it names (a tool, a prompt...) was registered with. */
export interface ScopedRequest {
  readonly method: string;
  readonly itemScopes: readonly string[];
}

export interface HttpAuthenticator {
  /** The reply for a public document at the exchange's path (GET), or undefined for other paths. */
  document(exchange: HttpExchange): HttpReply | undefined;
  /** The caller's verified credentials, or the reply refusing the request (401). Never rejects. */
  authenticate(exchange: HttpExchange): Promise<AuthInfo | HttpReply>;
  /** The reply refusing requests whose scopes `auth` lacks (403), or undefined when they may run. */
  authorize(auth: AuthInfo, requests: readonly ScopedRequest[]): HttpReply | undefined;
}

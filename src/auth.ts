/**
 * `switchboard/auth`: OAuth 2.1 for MCP, both sides, runtime-neutral (any `fetch`, `crypto.subtle`).
 * - {@link bearer}: the `auth` option of `createHttpHandler` that makes a server a protected
 *   resource (Protected Resource Metadata, token checks, scopes, step-up).
 * - {@link OAuthClient}: signs a client in (discovery, registration, PKCE, refresh, step-up);
 *   its `fetch(...)` goes to an HTTP client channel. Tokens live in a {@link TokenStore}.
 *
 * See docs/auth.md.
 */

export { discoverServerAuthorization, type ServerAuthorization } from './auth/client/discovery.js';
export {
  type IdentityAssertionOptions,
  identityAssertionGrant,
} from './auth/client/identity-assertion.js';
export {
  type AssertionTarget,
  OAuthClient,
  type OAuthClientOptions,
  type OAuthFetchOptions,
  type PreRegisteredClient,
} from './auth/client/oauth-client.js';
export {
  DataTokenStore,
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
  type TokenStoreData,
} from './auth/client/store.js';
export { type BearerOptions, bearer } from './auth/server/bearer.js';
export type { IntrospectionOptions } from './auth/server/introspection.js';
export type { JwtOptions } from './auth/server/jwt.js';
export type { VerifiedToken } from './auth/server/verified.js';
export {
  type Challenge,
  findChallenge,
  formatChallenge,
  parseWwwAuthenticate,
} from './auth/www-authenticate.js';
export type { HttpAuthenticator, ScopedRequest } from './transports/http/server/authenticator.js';

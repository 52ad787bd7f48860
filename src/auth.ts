/**
 * `switchboard/auth`: OAuth 2.1 for MCP, both sides, runtime-neutral (any `fetch`, `crypto.subtle`).
 * - {@link bearer}: the `auth` option of `createHttpHandler` that makes a server a protected
 *   resource (Protected Resource Metadata, token checks, scopes, step-up).
 *
 * See docs/auth.md.
 */

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

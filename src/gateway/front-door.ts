/**
 * The gateway's front door (`gateway.auth`): who a request comes from. API keys
 * (`Authorization: Bearer <key>`, the principal is the key's name) and OAuth access tokens through
 * `bearer()` (the gateway is then a protected resource: metadata, JWT or introspection, audience
 * bound to its URL; the principal is the token's subject), either or both. No credentials: 401
 * with a `Bearer` challenge (`resource_metadata` with OAuth); wrong ones: 401 `invalid_token`.
 * Keys and tokens are never logged: only their verdict leaves this module.
 */
import { bearer } from '../auth/server/bearer.js';
import type { AuthInfo } from '../engine/channel.js';
import type { HttpAuthenticator, ScopedRequest } from '../transports/http/server/authenticator.js';
import { errorReply, type HttpExchange, type HttpReply } from '../transports/http/server/exchange.js';
import { ApiKeys } from './api-keys.js';
import { API_KEY_ISSUER } from './caller.js';
import type { FrontDoorAuth } from './config-security.js';

export interface FrontDoorOptions {
  /** Told of every request refused for its credentials (for the audit log). */
  readonly onRefused?: (exchange: HttpExchange, status: number) => void;
  /** Told when tokens cannot be checked (the issuer's keys or introspection unreachable). */
  readonly onerror?: (error: Error) => void;
}

const TOKEN = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const REALM = 'switchboard-gateway';

export function frontDoor(auth: FrontDoorAuth, options: FrontDoorOptions = {}): HttpAuthenticator {
  const keys = new ApiKeys(auth.apiKeys);
  const oauth = auth.oauth;
  const tokens = oauth
    ? bearer({
        resource: oauth.audience,
        authorizationServers: [oauth.issuer],
        ...(oauth.introspection
          ? { introspection: { ...oauth.introspection, issuer: oauth.issuer } }
          : { jwt: oauth.jwksUri ? { jwksUri: oauth.jwksUri } : {} }),
        requiredScopes: oauth.requiredScopes,
        ...(oauth.scopesSupported.length > 0 ? { scopesSupported: oauth.scopesSupported } : {}),
        ...(options.onerror ? { onerror: options.onerror } : {}),
      })
    : undefined;
  // One AuthInfo per key holder: what the server keys per-caller state on stays the same object.
  const keyHolders = new Map<string, AuthInfo>(
    Object.keys(auth.apiKeys).map((principal) => [
      principal,
      Object.freeze({ subject: principal, issuer: API_KEY_ISSUER, scopes: [] }),
    ]),
  );
  const refuse = (exchange: HttpExchange, reply: HttpReply): HttpReply => {
    options.onRefused?.(exchange, reply.status);
    return reply;
  };
  return {
    document: (exchange) => tokens?.document(exchange),
    async authenticate(exchange) {
      const header = exchange.header('authorization');
      const presented = header === undefined ? undefined : TOKEN.exec(header)?.[1];
      if (presented !== undefined && keys.size > 0) {
        const principal = keys.principal(presented);
        if (principal !== undefined) return keyHolders.get(principal)!;
      }
      if (tokens) {
        const verdict = await tokens.authenticate(exchange);
        return 'status' in verdict ? refuse(exchange, verdict as HttpReply) : verdict;
      }
      const wrong = header !== undefined;
      return refuse(
        exchange,
        errorReply(
          401,
          wrong
            ? 'Unauthorized: the API key was refused.'
            : 'Unauthorized: this gateway needs an API key (Authorization: Bearer <key>); ask its operator for one.',
          {
            headers: {
              'www-authenticate': wrong
                ? `Bearer realm="${REALM}", error="invalid_token", error_description="The API key was refused"`
                : `Bearer realm="${REALM}"`,
            },
          },
        ),
      );
    },
    authorize(info: AuthInfo, requests: readonly ScopedRequest[]) {
      if (!tokens || info.issuer === API_KEY_ISSUER) return undefined;
      return tokens.authorize(info, requests);
    },
  };
}

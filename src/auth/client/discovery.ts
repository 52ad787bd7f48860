/**
 * What a client must learn before it can sign in to an MCP server, in the specification's order:
 * the Protected Resource Metadata (RFC 9728) from the `resource_metadata` of the 401 challenge,
 * else the path-inserted then the root well-known URL; the first authorization server it names and
 * that server's metadata (RFC 8414 / OpenID Connect, issuer checked). A server without the
 * metadata is a 2025-03-26 server: its authorization server is its origin, with metadata at the
 * origin's well-known URL or, failing that, the default endpoints `/authorize`, `/token`,
 * `/register`.
 */
import type * as oauth from 'oauth4webapi';
import { SwitchboardError } from '../../protocol/errors.js';
import { parseScopes } from '../../protocol/scopes.js';
import { clip } from '../../util/clip.js';
import { requireAuthorizationServer } from '../discovery.js';
import type { OAuthHttp } from '../http.js';
import { canonicalResource, protectedResourceMetadataUrls, resourceCovers } from '../urls.js';

export interface ServerAuthorization {
  /** The resource indicator to ask tokens for: the metadata's `resource`, else the canonical server URI. */
  readonly resource: string;
  readonly issuer: string;
  readonly as: oauth.AuthorizationServer;
  /** `scopes_supported` of the resource metadata (empty when it names none or there is none). */
  readonly scopesSupported: readonly string[];
  /** True for a 2025-03-26 server (no Protected Resource Metadata). */
  readonly legacy: boolean;
  /** The resource metadata says it takes DPoP-bound tokens (RFC 9449 §5.2 fields). */
  readonly dpop: boolean;
}

async function resourceMetadata(
  serverUrl: string,
  metadataUrl: string | undefined,
  http: OAuthHttp,
): Promise<Record<string, unknown> | undefined> {
  const urls = metadataUrl ? [metadataUrl] : protectedResourceMetadataUrls(serverUrl);
  for (const url of urls) {
    const { body } = await http.getJson(url, 'protected resource metadata');
    if (!body) continue;
    const resource = body.resource;
    if (typeof resource !== 'string' || !resourceCovers(resource, serverUrl)) {
      // RFC 9728 §3.3: a document naming another resource must not be used: a token asked for it
      // would be sent to this server, or this server's token to another.
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The protected resource metadata at ${clip(url)} names the resource ${JSON.stringify(clip(String(resource), 200))}, which is not ${serverUrl}: refusing to sign in (RFC 9728 §3.3).`,
      );
    }
    return body;
  }
  return undefined;
}

/** Discovers how to sign in to the MCP server at `serverUrl` (after a 401 naming `metadataUrl`, if any). */
export async function discoverServerAuthorization(
  serverUrl: string,
  metadataUrl: string | undefined,
  http: OAuthHttp,
): Promise<ServerAuthorization> {
  const prm = await resourceMetadata(serverUrl, metadataUrl, http);
  if (prm) {
    const servers = prm.authorization_servers;
    const issuer = Array.isArray(servers)
      ? servers.find((s): s is string => typeof s === 'string')
      : undefined;
    if (!issuer) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The protected resource metadata of ${serverUrl} names no authorization server (authorization_servers).`,
      );
    }
    return {
      resource: canonicalResource(prm.resource as string),
      issuer,
      as: await requireAuthorizationServer(issuer, http),
      scopesSupported: parseScopes(prm.scopes_supported),
      legacy: false,
      dpop:
        prm.dpop_bound_access_tokens_required === true ||
        Array.isArray(prm.dpop_signing_alg_values_supported),
    };
  }
  // 2025-03-26: the authorization server is the MCP server's origin.
  const origin = new URL(serverUrl).origin;
  // Its metadata lives at the origin; 2025-03-26 let the issuer be a path under it (`/oauth`).
  const { body } = await http.getJson(
    `${origin}/.well-known/oauth-authorization-server`,
    'authorization server metadata',
  );
  const issuer = typeof body?.issuer === 'string' ? body.issuer : undefined;
  const sameOrigin = issuer !== undefined && URL.canParse(issuer) && new URL(issuer).origin === origin;
  const found = sameOrigin ? (body as unknown as oauth.AuthorizationServer) : undefined;
  const as: oauth.AuthorizationServer = found ?? {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
  };
  return {
    resource: canonicalResource(serverUrl),
    issuer: as.issuer,
    as,
    scopesSupported: [],
    legacy: true,
    dpop: false,
  };
}

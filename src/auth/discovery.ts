/**
 * Finding an authorization server and what it supports: its metadata document (RFC 8414 or OpenID
 * Connect Discovery, tried in the MCP specification's order), accepted only when the `issuer` it
 * names is exactly the issuer it was fetched for (RFC 8414 §3.3, OpenID Connect Discovery §4.3) —
 * a document that names another issuer is never used. Shared by the resource server (to find the
 * issuer's keys and introspection endpoint) and the client (to find every endpoint it calls).
 */
import type * as oauth from 'oauth4webapi';
import { SwitchboardError } from '../protocol/errors.js';
import { clip } from '../util/clip.js';
import type { OAuthHttp } from './http.js';
import { authorizationServerMetadataUrls } from './urls.js';

export type AuthorizationServerMetadata = oauth.AuthorizationServer;

/**
 * The metadata of `issuer` from the first well-known URL that serves a document naming exactly
 * `issuer`; undefined when none serves a document. Throws when documents were found but every one
 * names another issuer (a mix-up attempt, or a misconfigured server).
 */
export async function discoverAuthorizationServer(
  issuer: string,
  http: OAuthHttp,
): Promise<AuthorizationServerMetadata | undefined> {
  const wrong: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const { body } = await http.getJson(url, 'authorization server metadata');
    if (!body) continue;
    if (body.issuer === issuer) return body as unknown as AuthorizationServerMetadata;
    wrong.push(`${url} names ${JSON.stringify(clip(String(body.issuer), 200))}`);
  }
  if (wrong.length > 0) {
    throw new SwitchboardError(
      'AUTHORIZATION',
      `The authorization server metadata for ${issuer} names another issuer (${wrong.join('; ')}); it is not used (RFC 8414 §3.3: the issuer must be identical to the one asked for).`,
    );
  }
  return undefined;
}

/** {@link discoverAuthorizationServer}, failing with a message that lists where it looked. */
export async function requireAuthorizationServer(
  issuer: string,
  http: OAuthHttp,
): Promise<AuthorizationServerMetadata> {
  const metadata = await discoverAuthorizationServer(issuer, http);
  if (metadata) return metadata;
  throw new SwitchboardError(
    'AUTHORIZATION',
    `No authorization server metadata for ${issuer}: tried ${authorizationServerMetadataUrls(issuer).join(', ')}. Check the issuer URL.`,
  );
}

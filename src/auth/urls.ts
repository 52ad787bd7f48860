/**
 * The URLs both sides of MCP authorization derive: a server's canonical resource identifier
 * (RFC 8707), where its Protected Resource Metadata lives (RFC 9728 §3.1), and where an
 * authorization server's metadata lives (RFC 8414 §3.1 and OpenID Connect Discovery, in the order
 * the MCP specification gives).
 */
import { SwitchboardError } from '../protocol/errors.js';
import { isLoopbackHostname } from '../transports/http/server/security.js';

const PRM_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** `url` parsed, refusing anything but an absolute http(s) URL. */
export function httpUrl(url: string | URL, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SwitchboardError('CONFIG', `${what} ${JSON.stringify(String(url))} is not an absolute URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SwitchboardError('CONFIG', `${what} must be an http: or https: URL, not ${parsed.protocol}.`);
  }
  return parsed;
}

/**
 * The canonical URI of an MCP server (the MCP specification's "Canonical Server URI"): scheme and
 * host lower-case, no fragment, no trailing slash (`https://mcp.example.com`, not `.../`).
 */
export function canonicalResource(url: string | URL): string {
  const parsed = new URL(url);
  parsed.hash = '';
  const href = parsed.href;
  return parsed.search === '' && parsed.pathname.endsWith('/') ? href.slice(0, -1) : href;
}

/**
 * Where the Protected Resource Metadata of the server at `url` may be, in the order a client tries
 * them: the path-inserted form (`/.well-known/oauth-protected-resource/mcp`), then the root.
 */
export function protectedResourceMetadataUrls(url: string | URL): string[] {
  const { origin, pathname } = new URL(url);
  const path = pathname.replace(/\/$/, '');
  return path === '' ? [origin + PRM_WELL_KNOWN] : [origin + PRM_WELL_KNOWN + path, origin + PRM_WELL_KNOWN];
}

/** The paths a server serves its Protected Resource Metadata at: path-inserted and root (both forms). */
export function protectedResourceMetadataPaths(resource: string): string[] {
  return protectedResourceMetadataUrls(resource).map((url) => new URL(url).pathname);
}

/**
 * Where the metadata of the authorization server `issuer` may be, in the MCP specification's order:
 * RFC 8414 with path insertion, OpenID Connect with path insertion, then OpenID Connect appended to
 * the issuer's path; for an issuer without a path, RFC 8414 then OpenID Connect at the root.
 */
export function authorizationServerMetadataUrls(issuer: string | URL): string[] {
  const { origin, pathname } = new URL(issuer);
  const path = pathname.replace(/\/$/, '');
  if (path === '') {
    return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  }
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Whether the resource a server's metadata names covers the server the client talks to: the same
 * origin, and the resource's path is the server's path or one of its parents (`https://h` and
 * `https://h/mcp` cover `https://h/mcp`; `https://h/other` does not). A document naming another
 * server is refused, so a token is never requested for, or sent to, the wrong audience.
 */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (named.origin !== server.origin || named.hash !== '') return false;
  const base = named.pathname.replace(/\/$/, '');
  const path = server.pathname.replace(/\/$/, '');
  return base === '' || path === base || path.startsWith(`${base}/`);
}

/** localhost, *.localhost, 127.x.x.x or [::1]: where plain http is allowed for development. */
export const isLoopbackUrl = (url: URL): boolean => isLoopbackHostname(url.hostname.toLowerCase());

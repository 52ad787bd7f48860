/**
 * Tokens from the real development authorization server (examples/auth/dev-authorization-server.ts,
 * oidc-provider) obtained the way a client does, with plain fetch: dynamic registration, the
 * authorization code flow with PKCE S256 and a resource indicator, and client credentials. The
 * resource-server tests use them to meet tokens exactly as an authorization server mints them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { headlessSignIn } from '../../examples/auth/headless-sign-in.js';

interface AsMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

async function metadata(issuer: string): Promise<AsMetadata> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`metadata: ${response.status}`);
  return (await response.json()) as AsMetadata;
}

async function tokenRequest(
  endpoint: string,
  body: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TokenResponse> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  const json = (await response.json()) as TokenResponse & { error?: string; error_description?: string };
  if (!response.ok)
    throw new Error(`token endpoint: ${response.status} ${json.error}: ${json.error_description}`);
  return json;
}

/** Registers a public client (RFC 7591) and signs in as the development user for `resource`. */
export async function authorizationCode(
  issuer: string,
  resource: string,
  scope: string,
): Promise<TokenResponse> {
  const as = await metadata(issuer);
  const redirectUri = 'http://127.0.0.1:9/callback';
  const registered = await fetch(as.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', scope }),
  });
  if (registered.status !== 201)
    throw new Error(`registration: ${registered.status} ${await registered.text()}`);
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(16));
  const authorize = new URL(as.authorization_endpoint);
  for (const [key, value] of Object.entries({
    client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope,
    resource,
    state,
    code_challenge: base64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
  })) {
    authorize.searchParams.set(key, value);
  }
  // The development user is signed in and consents at once.
  const callback = await headlessSignIn(authorize, redirectUri);
  if (callback.searchParams.get('state') !== state) throw new Error('authorization: state mismatch');
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`authorization: ${callback.search}`);
  return tokenRequest(as.token_endpoint, {
    grant_type: 'authorization_code',
    client_id,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    resource,
  });
}

/** A machine-to-machine token for a confidential client registered with the server. */
export async function clientCredentials(
  issuer: string,
  client: { id: string; secret: string },
  resource: string,
  scope: string,
): Promise<TokenResponse> {
  const as = await metadata(issuer);
  const basic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString(
    'base64',
  );
  return tokenRequest(
    as.token_endpoint,
    { grant_type: 'client_credentials', resource, scope },
    { authorization: `Basic ${basic}` },
  );
}

/**
 * The conformance client's sign-in for the suite's `auth/*` scenarios: an `OAuthClient` configured
 * from the scenario's context (pre-registered credentials, a private key for `private_key_jwt`),
 * with a headless user agent (the suite's authorization servers consent at once) and the Client ID
 * Metadata Document URL the suite expects.
 */
import * as jose from 'jose';
import { identityAssertionGrant, OAuthClient, type PreRegisteredClient } from 'switchboard/auth';
import { headlessSignIn } from '../../examples/auth/headless-sign-in.js';
import type { ScenarioContext } from './scenarios.js';

const REDIRECT_URI = 'http://127.0.0.1:3000/callback';
/** The client id URL the suite's CIMD scenario looks for. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

async function preRegistered(context: ScenarioContext): Promise<PreRegisteredClient | undefined> {
  const { client_id, client_secret, private_key_pem, signing_algorithm } = context as Record<string, unknown>;
  if (typeof client_id !== 'string') return undefined;
  if (typeof private_key_pem === 'string') {
    const alg = typeof signing_algorithm === 'string' ? signing_algorithm : 'ES256';
    return {
      client_id,
      token_endpoint_auth_method: 'private_key_jwt',
      private_key: (await jose.importPKCS8(private_key_pem, alg)) as never,
    };
  }
  return typeof client_secret === 'string' ? { client_id, client_secret } : { client_id };
}

export async function conformanceOAuthClient(
  scenario: string,
  context: ScenarioContext,
): Promise<OAuthClient> {
  const client = await preRegistered(context);
  if (scenario.startsWith('auth/client-credentials')) {
    return new OAuthClient({ grant: 'client_credentials', client: client! });
  }
  const given = context as Record<string, string | undefined>;
  if (given.valid_jwt !== undefined) {
    // Workload identity federation (SEP-1933): the workload's JWT is the assertion.
    return new OAuthClient({ grant: 'jwt_bearer', client: client!, assertion: () => given.valid_jwt! });
  }
  if (given.idp_id_token !== undefined) {
    // Cross-app access (SEP-990): the ID token becomes an ID-JAG at the identity provider.
    return new OAuthClient({
      grant: 'jwt_bearer',
      client: client!,
      assertion: identityAssertionGrant({
        issuer: given.idp_issuer!,
        tokenEndpoint: given.idp_token_endpoint!,
        clientId: given.idp_client_id!,
        idToken: () => given.idp_id_token!,
      }),
    });
  }
  return new OAuthClient({
    redirectUri: REDIRECT_URI,
    authorize: (url) => headlessSignIn(url, REDIRECT_URI),
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(client ? { client } : {}),
  });
}

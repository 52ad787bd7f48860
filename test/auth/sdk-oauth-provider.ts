/**
 * The official SDK v2 client's OAuth provider (`OAuthClientProvider`), in memory: what an app
 * implements to let the SDK sign in (its storage and its user agent). The authorization URL the SDK
 * wants opened is kept for the test to follow, as a browser would.
 */
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** A redirect URI nothing listens on: the tests read the code off the redirect instead. */
export const SDK_REDIRECT = 'http://127.0.0.1:9/callback';

export class MemoryProvider implements OAuthClientProvider {
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;
  /** The last URL the SDK asked to open. */
  authorizationUrl: URL | undefined;
  constructor(readonly clientName = 'official v2 client') {}
  get redirectUrl() {
    return SDK_REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: this.clientName,
      redirect_uris: [SDK_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(client: StoredOAuthClientInformation) {
    this.#client = client;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
}

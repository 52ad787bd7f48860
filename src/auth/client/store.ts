/**
 * Where a client keeps what signing in produced: per authorization server, the client it
 * registered (or was given); per authorization server and resource, the tokens. `TokenStore` is
 * the interface (a gateway or an app keeps them in its own database); `MemoryTokenStore` is the
 * default. The CLI keeps them in a file (`FileTokenStore`, `switchboard/node`).
 *
 * Stored values hold secrets: implementations must not log them, and a persistent one must be
 * readable by its owner only.
 */

/** A client registered at an authorization server (RFC 7591 response, CIMD, or pre-registered). */
export interface StoredClient {
  readonly client_id: string;
  readonly client_secret?: string;
  /** `client_secret_basic`, `client_secret_post`, `none` or `private_key_jwt`. */
  readonly token_endpoint_auth_method?: string;
  /** Unix seconds; 0 or absent: the secret does not expire. */
  readonly client_secret_expires_at?: number;
  readonly redirect_uris?: readonly string[];
}

/** Tokens for one resource from one authorization server. */
export interface StoredTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly refresh_token?: string;
  /** Unix seconds when the access token expires, if the server said. */
  readonly expires_at?: number;
  /** The scopes granted (or, when the server did not say, the scopes asked for). */
  readonly scope?: string;
  /** For a DPoP-bound token (`token_type` DPoP): the thumbprint of the key it is bound to. */
  readonly dpop_jkt?: string;
}

export interface TokenStore {
  getClient(issuer: string): Promise<StoredClient | undefined>;
  setClient(issuer: string, client: StoredClient): Promise<void>;
  getTokens(issuer: string, resource: string): Promise<StoredTokens | undefined>;
  setTokens(issuer: string, resource: string, tokens: StoredTokens): Promise<void>;
  /** Forgets the tokens of `resource` (every issuer's), for logout. */
  deleteTokens(resource: string): Promise<void>;
  /** The issuer whose tokens `resource` last used, so a request can carry a token before any 401. */
  issuerOf(resource: string): Promise<string | undefined>;
}

/** Both maps in one JSON-friendly shape: what FileTokenStore writes. */
export interface TokenStoreData {
  clients: Record<string, StoredClient>;
  /** By resource, then issuer. */
  tokens: Record<string, Record<string, StoredTokens>>;
}

/** A TokenStore over a {@link TokenStoreData} that `load` reads and `save` writes. */
export abstract class DataTokenStore implements TokenStore {
  protected abstract load(): Promise<TokenStoreData>;
  protected abstract save(data: TokenStoreData): Promise<void>;

  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return (await this.load()).clients[issuer];
  }
  async setClient(issuer: string, client: StoredClient): Promise<void> {
    const data = await this.load();
    data.clients[issuer] = client;
    await this.save(data);
  }
  async getTokens(issuer: string, resource: string): Promise<StoredTokens | undefined> {
    return (await this.load()).tokens[resource]?.[issuer];
  }
  async setTokens(issuer: string, resource: string, tokens: StoredTokens): Promise<void> {
    const data = await this.load();
    // One issuer per resource at a time: the latest sign-in replaces the others.
    data.tokens[resource] = { [issuer]: tokens };
    await this.save(data);
  }
  async deleteTokens(resource: string): Promise<void> {
    const data = await this.load();
    if (!(resource in data.tokens)) return;
    delete data.tokens[resource];
    await this.save(data);
  }
  async issuerOf(resource: string): Promise<string | undefined> {
    return Object.keys((await this.load()).tokens[resource] ?? {})[0];
  }
}

/** The default store: this process's memory. */
export class MemoryTokenStore extends DataTokenStore {
  #data: TokenStoreData = { clients: {}, tokens: {} };
  protected async load(): Promise<TokenStoreData> {
    return this.#data;
  }
  protected async save(data: TokenStoreData): Promise<void> {
    this.#data = data;
  }
}

/**
 * A real OAuth 2.1 authorization server for development and tests: `oidc-provider` (an OpenID
 * Certified implementation) in this process, on 127.0.0.1, configured the way the MCP specification
 * expects an authorization server to be: dynamic client registration (RFC 7591), PKCE (S256, always
 * required), resource indicators (RFC 8707) with JWT access tokens whose audience is the resource,
 * refresh tokens (rotated), `iss` in authorization responses (RFC 9207), introspection, revocation,
 * the client credentials grant, DPoP-bound tokens for clients that prove a key (RFC 9449, on by
 * default in oidc-provider), and Client ID Metadata Documents when asked for.
 *
 * One development user, `dev-user`, is always signed in and consents to everything: an authorization
 * request is answered at once with a redirect carrying the code. That holds for user agents without
 * cookies too (`curl -sL`), so a sign-in completes without a person. An authorization request with
 * `login_hint=<name>` is signed in as that user instead (tests need a second person). Never expose
 * it beyond loopback.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';
import type { Configuration, default as Provider } from 'oidc-provider';

/**
 * oidc-provider prints notices meant for production deployments (the in-memory adapter, default
 * lifetimes, a Node release older than it prefers) on the console; a development server that the
 * tests and examples run knows them all. Those lines, and only those, are dropped.
 */
function quietOidcProvider(): void {
  for (const level of ['info', 'warn'] as const) {
    const original = console[level];
    console[level] = (...args: unknown[]) => {
      const line = typeof args[0] === 'string' ? args[0] : '';
      // (The line may be wrapped in colour codes on a terminal.)
      if (line.includes('oidc-provider NOTICE:') || line.includes('oidc-provider WARNING:')) return;
      original(...args);
    };
  }
}

let oidcProvider: Promise<typeof import('oidc-provider')> | undefined;
const loadOidcProvider = () => {
  if (!oidcProvider) {
    quietOidcProvider();
    oidcProvider = import('oidc-provider');
  }
  return oidcProvider;
};

/** A protected resource the server issues tokens for. */
export interface DevResource {
  /** Scopes a client may ask for at this resource. */
  readonly scopes: readonly string[];
  /** Access tokens: JWT (default) or opaque (checked by introspection). */
  readonly format?: 'jwt' | 'opaque';
}

export interface DevAuthorizationServerOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** The resources (canonical URIs) tokens may be issued for. Resources added later: {@link DevAuthorizationServer.addResource}. */
  resources?: Readonly<Record<string, DevResource>>;
  /** Access token lifetime in seconds. Default 3600. */
  accessTokenTtlSec?: number;
  /** Clients registered up front (confidential clients for introspection or client credentials...). */
  clients?: Configuration['clients'];
  /**
   * Accept Client ID Metadata Documents (https client ids) and fetch them with this function
   * (tests serve the document from memory: there is no https server on loopback).
   */
  clientMetadataFetch?: (url: string) => Promise<Response>;
  /**
   * Scopes clients may name when they register (RFC 7591 `scope`), besides those of `resources`:
   * the scopes of resources added later. oidc-provider checks registrations against this list.
   */
  scopes?: readonly string[];
  /** Offer dynamic client registration (RFC 7591). Default true. */
  registration?: boolean;
  /** The subject of the development user. Default `dev-user`; a request's `login_hint` names another. */
  account?: string;
  /**
   * Claims added to the JWT access tokens of each account, by subject (e.g.
   * `{ carol: { groups: ['ops'] } }`): what a directory would say of the person.
   */
  tokenClaims?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface DevAuthorizationServer {
  /** The issuer identifier, e.g. `http://127.0.0.1:4000`. */
  readonly issuer: string;
  readonly provider: Provider;
  addResource(uri: string, resource: DevResource): void;
  close(): Promise<void>;
}

const SESSION_COOKIE = '_session';
const DEV_SESSION = 'dev-session';
/** oidc-provider's authorization endpoint (its default route). */
const AUTHORIZATION_PATH = '/auth';

export async function startDevAuthorizationServer(
  options: DevAuthorizationServerOptions = {},
): Promise<DevAuthorizationServer> {
  const { default: Provider, errors, interactionPolicy } = await loadOidcProvider();
  const resources = new Map(Object.entries(options.resources ?? {}));
  const account = options.account ?? 'dev-user';
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer((req, res) => listener!(req, res));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const ttl = options.accessTokenTtlSec ?? 3600;
  const keys = await Promise.all(
    (['ES256', 'RS256'] as const).map(async (alg) => {
      const { privateKey } = await jose.generateKeyPair(alg, { extractable: true });
      return { ...(await jose.exportJWK(privateKey)), alg, use: 'sig', kid: `${alg.toLowerCase()}-1` };
    }),
  );

  const knownScopes = new Set([
    'openid',
    'offline_access',
    ...(options.scopes ?? []),
    ...[...resources.values()].flatMap((r) => r.scopes),
  ]);
  const configuration: Configuration = {
    clients: options.clients ?? [],
    jwks: { keys: keys as jose.JWK[] as never },
    scopes: [...knownScopes],
    pkce: { required: () => true },
    ttl: { AccessToken: ttl, ClientCredentials: ttl, RefreshToken: 14 * 24 * 3600, Grant: 14 * 24 * 3600 },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    extraTokenClaims: (_ctx, token) =>
      'accountId' in token && typeof token.accountId === 'string'
        ? options.tokenClaims?.[token.accountId]
        : undefined,
    // The development user consents to everything a client asks for.
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      const grant = new oidc.provider.Grant({
        accountId: oidc.session!.accountId!,
        clientId: oidc.client!.clientId,
      });
      const requested = String(oidc.params?.scope ?? '')
        .split(' ')
        .filter(Boolean);
      // Scopes the server knows (registration accepts them) count as OpenID scopes too: grant them.
      const oidcScopes = requested.filter((s) => knownScopes.has(s));
      if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
      for (const resource of Object.keys(oidc.resourceServers ?? {})) {
        const offered = new Set(resources.get(resource)?.scopes ?? []);
        const granted = requested.filter((s) => offered.has(s));
        if (granted.length > 0 || offered.size === 0) grant.addResourceScope(resource, granted.join(' '));
      }
      await grant.save();
      return grant;
    },
    // A refresh token for every client allowed to refresh (offline_access is not needed).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // oidc-provider asks a native client's user to consent every time (its redirect can be
    // claimed by another app); the development user consents at once, so that check goes too.
    interactions: { policy: withoutNativePrompt(interactionPolicy.base()) },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: options.registration !== false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A request naming no resource gets a token for the only resource there is.
        defaultResource: (_ctx, _client, oneOf) =>
          oneOf ?? (resources.size === 1 ? [...resources.keys()][0] : undefined),
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, resourceIndicator) {
          const resource = resources.get(resourceIndicator);
          if (!resource)
            throw new errors.InvalidTarget(`${resourceIndicator} is not a resource of this server`);
          return {
            scope: resource.scopes.join(' '),
            audience: resourceIndicator,
            accessTokenTTL: ttl,
            accessTokenFormat: resource.format ?? 'jwt',
            ...(resource.format === 'opaque' ? {} : { jwt: { sign: { alg: 'ES256' } } }),
          };
        },
      },
      ...(options.clientMetadataFetch
        ? { clientIdMetadataDocument: { enabled: true, ack: 'draft-02', allowFetch: () => true } }
        : {}),
    },
    ...(options.clientMetadataFetch
      ? { fetch: (url: string | URL) => options.clientMetadataFetch!(String(url)) }
      : {}),
  } as Configuration;

  const provider = new Provider(issuer, configuration);
  provider.on('server_error', (_ctx, error) => console.error('dev authorization server:', error));

  // The development user's session, shared by every user agent: requests without a session cookie
  // (curl) are given it, so the authorization endpoint needs no sign-in page. An authorization
  // request naming another user (`login_hint`) is given that user's session, made on first use.
  const Session = provider.Session as unknown as new (
    payload: object,
  ) => InstanceType<typeof provider.Session>;
  const sessions = new Map<string, Promise<string>>();
  const sessionOf = (accountId: string): Promise<string> => {
    let id = sessions.get(accountId);
    if (!id) {
      const jti = `${DEV_SESSION}-${randomBytes(8).toString('hex')}`;
      const session = new Session({ jti, uid: randomBytes(16).toString('hex') });
      session.loginAccount({ accountId, loginTs: Math.floor(Date.now() / 1000) } as never);
      id = session.save(14 * 24 * 3600).then(() => jti);
      sessions.set(accountId, id);
    }
    return id;
  };
  await sessionOf(account);
  provider.use(async (ctx, next) => {
    const hint = ctx.path === AUTHORIZATION_PATH ? ctx.query.login_hint : undefined;
    const named = typeof hint === 'string' && hint !== '' ? hint : undefined;
    const cookie = ctx.get('cookie');
    if (named !== undefined || !cookie.includes(`${SESSION_COOKIE}=`)) {
      const others = cookie
        .split(';')
        .map((c) => c.trim())
        .filter((c) => c !== '' && !c.startsWith(SESSION_COOKIE));
      const jti = await sessionOf(named ?? account);
      ctx.request.headers.cookie = [...others, `${SESSION_COOKIE}=${jti}`].join('; ');
    }
    // A client may ask for the consent screen (`prompt=consent`: the official SDK does when it
    // asks for offline_access). The development user has consented already, so the request is
    // answered as any other: without the screen, which would need a person and a cookie jar.
    if (ctx.path === AUTHORIZATION_PATH && ctx.query.prompt !== undefined) {
      const query = new URLSearchParams(ctx.querystring);
      const prompts = (query.get('prompt') ?? '').split(' ').filter((p) => p !== '' && p !== 'consent');
      if (prompts.length > 0) query.set('prompt', prompts.join(' '));
      else query.delete('prompt');
      ctx.querystring = query.toString();
    }
    await next();
  });
  const callback = provider.callback();
  listener = (req, res) => callback(req, res);

  return {
    issuer,
    provider,
    addResource(uri, resource) {
      resources.set(uri, resource);
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** The default interaction policy without the consent prompt's `native_client_prompt` check. */
function withoutNativePrompt<
  P extends { get(name: string): { checks: { remove(reason: string): void } } | undefined },
>(policy: P): P {
  policy.get('consent')?.checks.remove('native_client_prompt');
  return policy;
}

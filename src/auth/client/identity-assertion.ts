/**
 * Cross-app access (SEP-990, "Enterprise-Managed Authorization"): the user signed in once at the
 * enterprise's identity provider; the client exchanges that ID token there (RFC 8693 token
 * exchange) for an Identity Assertion JWT Authorization Grant (ID-JAG) naming the MCP server's
 * authorization server and resource, then presents the ID-JAG to that authorization server as a
 * JWT-bearer grant (RFC 7523). `identityAssertionGrant(...)` is the first step, in the shape of
 * `OAuthClient`'s `assertion` option: `new OAuthClient({ grant: 'jwt_bearer', client, assertion:
 * identityAssertionGrant({...}) })`.
 */
import * as oauth from 'oauth4webapi';
import { SwitchboardError } from '../../protocol/errors.js';
import { OAuthHttp, type WebFetch } from '../http.js';
import type { AssertionTarget } from './oauth-client.js';

export interface IdentityAssertionOptions {
  /** The identity provider's issuer identifier. */
  issuer: string;
  /** Its token endpoint, where the exchange happens. */
  tokenEndpoint: string;
  /** This client's id at the identity provider. */
  clientId: string;
  /** Its secret there (`client_secret_basic`); none: a public client. */
  clientSecret?: string;
  /** The user's ID token from the identity provider (fresh each time it is asked for). */
  idToken: () => string | Promise<string>;
  /** The fetch for the exchange (a WHATWG fetch). Default: the global one. */
  fetch?: WebFetch;
  /** Allow plain http to a non-loopback identity provider. Default false. */
  allowInsecureHttp?: boolean;
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';

/** An `assertion` for `OAuthClient` that gets an ID-JAG for each sign-in from the identity provider. */
export function identityAssertionGrant(
  options: IdentityAssertionOptions,
): (target: AssertionTarget) => Promise<string> {
  const http = new OAuthHttp({ fetch: options.fetch, allowInsecureHttp: options.allowInsecureHttp });
  const idp: oauth.AuthorizationServer = {
    issuer: options.issuer,
    token_endpoint: http.check(options.tokenEndpoint, 'The identity provider token endpoint').href,
  };
  const client: oauth.Client = { client_id: options.clientId };
  const clientAuth =
    options.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(options.clientSecret);
  return async (target) => {
    const parameters: Record<string, string> = {
      requested_token_type: ID_JAG,
      subject_token: await options.idToken(),
      subject_token_type: ID_TOKEN,
      audience: target.issuer,
      resource: target.resource,
    };
    if (target.scope !== undefined) parameters.scope = target.scope;
    let issued: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.genericTokenEndpointRequest(
        idp,
        client,
        clientAuth,
        TOKEN_EXCHANGE,
        parameters,
        http.options(),
      );
      // An ID-JAG is not an access token: RFC 8693 gives it the token type N_A.
      issued = await oauth.processGenericTokenEndpointResponse(idp, client, response, {
        recognizedTokenTypes: { n_a: () => undefined },
      });
    } catch (error) {
      const reason =
        error instanceof oauth.ResponseBodyError
          ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''} (HTTP ${error.status})`
          : (error as Error).message;
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The identity provider ${options.issuer} refused the token exchange for an identity assertion grant: ${reason}.`,
        { cause: error },
      );
    }
    const type = (issued as { issued_token_type?: unknown }).issued_token_type;
    if (type !== undefined && type !== ID_JAG) {
      throw new SwitchboardError(
        'AUTHORIZATION',
        `The identity provider ${options.issuer} issued a ${String(type)} instead of an identity assertion grant (${ID_JAG}).`,
      );
    }
    return issued.access_token;
  };
}

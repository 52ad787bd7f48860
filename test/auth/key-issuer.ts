/**
 * A signing authority for resource-server tests: publishes authorization server metadata and a JWKS
 * on 127.0.0.1 (what a resource server reads from a real authorization server), and mints JWT
 * access tokens with any claims a test needs (expired, for another audience, signed with a key it
 * does not publish...). It has no token endpoint: flows that need one use the real authorization
 * server (test/auth/authorization-server.ts).
 */
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as jose from 'jose';

interface SigningKey {
  readonly kid: string;
  readonly privateKey: jose.CryptoKey;
  readonly jwk: jose.JWK;
}

async function newKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return { kid, privateKey, jwk };
}

export class KeyIssuer {
  readonly issuer: string;
  /** JWKS requests served so far. */
  jwksRequests = 0;
  /** While false, the JWKS endpoint answers 503. */
  available = true;
  /** The document that answers with an endless body (no Content-Length) instead of its JSON. */
  endless: 'metadata' | 'jwks' | undefined;
  /** Bytes of the endless body sent, and whether the reader hung up before its safety stop. */
  readonly endlessSent = { bytes: 0, cut: Promise.resolve(false) };
  #keys: SigningKey[];
  readonly #server: NodeHttpServer;

  private constructor(server: NodeHttpServer, issuer: string, keys: SigningKey[]) {
    this.#server = server;
    this.issuer = issuer;
    this.#keys = keys;
  }

  static async start(): Promise<KeyIssuer> {
    let self: KeyIssuer | undefined;
    const server = createServer((req, res) => {
      const issuer = self!;
      const document = req.url === '/jwks' ? 'jwks' : 'metadata';
      if (
        issuer.endless === document &&
        (req.url === '/jwks' || req.url === '/.well-known/oauth-authorization-server')
      ) {
        issuer.endlessSent.cut = new Promise((resolve) =>
          res.once('close', () => resolve(!res.writableFinished)),
        );
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"keys":[{"kty":"');
        const more = () => {
          // A safety stop far past any cap, so a reader that never stops fails the test, not hangs it.
          while (!res.destroyed && issuer.endlessSent.bytes < 256 * 1024 * 1024) {
            issuer.endlessSent.bytes += 64 * 1024;
            if (!res.write('y'.repeat(64 * 1024))) return void res.once('drain', more);
          }
          if (!res.destroyed) res.end('"}]}');
        };
        more();
        return;
      }
      if (req.url === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issuer: issuer.issuer, jwks_uri: `${issuer.issuer}/jwks` }));
      } else if (req.url === '/jwks') {
        issuer.jwksRequests++;
        if (!issuer.available) {
          res.writeHead(503).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ keys: issuer.#keys.map((k) => k.jwk) }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new KeyIssuer(server, `http://127.0.0.1:${port}`, [await newKey('key-1')]);
    return self;
  }

  /** Publishes a new key (and, unless `keepOld`, stops publishing the previous ones). */
  async rotate(kid: string, keepOld = false): Promise<void> {
    const key = await newKey(kid);
    this.#keys = keepOld ? [...this.#keys, key] : [key];
  }

  /** A JWT access token; `claims` override the defaults (valid for an hour, `typ: at+jwt`). */
  async token(
    claims: jose.JWTPayload & Record<string, unknown>,
    options: { key?: SigningKey; typ?: string; unpublished?: boolean } = {},
  ): Promise<string> {
    const key = options.unpublished ? await newKey(this.#keys[0]!.kid) : (options.key ?? this.#keys.at(-1)!);
    const now = Math.floor(Date.now() / 1000);
    return new jose.SignJWT({
      iss: this.issuer,
      iat: now,
      exp: now + 3600,
      jti: crypto.randomUUID(),
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: options.typ ?? 'at+jwt' })
      .sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}

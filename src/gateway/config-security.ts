/**
 * The front-door part of a gateway config: `gateway.auth`, `gateway.access`, `gateway.rateLimits`,
 * `gateway.audit`, `gateway.redis`, `gateway.admin`, and each HTTP server's `upstreamAuth`. Read by the same reader as
 * the rest (every problem at its file:line:column, with what to write instead), then checked against
 * the servers: a rule none of whose globs can match a name the config shows is a problem too.
 */
import { isAbsolute } from 'node:path';
import type { Node } from 'jsonc-parser';
import type { AccessRule } from './access.js';
import { keyEntropyBits, MAKE_A_KEY, MIN_KEY_BITS } from './api-keys.js';
import { jsonType, member, properties } from './config-source.js';
import { literalPrefix } from './glob.js';
import { APP_URI_PREFIX, SKILL_PREFIX, URI_PREFIX } from './names.js';

export interface OAuthFrontDoor {
  /** The authorization server whose tokens are accepted (and that clients are sent to). */
  readonly issuer: string;
  /** The gateway's own URL (its MCP endpoint): what tokens must name as audience, and the metadata's `resource`. */
  readonly audience: string;
  /** The JWKS URL; default the issuer's `jwks_uri`. */
  readonly jwksUri?: string;
  /** Opaque tokens: checked at the issuer's introspection endpoint with these credentials. */
  readonly introspection?: { readonly clientId: string; readonly clientSecret: string };
  /** Scopes every request needs. */
  readonly requiredScopes: readonly string[];
  /** `scopes_supported` in the metadata (default `requiredScopes`). */
  readonly scopesSupported: readonly string[];
}

export interface FrontDoorAuth {
  /** principal → key. */
  readonly apiKeys: Readonly<Record<string, string>>;
  readonly oauth?: OAuthFrontDoor;
}

export type RateUnit = 'second' | 'minute' | 'hour';

export interface RateLimitRule {
  readonly principals: readonly string[];
  /** Tool-name globs (downstream names). */
  readonly tools: readonly string[];
  readonly points: number;
  readonly unit: RateUnit;
  /** The window in seconds (1, 60 or 3600). */
  readonly seconds: number;
  /** As written (`60/minute`). */
  readonly limit: string;
}

export interface AuditConfig {
  /** An absolute path. */
  readonly file: string;
  /** The size past which the file is rotated (the chain goes on in the new file). */
  readonly maxBytes: number;
}

export interface TokenExchangeConfig {
  /** The authorization server that exchanges tokens (its metadata names the token endpoint). */
  readonly issuer: string;
  /** The token endpoint, when the issuer publishes no metadata. */
  readonly tokenEndpoint?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** `audience` and `resource` of the request (RFC 8693 §2.1); `resource` defaults to the server's URL. */
  readonly audience?: string;
  readonly resource?: string;
  readonly scope?: string;
}

/** `gateway.admin`: who may use the admin endpoint (`/admin/...`, admin.ts). */
export interface AdminConfig {
  /** The secret every admin request carries in `X-Switchboard-Admin-Token` (required without `auth`). */
  readonly token?: string;
  /** With `auth`: the principals (`alice`, `group:ops`, `scope:gateway.admin`) who are admins; others get 403. */
  readonly principals: readonly string[];
}

export interface GatewaySecurity {
  /** Unset: nobody signs in (loopback only, unless `--insecure-no-auth`). */
  readonly auth?: FrontDoorAuth;
  /** Unset: every caller may use everything. */
  readonly access?: readonly AccessRule[];
  readonly rateLimits: readonly RateLimitRule[];
  readonly audit?: AuditConfig;
  /** `redis://...`: counters, legacy sessions and pins shared by every node. */
  readonly redis?: string;
  /** Unset: no admin endpoint. */
  readonly admin?: AdminConfig;
}

export const NO_SECURITY: GatewaySecurity = Object.freeze({ rateLimits: [] });

export const DEFAULT_AUDIT_MAX_BYTES = 64 * 1024 * 1024;

/** The reader's helpers this part uses (the config reader implements them). */
export interface ValueReader {
  report(node: Node | undefined, message: string, fix?: string): void;
  warn(node: Node | undefined, message: string, fix?: string): void;
  string(node: Node | undefined, key: string, expandVars?: boolean): string | undefined;
  strings(node: Node | undefined, key: string, expandVars?: boolean): string[] | undefined;
  integer(node: Node | undefined, key: string, min: number, max: number): number | undefined;
  unknownKeys(node: Node, known: Set<string>, foreign: Set<string>, where: string): void;
  /** An absolute path for one relative to the config file. */
  path(text: string): string;
}

/** Where each rule and glob was written, for the check against the servers. */
interface Written {
  readonly where: string;
  readonly node: Node;
  readonly globs: ReadonlyArray<{ pattern: string; node: Node }>;
  /** Which names the globs are over: tools alone (rate limits) or everything shown (access). */
  readonly over: 'tools' | 'all';
}

const NONE = new Set<string>();
const UNITS: Record<string, RateUnit> = {
  s: 'second',
  sec: 'second',
  second: 'second',
  m: 'minute',
  min: 'minute',
  minute: 'minute',
  h: 'hour',
  hour: 'hour',
};
const SECONDS: Record<RateUnit, number> = { second: 1, minute: 60, hour: 3600 };

export class SecurityReader {
  readonly #written: Written[] = [];

  constructor(private readonly r: ValueReader) {}

  /** The security options under `gateway` (`node` is the `gateway` object). */
  read(node: Node | undefined): GatewaySecurity {
    if (node === undefined || node.type !== 'object') return NO_SECURITY;
    const auth = this.#auth(member(node, 'auth'));
    const access = this.#access(member(node, 'access'));
    const rateLimits = this.#rateLimits(member(node, 'rateLimits'));
    const audit = this.#audit(member(node, 'audit'));
    const redisNode = member(node, 'redis');
    const redis = this.r.string(redisNode, 'redis', true);
    if (redis !== undefined && !/^rediss?:\/\/./.test(redis)) {
      this.r.report(
        redisNode,
        `"redis" must be a redis:// or rediss:// URL.`,
        'Write "redis": "redis://127.0.0.1:6379".',
      );
    }
    const admin = this.#admin(
      member(node, 'admin'),
      auth !== undefined || member(node, 'auth') !== undefined,
    );
    return {
      ...(auth ? { auth } : {}),
      ...(access ? { access } : {}),
      rateLimits,
      ...(audit ? { audit } : {}),
      ...(redis !== undefined ? { redis } : {}),
      ...(admin ? { admin } : {}),
    };
  }

  /** `gateway.admin`: a token (always checked when set; required without `auth`), and the admins with `auth`. */
  #admin(node: Node | undefined, withAuth: boolean): AdminConfig | undefined {
    if (node === undefined) return undefined;
    const example = withAuth
      ? '"admin": { "principals": ["alice", "group:ops"] }'
      : '"admin": { "token": "${SWITCHBOARD_ADMIN_TOKEN}" }';
    if (!this.#object(node, '"admin"', example)) return undefined;
    this.r.unknownKeys(node, new Set(['token', 'principals']), NONE, '"admin"');
    const tokenNode = member(node, 'token');
    const token = this.r.string(tokenNode, 'token', true);
    let weak = false;
    if (token !== undefined) {
      if (!(tokenNode!.value as string).includes('${'))
        this.r.warn(
          tokenNode,
          'The admin token is written in the config file itself.',
          'Put it in an environment variable and write "${SWITCHBOARD_ADMIN_TOKEN}", so the file can be shared.',
        );
      const bits = keyEntropyBits(token);
      weak = bits < MIN_KEY_BITS;
      if (weak)
        this.r.report(
          tokenNode,
          `The admin token is too weak: about ${bits} bits of entropy, at least ${MIN_KEY_BITS} are needed.`,
          MAKE_A_KEY,
        );
    }
    const principalsNode = member(node, 'principals');
    const principals = principalsNode === undefined ? [] : this.#principals(node, '"admin"');
    if (withAuth && principalsNode === undefined) {
      this.r.report(
        node,
        'With "auth", "admin" must name the admins: who may approve changed tools and run checks.',
        'Add "principals": ["alice", "group:ops"] (names as in "access" rules).',
      );
      return undefined;
    }
    if (!withAuth && principalsNode !== undefined) {
      this.r.report(
        principalsNode,
        'The admin "principals" name nobody: without "auth" nobody signs in.',
        'Add "auth" to "gateway", or remove "principals" and keep "token".',
      );
      return undefined;
    }
    if (!withAuth && token === undefined && tokenNode === undefined) {
      this.r.report(
        node,
        'Without "auth", "admin" needs a "token": the secret every admin request carries.',
        `Add "token": "\${SWITCHBOARD_ADMIN_TOKEN}". ${MAKE_A_KEY}`,
      );
      return undefined;
    }
    if (principals === undefined || weak || (tokenNode !== undefined && token === undefined))
      return undefined;
    return { ...(token !== undefined ? { token } : {}), principals };
  }

  /** A server's `upstreamAuth` (HTTP servers only). */
  upstreamAuth(node: Node | undefined, server: string): TokenExchangeConfig | undefined {
    if (node === undefined) return undefined;
    if (!this.#object(node, `"upstreamAuth" of "${server}"`, '"upstreamAuth": { "tokenExchange": { ... } }'))
      return undefined;
    this.r.unknownKeys(node, new Set(['tokenExchange']), NONE, `the "upstreamAuth" of "${server}"`);
    const exchange = member(node, 'tokenExchange');
    if (exchange === undefined) {
      this.r.report(
        node,
        `The "upstreamAuth" of "${server}" says nothing.`,
        'Write "tokenExchange": { "issuer": "...", "clientId": "...", "clientSecret": "${SECRET}" }.',
      );
      return undefined;
    }
    if (!this.#object(exchange, '"tokenExchange"', '"tokenExchange": { "issuer": "...", ... }'))
      return undefined;
    const keys = ['issuer', 'tokenEndpoint', 'clientId', 'clientSecret', 'audience', 'resource', 'scope'];
    this.r.unknownKeys(exchange, new Set(keys), NONE, `the "tokenExchange" of "${server}"`);
    const issuer = this.#url(member(exchange, 'issuer'), 'issuer');
    const clientId = this.r.string(member(exchange, 'clientId'), 'clientId', true);
    const clientSecret = this.r.string(member(exchange, 'clientSecret'), 'clientSecret', true);
    for (const [key, value] of [
      ['issuer', issuer],
      ['clientId', clientId],
      ['clientSecret', clientSecret],
    ] as const) {
      if (value === undefined && member(exchange, key) === undefined) {
        this.r.report(
          exchange,
          `The "tokenExchange" of "${server}" has no "${key}".`,
          `Add "${key}": ${key === 'clientSecret' ? '"${SECRET}"' : '"..."'}.`,
        );
      }
    }
    const tokenEndpoint = this.#url(member(exchange, 'tokenEndpoint'), 'tokenEndpoint');
    const audience = this.r.string(member(exchange, 'audience'), 'audience', true);
    const resource = this.#url(member(exchange, 'resource'), 'resource');
    const scope = this.r.string(member(exchange, 'scope'), 'scope', true);
    if (issuer === undefined || clientId === undefined || clientSecret === undefined) return undefined;
    return {
      issuer,
      clientId,
      clientSecret,
      ...(tokenEndpoint !== undefined ? { tokenEndpoint } : {}),
      ...(audience !== undefined ? { audience } : {}),
      ...(resource !== undefined ? { resource } : {}),
      ...(scope !== undefined ? { scope } : {}),
    };
  }

  /**
   * Reports each rule none of whose globs can match a name this config shows: servers are `names`
   * (disabled ones too), one of them maybe shown without a namespace (`bare`, whose names are
   * unknown until it runs, so any glob may match them).
   */
  checkAgainst(names: readonly string[], separator: string, bare: boolean): void {
    if (bare) return;
    for (const rule of this.#written) {
      const dead = rule.globs.filter(
        ({ pattern }) => !names.some((name) => mayMatch(pattern, name, separator, rule.over)),
      );
      if (dead.length === 0) continue;
      for (const { pattern, node } of dead) {
        const prefix = literalPrefix(pattern);
        this.r.report(
          node,
          `${rule.where}: ${JSON.stringify(pattern)} matches nothing this config shows (names are <server>${separator}<name>${rule.over === 'all' ? `, URIs ${URI_PREFIX}<server>/..., ${APP_URI_PREFIX}<server>/... and ${SKILL_PREFIX}<server>/...` : ''}; servers: ${names.map((n) => `"${n}"`).join(', ') || 'none'}).`,
          prefix === '' ? undefined : `Check the server name in ${JSON.stringify(pattern)}.`,
        );
      }
    }
  }

  #object(node: Node, what: string, example: string): boolean {
    if (node.type === 'object') return true;
    this.r.report(node, `${what} must be an object, not ${jsonType(node)}.`, `Write ${example}.`);
    return false;
  }

  #url(node: Node | undefined, key: string): string | undefined {
    const text = this.r.string(node, key, true);
    if (text === undefined) return undefined;
    try {
      const url = new URL(text);
      if (url.protocol === 'http:' || url.protocol === 'https:') return text;
    } catch {}
    this.r.report(
      node,
      `"${key}" must be an http or https URL, not ${JSON.stringify(text)}.`,
      'Give the whole URL, e.g. "https://auth.example.com".',
    );
    return undefined;
  }

  #auth(node: Node | undefined): FrontDoorAuth | undefined {
    if (node === undefined) return undefined;
    if (!this.#object(node, '"auth"', '"auth": { "apiKeys": { "alice": "${ALICE_KEY}" } }')) return undefined;
    this.r.unknownKeys(node, new Set(['apiKeys', 'oauth']), NONE, '"auth"');
    const apiKeys: Record<string, string> = {};
    const keysNode = member(node, 'apiKeys');
    if (
      keysNode !== undefined &&
      this.#object(keysNode, '"apiKeys"', '"apiKeys": { "alice": "${ALICE_KEY}" }')
    ) {
      const seen = new Map<string, string>();
      for (const { key: principal, keyNode, value } of properties(keysNode)) {
        if (!this.#principalName(keyNode, principal)) continue;
        const key = this.r.string(value, principal, true);
        if (key === undefined) continue;
        if (!(value.value as string).includes('${')) {
          this.r.warn(
            value,
            `The API key of "${principal}" is written in the config file itself.`,
            'Put it in an environment variable and write "${THAT_VARIABLE}", so the file can be shared.',
          );
        }
        const bits = keyEntropyBits(key);
        if (bits < MIN_KEY_BITS) {
          this.r.report(
            value,
            `The API key of "${principal}" is too weak: about ${bits} bits of entropy, at least ${MIN_KEY_BITS} are needed.`,
            MAKE_A_KEY,
          );
          continue;
        }
        const earlier = seen.get(key);
        if (earlier !== undefined) {
          this.r.report(
            value,
            `"${principal}" has the same API key as "${earlier}".`,
            'Give each principal its own key.',
          );
          continue;
        }
        seen.set(key, principal);
        apiKeys[principal] = key;
      }
    }
    const oauth = this.#oauth(member(node, 'oauth'));
    if (keysNode === undefined && member(node, 'oauth') === undefined) {
      this.r.report(
        node,
        '"auth" names no way to sign in.',
        'Add "apiKeys": { "alice": "${ALICE_KEY}" } or "oauth": { "issuer": "...", "audience": "..." }.',
      );
    }
    return { apiKeys, ...(oauth ? { oauth } : {}) };
  }

  #principalName(node: Node, name: string): boolean {
    if (name !== '' && name !== '*' && !name.includes(':') && !/\s/.test(name)) return true;
    this.r.report(
      node,
      `${JSON.stringify(name)} cannot be a principal's name.`,
      'Use a name without spaces, ":" or "*" (e.g. "alice"); "group:" and "scope:" are for rules.',
    );
    return false;
  }

  #oauth(node: Node | undefined): OAuthFrontDoor | undefined {
    if (node === undefined) return undefined;
    if (
      !this.#object(
        node,
        '"oauth"',
        '"oauth": { "issuer": "https://auth.example.com", "audience": "https://gateway.example.com/mcp" }',
      )
    )
      return undefined;
    const keys = ['issuer', 'audience', 'jwksUri', 'introspection', 'requiredScopes', 'scopesSupported'];
    this.r.unknownKeys(node, new Set(keys), NONE, '"oauth"');
    const issuer = this.#url(member(node, 'issuer'), 'issuer');
    const audience = this.#url(member(node, 'audience'), 'audience');
    for (const [key, value, example] of [
      ['issuer', issuer, 'https://auth.example.com'],
      ['audience', audience, "https://gateway.example.com/mcp (this gateway's URL)"],
    ] as const) {
      if (value === undefined && member(node, key) === undefined)
        this.r.report(node, `"oauth" has no "${key}".`, `Add "${key}": "${example}".`);
    }
    const jwksUri = this.#url(member(node, 'jwksUri'), 'jwksUri');
    let introspection: OAuthFrontDoor['introspection'];
    const introNode = member(node, 'introspection');
    if (
      introNode !== undefined &&
      this.#object(
        introNode,
        '"introspection"',
        '"introspection": { "clientId": "...", "clientSecret": "${SECRET}" }',
      )
    ) {
      this.r.unknownKeys(introNode, new Set(['clientId', 'clientSecret']), NONE, '"introspection"');
      const clientId = this.r.string(member(introNode, 'clientId'), 'clientId', true);
      const clientSecret = this.r.string(member(introNode, 'clientSecret'), 'clientSecret', true);
      if (clientId === undefined || clientSecret === undefined) {
        this.r.report(
          introNode,
          '"introspection" needs "clientId" and "clientSecret".',
          'Write { "clientId": "gateway", "clientSecret": "${GATEWAY_SECRET}" }.',
        );
      } else introspection = { clientId, clientSecret };
    }
    const requiredScopes = this.r.strings(member(node, 'requiredScopes'), 'requiredScopes') ?? [];
    const scopesSupported = this.r.strings(member(node, 'scopesSupported'), 'scopesSupported') ?? [];
    if (issuer === undefined || audience === undefined) return undefined;
    return {
      issuer,
      audience,
      ...(jwksUri !== undefined ? { jwksUri } : {}),
      ...(introspection ? { introspection } : {}),
      requiredScopes,
      scopesSupported,
    };
  }

  #principals(rule: Node, where: string): string[] | undefined {
    const node = member(rule, 'principals');
    if (node === undefined) {
      this.r.report(
        rule,
        `${where} names no principals.`,
        'Add "principals": ["alice", "group:ops", "scope:tools.read"] (or ["*"] for everyone).',
      );
      return undefined;
    }
    const principals = this.r.strings(node, 'principals');
    if (principals === undefined) return undefined;
    if (principals.length === 0) {
      this.r.report(
        node,
        `${where} matches nobody: "principals" is empty.`,
        'Name principals, or ["*"] for everyone.',
      );
      return undefined;
    }
    for (const [index, principal] of principals.entries()) {
      const bad =
        principal === '' ||
        /\s/.test(principal) ||
        ((principal.startsWith('group:') || principal.startsWith('scope:')) &&
          principal.indexOf(':') === principal.length - 1) ||
        (principal.includes(':') && !principal.startsWith('group:') && !principal.startsWith('scope:')) ||
        (principal.includes('*') && principal !== '*');
      if (bad) {
        this.r.report(
          node.children?.[index],
          `${where}: ${JSON.stringify(principal)} is not a principal.`,
          'Write a name ("alice"), "group:<group>", "scope:<scope>" or "*".',
        );
      }
    }
    return principals;
  }

  #globs(rule: Node, key: string): Array<{ pattern: string; node: Node }> {
    const node = member(rule, key);
    const patterns = this.r.strings(node, key) ?? [];
    return patterns.map((pattern, index) => ({ pattern, node: node!.children![index]! }));
  }

  #rules(node: Node | undefined, key: string, example: string): Node[] | undefined {
    if (node === undefined) return undefined;
    if (node.type !== 'array') {
      this.r.report(
        node,
        `"${key}" must be an array of rules, not ${jsonType(node)}.`,
        `Write "${key}": [${example}].`,
      );
      return undefined;
    }
    const rules: Node[] = [];
    for (const [index, rule] of (node.children ?? []).entries()) {
      if (rule.type !== 'object')
        this.r.report(
          rule,
          `${key}[${index}] must be an object, not ${jsonType(rule)}.`,
          `Write ${example}.`,
        );
      else rules.push(rule);
    }
    return rules;
  }

  #access(node: Node | undefined): AccessRule[] | undefined {
    const example = '{ "principals": ["group:ops"], "allow": ["github__*"], "deny": ["github__delete_*"] }';
    const rules = this.#rules(node, 'access', example);
    if (rules === undefined) return undefined;
    const out: AccessRule[] = [];
    for (const [index, rule] of rules.entries()) {
      const where = `gateway.access[${index}]`;
      this.r.unknownKeys(rule, new Set(['principals', 'allow', 'deny']), NONE, where);
      const principals = this.#principals(rule, where);
      const allow = this.#globs(rule, 'allow');
      const deny = this.#globs(rule, 'deny');
      if (member(rule, 'allow') === undefined && member(rule, 'deny') === undefined) {
        this.r.report(
          rule,
          `${where} neither allows nor denies anything.`,
          'Add "allow": ["server__*"] or "deny": [...].',
        );
      }
      this.#written.push({ where, node: rule, globs: [...allow, ...deny], over: 'all' });
      if (principals)
        out.push({ principals, allow: allow.map((g) => g.pattern), deny: deny.map((g) => g.pattern) });
    }
    return out;
  }

  #rateLimits(node: Node | undefined): RateLimitRule[] {
    const example = '{ "principals": ["*"], "tools": ["github__*"], "limit": "60/minute" }';
    const rules = this.#rules(node, 'rateLimits', example) ?? [];
    const out: RateLimitRule[] = [];
    for (const [index, rule] of rules.entries()) {
      const where = `gateway.rateLimits[${index}]`;
      this.r.unknownKeys(rule, new Set(['principals', 'tools', 'limit']), NONE, where);
      const principals = this.#principals(rule, where);
      const tools = member(rule, 'tools') === undefined ? [] : this.#globs(rule, 'tools');
      if (tools.length > 0) this.#written.push({ where, node: rule, globs: tools, over: 'tools' });
      const limitNode = member(rule, 'limit');
      const limit = this.r.string(limitNode, 'limit');
      const match = limit === undefined ? null : /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/.exec(limit);
      const unit = match ? UNITS[match[2]!] : undefined;
      const points = match ? Number(match[1]) : 0;
      if (limitNode === undefined)
        this.r.report(
          rule,
          `${where} has no "limit".`,
          'Add "limit": "60/minute" (per second, minute or hour).',
        );
      else if (limit !== undefined && (unit === undefined || points < 1 || points > 1_000_000_000)) {
        this.r.report(
          limitNode,
          `${where}: ${JSON.stringify(limit)} is not a limit.`,
          'Write "<calls>/<second|minute|hour>", e.g. "60/minute".',
        );
      }
      if (principals && unit && points >= 1 && points <= 1_000_000_000) {
        out.push({
          principals,
          tools: tools.length === 0 ? ['*'] : tools.map((g) => g.pattern),
          points,
          unit,
          seconds: SECONDS[unit],
          limit: limit!,
        });
      }
    }
    return out;
  }

  #audit(node: Node | undefined): AuditConfig | undefined {
    if (node === undefined) return undefined;
    if (!this.#object(node, '"audit"', '"audit": { "file": "audit.jsonl" }')) return undefined;
    this.r.unknownKeys(node, new Set(['file', 'maxBytes']), NONE, '"audit"');
    const fileNode = member(node, 'file');
    const file = this.r.string(fileNode, 'file', true);
    if (fileNode === undefined)
      this.r.report(
        node,
        '"audit" has no "file".',
        'Add "file": "audit.jsonl" (relative to the config file).',
      );
    const maxBytes =
      this.r.integer(member(node, 'maxBytes'), 'maxBytes', 4096, Number.MAX_SAFE_INTEGER) ??
      DEFAULT_AUDIT_MAX_BYTES;
    if (file === undefined || file === '') return undefined;
    return { file: isAbsolute(file) ? file : this.r.path(file), maxBytes };
  }
}

/** Can `pattern` match a name (or a URI, for `all`) that server `server` shows? */
function mayMatch(pattern: string, server: string, separator: string, over: 'tools' | 'all'): boolean {
  const prefix = literalPrefix(pattern);
  const starts =
    over === 'all'
      ? [
          `${server}${separator}`,
          `${URI_PREFIX}${server}/`,
          `${APP_URI_PREFIX}${server}/`,
          `${SKILL_PREFIX}${server}/`,
        ]
      : [`${server}${separator}`];
  return starts.some((start) => start.startsWith(prefix) || prefix.startsWith(start));
}

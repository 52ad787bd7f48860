import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { callerOf } from '../../src/gateway/caller.js';
import { parseGatewayConfig } from '../../src/gateway/config.js';
import { formatProblem } from '../../src/gateway/config-source.js';
import { RateLimits } from '../../src/gateway/rate-limits.js';

const ALICE_KEY = randomBytes(32).toString('base64url');
const ENV = { ALICE_KEY, BOB_KEY: randomBytes(32).toString('hex'), WEAK: 'hunter2', SECRET: 's3cret' };

function read(
  gateway: string,
  servers = '"github": { "url": "https://gh.example/mcp" }, "files": { "command": "fs" }',
) {
  return parseGatewayConfig('team.json', `{\n  "mcpServers": { ${servers} },\n  "gateway": ${gateway}\n}`, {
    env: ENV,
  });
}

function problems(gateway: string, servers?: string): string[] {
  const result = read(gateway, servers);
  assert.equal(result.ok, false, 'the config should be refused');
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('gateway security config', () => {
  test("reads auth, access, rate limits, audit, redis and a server's token exchange", () => {
    const result = read(
      `{
    "auth": {
      "apiKeys": { "alice": "\${ALICE_KEY}", "bob": "\${BOB_KEY}" },
      "oauth": { "issuer": "https://as.example", "audience": "https://gw.example/mcp", "requiredScopes": ["mcp"] }
    },
    "access": [
      { "principals": ["group:ops", "alice"], "allow": ["github__*"], "deny": ["github__delete_*"] },
      { "principals": ["*"], "allow": ["files__read_*", "gateway://files/*"] }
    ],
    "rateLimits": [{ "principals": ["*"], "tools": ["github__*"], "limit": "60/minute" }, { "principals": ["bob"], "limit": "5 / s" }],
    "audit": { "file": "logs/audit.jsonl", "maxBytes": 1048576 },
    "redis": "redis://127.0.0.1:6379"
  }`,
      `"github": { "url": "https://gh.example/mcp", "upstreamAuth": { "tokenExchange": { "issuer": "https://as.example", "clientId": "gw", "clientSecret": "\${SECRET}", "audience": "github" } } }, "files": { "command": "fs" }`,
    );
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    const { security, upstreams } = result.config;
    assert.deepEqual(security.auth?.apiKeys, { alice: ALICE_KEY, bob: ENV.BOB_KEY });
    assert.equal(security.auth?.oauth?.audience, 'https://gw.example/mcp');
    assert.equal(security.access?.length, 2);
    assert.deepEqual(security.access?.[1], {
      principals: ['*'],
      allow: ['files__read_*', 'gateway://files/*'],
      deny: [],
    });
    assert.deepEqual(
      security.rateLimits.map((r) => [r.points, r.unit, r.seconds, r.tools]),
      [
        [60, 'minute', 60, ['github__*']],
        [5, 'second', 1, ['*']],
      ],
    );
    assert.match(security.audit?.file ?? '', /\/logs\/audit\.jsonl$/);
    assert.equal(security.redis, 'redis://127.0.0.1:6379');
    const github = upstreams[0]!;
    assert.ok(github.transport === 'http');
    assert.deepEqual(github.upstreamAuth?.tokenExchange, {
      issuer: 'https://as.example',
      clientId: 'gw',
      clientSecret: 's3cret',
      audience: 'github',
    });
  });

  test('a weak key is refused, saying how to make one; the key itself is never in the message', () => {
    const [problem, ...rest] = problems('{ "auth": { "apiKeys": { "alice": "${WEAK}" } } }');
    assert.equal(rest.length, 0);
    assert.match(
      problem!,
      /^team\.json:3:48: The API key of "alice" is too weak: about \d+ bits of entropy, at least 128/,
    );
    assert.match(problem!, /openssl rand -base64 32/);
    assert.ok(!problem!.includes('hunter2'));
  });

  test('a key written into the file is a warning; two principals with one key, a bad name, no way in are problems', () => {
    const literal = read(`{ "auth": { "apiKeys": { "alice": "${ALICE_KEY}" } } }`);
    assert.ok(literal.ok);
    assert.match(literal.warnings.map(formatProblem).join('\n'), /written in the config file itself/);
    const found = problems(
      '{ "auth": { "apiKeys": { "alice": "${ALICE_KEY}", "bob": "${ALICE_KEY}", "group:x": "${BOB_KEY}" } } }',
    );
    assert.ok(
      found.some((p) => /"bob" has the same API key as "alice"/.test(p)),
      found.join('\n'),
    );
    assert.ok(
      found.some((p) => /"group:x" cannot be a principal's name/.test(p)),
      found.join('\n'),
    );
    assert.match(problems('{ "auth": {} }').join('\n'), /"auth" names no way to sign in/);
    assert.match(
      problems('{ "auth": { "oauth": { "issuer": "https://as" } } }').join('\n'),
      /"oauth" has no "audience"/,
    );
  });

  test('rules: each problem at its place; a glob that matches nothing the config shows is named', () => {
    const found = problems(`{
    "access": [
      { "principals": ["group:ops"], "allow": ["gihub__*"] },
      { "principals": [], "allow": ["github__*"] },
      { "principals": ["a:b", "al ice"], "deny": ["github__x"] },
      { "principals": ["*"] }
    ],
    "rateLimits": [{ "principals": ["*"], "tools": ["files__*", "gateway://files/*"], "limit": "60/fortnight" }]
  }`);
    const text = found.join('\n');
    assert.match(
      text,
      /team\.json:5:48: gateway\.access\[0\]: "gihub__\*" matches nothing this config shows .*servers: "github", "files"/,
    );
    assert.match(text, /team\.json:6:23: gateway\.access\[1\] matches nobody: "principals" is empty/);
    assert.match(text, /gateway\.access\[2\]: "a:b" is not a principal/);
    assert.match(text, /gateway\.access\[2\]: "al ice" is not a principal/);
    assert.match(text, /team\.json:8:7: gateway\.access\[3\] neither allows nor denies anything/);
    assert.match(
      text,
      /gateway\.rateLimits\[0\]: "gateway:\/\/files\/\*" matches nothing/,
      'rate limits are over tool names only',
    );
    assert.match(text, /gateway\.rateLimits\[0\]: "60\/fortnight" is not a limit/);
    assert.equal(found.length, 7, text);
  });

  test("skill URIs are a server's too: skill://<server>/... globs match, a misspelled server is named", () => {
    const found = problems(
      '{ "access": [{ "principals": ["*"], "deny": ["skill://files/git-workflow*", "skill://flies/*"], "allow": ["*"] }] }',
    );
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(
      found[0]!,
      /"skill:\/\/flies\/\*" matches nothing this config shows .*skill:\/\/<server>\/\.\.\./,
    );
  });

  test('a disabled server still counts for the rules; a server without a namespace lets every glob through', () => {
    assert.ok(
      read(
        '{ "access": [{ "principals": ["*"], "allow": ["off__*"] }] }',
        '"off": { "command": "x", "disabled": true }',
      ).ok,
    );
    assert.ok(
      read(
        '{ "access": [{ "principals": ["*"], "allow": ["anything"] }] }',
        '"plain": { "command": "x", "namespace": false }',
      ).ok,
    );
  });

  test('audit, redis and upstreamAuth problems', () => {
    const text = problems(
      '{ "audit": { "maxBytes": 10 }, "redis": "http://x" }',
      '"files": { "command": "fs", "upstreamAuth": {} }, "web": { "url": "https://w/mcp", "upstreamAuth": { "tokenExchange": { "issuer": "nope" } } }',
    ).join('\n');
    assert.match(text, /"audit" has no "file"/);
    assert.match(text, /"maxBytes" must be a whole number from 4096/);
    assert.match(text, /"redis" must be a redis:\/\/ or rediss:\/\/ URL/);
    assert.match(text, /runs locally \(stdio\): "upstreamAuth" is for HTTP servers/);
    assert.match(text, /"issuer" must be an http or https URL/);
    assert.match(text, /The "tokenExchange" of "web" has no "clientId"/);
  });
});

describe('gateway.admin', () => {
  test('a token without auth, admin principals with auth; each missing one, a weak token, stray principals are problems', () => {
    const tokenOnly = read('{ "admin": { "token": "${ALICE_KEY}" } }');
    assert.ok(tokenOnly.ok, tokenOnly.ok ? '' : tokenOnly.problems.map(formatProblem).join('\n'));
    assert.deepEqual(tokenOnly.config.security.admin, { token: ALICE_KEY, principals: [] });
    const admins = read(
      '{ "auth": { "apiKeys": { "alice": "${ALICE_KEY}" } }, "admin": { "principals": ["alice", "group:ops"] } }',
    );
    assert.ok(admins.ok, admins.ok ? '' : admins.problems.map(formatProblem).join('\n'));
    assert.deepEqual(admins.config.security.admin, { principals: ['alice', 'group:ops'] });
    assert.match(problems('{ "admin": {} }').join('\n'), /Without "auth", "admin" needs a "token"/);
    assert.match(
      problems(
        '{ "auth": { "apiKeys": { "alice": "${ALICE_KEY}" } }, "admin": { "token": "${ALICE_KEY}" } }',
      ).join('\n'),
      /With "auth", "admin" must name the admins/,
    );
    assert.match(problems('{ "admin": { "token": "${WEAK}" } }').join('\n'), /The admin token is too weak/);
    assert.match(
      problems('{ "admin": { "token": "${ALICE_KEY}", "principals": ["alice"] } }').join('\n'),
      /The admin "principals" name nobody: without "auth" nobody signs in/,
    );
    assert.match(
      problems(
        '{ "auth": { "apiKeys": { "alice": "${ALICE_KEY}" } }, "admin": { "principals": ["a b"] } }',
      ).join('\n'),
      /"a b" is not a principal/,
    );
    const written = read(`{ "admin": { "token": "${randomBytes(32).toString('base64url')}" } }`);
    assert.ok(written.ok);
    assert.match(
      written.warnings.map(formatProblem).join('\n'),
      /The admin token is written in the config file itself/,
    );
  });
});

describe('docs/gateway.md, Security', () => {
  test('the complete example config is a good config', () => {
    const doc = readFileSync(new URL('../../../docs/gateway.md', import.meta.url), 'utf8');
    const block = /<!-- security-example -->\n```jsonc\n([\s\S]*?)\n```/.exec(doc)?.[1];
    assert.ok(block, 'the example is in the doc');
    const result = parseGatewayConfig('example.jsonc', block, {
      env: { CI_BOT_KEY: randomBytes(32).toString('base64'), ALICE_KEY: ALICE_KEY },
    });
    assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
    assert.deepEqual(result.warnings, []);
    const { security } = result.config;
    assert.ok(
      security.auth?.oauth &&
        security.access?.length === 3 &&
        security.rateLimits.length === 2 &&
        security.audit &&
        security.admin?.principals.includes('group:ops'),
    );
  });
});

describe('gateway.rateLimits (memory)', () => {
  test('counted per principal per rule; over the limit, the wait until the window ends; others not slowed', async () => {
    const result = read(
      '{ "rateLimits": [{ "principals": ["alice"], "tools": ["github__*"], "limit": "3/minute" }, { "principals": ["*"], "limit": "1000/second" }] }',
    );
    assert.ok(result.ok);
    const limits = new RateLimits(result.config.security.rateLimits);
    const alice = callerOf({ subject: 'alice', issuer: 'x' });
    const bob = callerOf({ subject: 'bob', issuer: 'x' });
    for (let i = 0; i < 3; i++) assert.equal(await limits.take(alice, 'github__search'), undefined);
    const refused = await limits.take(alice, 'github__search');
    assert.ok(
      refused && refused.retryAfterMs > 50_000 && refused.retryAfterMs <= 60_000,
      JSON.stringify(refused),
    );
    assert.equal(refused.limit, 3);
    assert.equal(
      await limits.take(alice, 'files__read'),
      undefined,
      'another tool, no rule of alice counts it',
    );
    assert.equal(await limits.take(bob, 'github__search'), undefined, 'bob has his own counters');
    // The same name from another issuer is another principal.
    assert.equal(await limits.take(callerOf({ subject: 'alice', issuer: 'y' }), 'github__search'), undefined);
  });
});

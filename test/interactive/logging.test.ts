import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { LogMessage } from '../../src/client/client.js';
import { Server, type ServerOptions } from '../../src/extensions/server.js';
import { LEGACY_REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import type { LoggingLevel } from '../../src/protocol/types.js';
import { isSecretKey, redactSecrets, redactText } from '../../src/server/redact.js';
import { connectPair } from '../helpers/pair.js';
import { rawSession } from '../helpers/raw-session.js';

const pin = (revision: Revision) => ({ version: { pin: revision } });

function chattyServer(options: ServerOptions = {}, data: unknown = 'x') {
  const server = new Server({ name: 'chatty', version: '1.0.0' }, options);
  server.registerTool('work', {}, (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as LoggingLevel[])
      ctx.log(level, data, 'worker');
    return 'done';
  });
  return server;
}

async function logsOf(run: (onLog: (m: LogMessage) => void) => Promise<void>): Promise<LogMessage[]> {
  const seen: LogMessage[] = [];
  await run((m) => seen.push(m));
  return seen;
}

for (const revision of LEGACY_REVISIONS) {
  describe(`logging on ${revision}`, () => {
    test('logging/setLevel filters the connection; the logLevel option sets it at connect', async () => {
      const pair = await connectPair(chattyServer(), pin(revision));
      const seen: LoggingLevel[] = [];
      pair.client.onLog((m) => seen.push(m.level));
      await pair.client.callTool('work', {});
      assert.deepEqual(seen, ['debug', 'info', 'warning', 'error']);
      seen.length = 0;
      await pair.client.setLoggingLevel('warning');
      await pair.client.callTool('work', {});
      assert.deepEqual(seen, ['warning', 'error']);
      pair.assertClean();
      await pair.close();

      const preset = await connectPair(chattyServer(), { ...pin(revision), logLevel: 'error' });
      const levels: LoggingLevel[] = [];
      preset.client.onLog((m) => levels.push(m.level));
      await preset.client.callTool('work', {});
      assert.deepEqual(levels, ['error']);
      preset.assertClean();
      await preset.close();
    });
  });
}

describe('logging on 2026-07-28', () => {
  test('no level on the request, no message; the level comes from the logLevel option', async () => {
    const quiet = await connectPair(chattyServer(), pin('2026-07-28'));
    const none = await logsOf(async (onLog) => {
      quiet.client.onLog(onLog);
      await quiet.client.callTool('work', {});
    });
    assert.deepEqual(none, []);
    await quiet.client.setLoggingLevel('warning');
    const some = await logsOf(async (onLog) => {
      quiet.client.onLog(onLog);
      await quiet.client.callTool('work', {});
    });
    assert.deepEqual(
      some.map((m) => m.level),
      ['warning', 'error'],
    );
    assert.deepEqual(some[0], { level: 'warning', logger: 'worker', data: 'x' });
    quiet.assertClean();
    await quiet.close();

    const preset = await connectPair(chattyServer(), { ...pin('2026-07-28'), logLevel: 'info' });
    const levels: LoggingLevel[] = [];
    preset.client.onLog((m) => levels.push(m.level));
    await preset.client.callTool('work', {});
    assert.deepEqual(levels, ['info', 'warning', 'error']);
    preset.assertClean();
    await preset.close();
  });

  test('the level is per request: a concurrent request without it gets no messages', async () => {
    const raw = await rawSession(chattyServer());
    const [withLevel, without] = await Promise.all([
      raw.modern('tools/call', { name: 'work', _meta: { 'io.modelcontextprotocol/logLevel': 'error' } }),
      raw.modern('tools/call', { name: 'work' }),
    ]);
    assert.equal(withLevel.resultType, 'complete');
    assert.equal(without.resultType, 'complete');
    const messages = raw.fromServer.filter(
      (f) => (f as { method?: string }).method === 'notifications/message',
    );
    assert.equal(messages.length, 1);
    raw.assertClean();
    await raw.close();
  });

  test('an unknown level is refused with -32602', async () => {
    const raw = await rawSession(chattyServer());
    await assert.rejects(
      raw.modern('tools/call', { name: 'work', _meta: { 'io.modelcontextprotocol/logLevel': 'loud' } }),
      /Invalid _meta\["io.modelcontextprotocol\/logLevel"\] "loud"/,
    );
    await raw.close();
  });
});

describe('log redaction', () => {
  const secrets = {
    user: 'ada',
    password: 'hunter2',
    db: { dbPassword: 'p', 'x-api-key': 'k', accessToken: 't', maxTokens: 5, tokenCount: 2 },
    headers: [{ Authorization: 'Bearer abc.def', cookie: 'sid=1', 'set-cookie': 's' }],
    note: 'sent Bearer abc.def-ghi to the API',
    client_secret: 's3',
    empty: null,
  };
  const masked = {
    user: 'ada',
    password: '[REDACTED]',
    db: {
      dbPassword: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      accessToken: '[REDACTED]',
      maxTokens: 5,
      tokenCount: 2,
    },
    headers: [{ Authorization: '[REDACTED]', cookie: '[REDACTED]', 'set-cookie': '[REDACTED]' }],
    note: 'sent Bearer [REDACTED] to the API',
    client_secret: '[REDACTED]',
    empty: null,
  };

  test('by default, secrets never reach a log message (both eras)', async () => {
    for (const revision of ['2026-07-28', '2025-11-25'] as const) {
      const pair = await connectPair(chattyServer({}, secrets), { ...pin(revision), logLevel: 'error' });
      const seen = await logsOf(async (onLog) => {
        pair.client.onLog(onLog);
        await pair.client.callTool('work', {});
      });
      assert.deepEqual(seen[0]!.data, masked);
      assert.equal(secrets.password, 'hunter2', 'the input is not mutated');
      pair.assertClean();
      await pair.close();
    }
  });

  test('a custom redact replaces the default; false sends data as is; a failing one drops the message', async () => {
    const errors: Error[] = [];
    const cases: [ServerOptions, unknown[]][] = [
      [
        { redact: (data, level, logger) => ({ level, logger, kept: Object.keys(data as object).length }) },
        [{ level: 'error', logger: 'worker', kept: 7 }],
      ],
      [{ redact: false }, [secrets]],
      [
        {
          redact: () => {
            throw new Error('redactor broke');
          },
          onerror: (e) => errors.push(e),
        },
        [],
      ],
    ];
    for (const [options, expected] of cases) {
      const pair = await connectPair(chattyServer(options, secrets), {
        ...pin('2026-07-28'),
        logLevel: 'error',
      });
      const seen = await logsOf(async (onLog) => {
        pair.client.onLog(onLog);
        await pair.client.callTool('work', {});
      });
      assert.deepEqual(
        seen.map((m) => m.data),
        expected,
      );
      await pair.close();
    }
    assert.deepEqual(
      errors.map((e) => e.message),
      ['redactor broke'],
    );
  });

  test('redactSecrets handles errors, cycles and shared references', () => {
    const shared = { token: 'x' };
    const cyclic: Record<string, unknown> = { name: 'loop', pair: [shared, shared] };
    cyclic.self = cyclic;
    assert.deepEqual(redactSecrets(cyclic), {
      name: 'loop',
      pair: [{ token: '[REDACTED]' }, { token: '[REDACTED]' }],
      self: '[…]',
    });
    assert.deepEqual(redactSecrets(new TypeError('Basic dXNlcjpwYXNz failed')), {
      name: 'TypeError',
      message: 'Basic [REDACTED] failed',
    });
    assert.equal(isSecretKey('PRIVATE_KEY'), true);
    assert.equal(isSecretKey('tokenizer'), false);
  });

  test('in text (a stderr tail, an error message), the value after a secret-naming key is masked', () => {
    assert.equal(
      redactText(
        'boot: API_KEY=sk-live-1 db.password=\'p w\' {"token":"t1","n":1} x-api-key: k; maxTokens=5',
      ),
      'boot: API_KEY=[REDACTED] db.password=\'[REDACTED]\' {"token":"[REDACTED]","n":1} x-api-key: [REDACTED]; maxTokens=5',
    );
    assert.equal(redactText('Authorization: Bearer abc.def'), 'Authorization: Bearer [REDACTED]');
    assert.equal(
      redactText('see http://host:8080/a?page=2 at 10:30'),
      'see http://host:8080/a?page=2 at 10:30',
    );
    assert.deepEqual(redactSecrets({ note: 'password=hunter2' }), { note: 'password=[REDACTED]' });
    // One pass over a long word, not one per character.
    const started = performance.now();
    redactText(`${'a'.repeat(1_000_000)}:`);
    assert.ok(performance.now() - started < 5000, 'a megabyte of text is masked in linear time');
  });

  test('property: a secret written as key=value or "key": "value" never survives in the text', () => {
    const key = fc.constantFrom(
      'API_KEY',
      'password',
      'github_token',
      'clientSecret',
      'x-api-key',
      'db.password',
    );
    const value = fc.stringMatching(/^[A-Za-z0-9_\-+/.]{6,30}$/);
    fc.assert(
      fc.property(key, value, fc.constantFrom('=', ': ', ':'), fc.string(), (k, v, sep, before) => {
        const around = `${before.replace(/[A-Za-z0-9_.\-"']$/, '')} ${k}${sep}${v} done`;
        assert.ok(!redactText(around).includes(`${k}${sep}${v}`), around);
        assert.ok(!redactText(`{"${k}":"${v}"}`).includes(v));
      }),
    );
  });
});

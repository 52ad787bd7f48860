/**
 * The CLI's handling of what a server says about itself and its failures: the era negotiated and
 * remembered between runs, terminal control characters escaped, and the server's stderr quoted only
 * when it explains a failure. (Split from commands.test.ts so that each file stays well inside the
 * suite's per-file time limit on a loaded machine.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI_ENV, fixtureTarget, runCli } from './run-cli.js';

const target = fixtureTarget();

describe('switchboard and what the server says', { concurrency: 8 }, () => {
  test('terminal control characters from the server are escaped, except in --json', async () => {
    const escapes = fixtureTarget('escapes');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not reach a terminal.
    const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
    const listed = await runCli(['tools', escapes]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, raw);
    assert.match(
      listed.stdout,
      /sneaky — Sneaky\\x1b\]0;pwned\\x07\\x1b\[2J\\x1b\]52;c;Y3VybCBldmls\\x07\\x9b31m\\u202e\n/,
    );
    const called = await runCli(['call', escapes, 'sneaky', '--verbose']);
    assert.equal(called.code, 0, called.stderr);
    assert.doesNotMatch(called.stdout, raw);
    assert.match(called.stdout, /^result\\x1b.*\\u202e\\x0d\tend\n$/);
    assert.doesNotMatch(called.stderr, raw);
    assert.match(called.stderr, /fixture: \\x1b\]0;pwned/);
    const json = await runCli(['call', escapes, 'sneaky', '--json']);
    const text = (JSON.parse(json.stdout) as { content: { text: string }[] }).content[0]!.text;
    assert.ok(text.startsWith('result\x1b]0;pwned\x07'), 'the JSON keeps the data as sent');
  });

  test('an answer that is an error (the server lives on) does not quote its stderr', async () => {
    const chatty = fixtureTarget('chatty');
    const missing = await runCli(['read', chatty, 'file:///missing.txt']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^switchboard: could not read .*Resource not found/);
    assert.doesNotMatch(missing.stderr, /stderr|fixture: started/);
    const unknown = await runCli(['call', chatty, 'nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /has no tool "nope"/);
    assert.doesNotMatch(unknown.stderr, /stderr|fixture: started/);
  });

  test('the era of a server is remembered between runs: a legacy server is probed only once', async () => {
    const env = { ...CLI_ENV, XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'switchboard-era-')) };
    const legacy = fixtureTarget('legacy-logged');
    // Only a refused probe teaches the era (one that timed out says the server was slow): an explicit
    // --timeout is the probe's too, so a busy machine cannot turn the refusal into a timeout.
    const patient = ['--timeout', '60000'];
    const first = await runCli(['tools', legacy, '--verbose', ...patient], { env });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /probed with server\/discover/);
    const file = join(env.XDG_CACHE_HOME, 'switchboard', 'eras.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, { era: string }> };
    assert.deepEqual(
      Object.values(saved.servers).map((s) => s.era),
      ['legacy'],
    );
    const second = await runCli(['tools', legacy, '--verbose', ...patient], { env });
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /probed/);
    assert.match(second.stderr, /over stdio, protocol 2025-11-25 \(legacy era\)/);
    // A corrupt file is ignored and rewritten.
    writeFileSync(file, '{not json');
    const third = await runCli(['tools', legacy, '--verbose', ...patient], { env });
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stderr, /probed/);
    assert.equal(Object.keys(JSON.parse(readFileSync(file, 'utf8')).servers).length, 1);
  });

  test('the server stderr is shown only with --verbose, or when something fails', async () => {
    const chatty = fixtureTarget('chatty');
    const quiet = await runCli(['tools', chatty]);
    assert.equal(quiet.code, 0);
    assert.equal(quiet.stderr, '');
    const verbose = await runCli(['tools', chatty, '--verbose']);
    assert.match(verbose.stderr, /^fixture: started$/m);
    // Generous: the timeout also bounds the server's start-up, which is slow on a loaded machine.
    const failed = await runCli(['call', chatty, 'hang', '--timeout', '5000']);
    assert.equal(failed.code, 1);
    assert.equal(
      failed.stderr,
      'switchboard: could not call tool "hang": the server gave no answer within 5000 ms. If it is just slow, raise --timeout <ms>; ' +
        "run with --verbose to watch what it writes to stderr.\nLast lines of the server's stderr:\nfixture: started\n",
    );
  });

  test('era negotiation: auto falls back to legacy; --legacy and --protocol choose', async () => {
    const fallback = await runCli(['tools', fixtureTarget('legacy-only'), '--verbose']);
    assert.equal(fallback.code, 0);
    assert.match(
      fallback.stderr,
      /connected to cli-fixture 1\.2\.3 over stdio, protocol 2025-11-25 \(legacy era\)/,
    );
    // An explicit --timeout is the probe's too: on a loaded machine the fixture may start slower than 5 s.
    const modern = await runCli(['tools', target, '--verbose', '--timeout', '30000']);
    assert.match(modern.stderr, /over stdio, protocol 2026-07-28 \(modern era\)/);
    const legacy = await runCli(['tools', target, '--legacy', '--verbose']);
    assert.match(legacy.stderr, /over stdio, protocol 2025-11-25 \(legacy era\)/);
    const pinned = await runCli([
      'call',
      target,
      'add',
      'a=1',
      'b=1',
      '--protocol',
      '2024-11-05',
      '--verbose',
    ]);
    assert.equal(pinned.code, 0);
    assert.match(pinned.stderr, /over stdio, protocol 2024-11-05 \(legacy era\)/);
    // 2024-11-05 has no structured content: the server sent it as text.
    assert.equal(pinned.stdout, '{"sum":2}\n');
    const impossible = await runCli(['tools', fixtureTarget('legacy-only'), '--protocol', '2026-07-28']);
    assert.equal(impossible.code, 1);
    assert.match(impossible.stderr, /^switchboard: could not connect to .*-32022/);
    assert.match(impossible.stderr, /does not speak protocol 2026-07-28.*Leave out --protocol/);
    assert.doesNotMatch(impossible.stderr, /version "auto"|version: /);
  });
});

/**
 * The conformance runner: reading `conformance list`, planning the jobs, judging results, and one
 * fast scenario of each kind run end to end against the fixture server and client (the full run is
 * `npm run conformance`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { execute, type Paths } from '../../conformance/runner/execute.js';
import { EXTENSION_WIRE, planSuite } from '../../conformance/runner/plan.js';
import { judge } from '../../conformance/runner/results.js';
import { installedSuites, parseList, type Suite } from '../../conformance/runner/suites.js';

const LIST = `Server scenarios (test against a server):
  - ping [2025-06-18,2025-11-25]
  - caching [2026-07-28]
  - tasks-lifecycle [extension]
  - sep-2640-skills-manifest [extension]

Client scenarios (test against a client):
  - tools_call [2025-06-18,2025-11-25,2026-07-28]
  - auth/metadata-default [2025-11-25,2026-07-28]
  - auth/2025-03-26-oauth-endpoint-fallback [2025-03-26]
  - auth/dpop [extension]

Authorization server scenarios (test against an authorization server):
  - authorization-code-grant [2025-03-26,2025-06-18,2025-11-25,2026-07-28]
`;

const fakeSuite = (wires: string[]): Suite => ({ id: 'x', version: '9.9.9', cli: 'cli.js', wires });

describe('planning', () => {
  test('conformance list is parsed by heading', () => {
    const listed = parseList(LIST);
    assert.deepEqual(
      listed.map((s) => `${s.role}:${s.name}:${s.tags.join('|')}`),
      [
        'server:ping:2025-06-18|2025-11-25',
        'server:caching:2026-07-28',
        'server:tasks-lifecycle:extension',
        'server:sep-2640-skills-manifest:extension',
        'client:tools_call:2025-06-18|2025-11-25|2026-07-28',
        'client:auth/metadata-default:2025-11-25|2026-07-28',
        'client:auth/2025-03-26-oauth-endpoint-fallback:2025-03-26',
        'client:auth/dpop:extension',
        'authorization:authorization-code-grant:2025-03-26|2025-06-18|2025-11-25|2026-07-28',
      ],
    );
  });

  test('server scenarios run a wire at a time; clients and extensions one by one; skips have reasons', () => {
    const plan = planSuite(fakeSuite(['2025-11-25', '2026-07-28']), parseList(LIST));
    assert.deepEqual(
      plan.jobs.map((j) => `${j.role} ${j.wire} ${j.args.join(' ')} -> ${j.expected.join(',')}`),
      [
        'server 2025-11-25 --suite all --spec-version 2025-11-25 -> ping',
        'server 2026-07-28 --suite all --spec-version 2026-07-28 -> caching',
        `server ${EXTENSION_WIRE} --scenario tasks-lifecycle -> tasks-lifecycle`,
        `server ${EXTENSION_WIRE} --scenario sep-2640-skills-manifest -> sep-2640-skills-manifest`,
        'client 2025-11-25 --scenario tools_call --spec-version 2025-11-25 -> tools_call',
        'client 2026-07-28 --scenario tools_call --spec-version 2026-07-28 -> tools_call',
        'client 2025-11-25 --scenario auth/metadata-default --spec-version 2025-11-25 -> auth/metadata-default',
        'client 2026-07-28 --scenario auth/metadata-default --spec-version 2026-07-28 -> auth/metadata-default',
        // Only for a revision the suite does not run otherwise: run at that one.
        'client 2025-03-26 --scenario auth/2025-03-26-oauth-endpoint-fallback --spec-version 2025-03-26 -> auth/2025-03-26-oauth-endpoint-fallback',
        `client ${EXTENSION_WIRE} --scenario auth/dpop -> auth/dpop`,
      ],
    );
    assert.deepEqual(
      plan.skips.map((s) => s.scenario),
      ['authorization-code-grant'],
    );
    assert.ok(plan.skips.every((s) => s.reason.length > 20));
  });

  test('a suite with one wire runs everything once, without --spec-version', () => {
    const plan = planSuite(fakeSuite([]), parseList(LIST));
    assert.deepEqual(
      plan.jobs.filter((j) => j.role === 'server' && j.wire !== EXTENSION_WIRE).map((j) => j.args),
      [['--suite', 'all']],
    );
  });
});

describe('judging', () => {
  const check = (id: string, status: string, errorMessage?: string) =>
    ({ id, name: id, status, errorMessage }) as never;

  test('failures and warnings fail a scenario; accepted warnings and INFO do not', () => {
    assert.equal(judge('s', [check('a', 'SUCCESS'), check('b', 'INFO')]).verdict, 'pass');
    const failed = judge('s', [check('a', 'SUCCESS'), check('b', 'WARNING', 'should')]);
    assert.equal(failed.verdict, 'fail');
    assert.deepEqual(failed.problems, ['WARNING b: should']);
    const accepted = judge('input-required-result-ignore-extra-params', [
      check('sep-2322-ignore-unexpected-params', 'WARNING'),
    ]);
    assert.equal(accepted.verdict, 'pass');
    assert.deepEqual(accepted.accepted, [
      'input-required-result-ignore-extra-params:sep-2322-ignore-unexpected-params',
    ]);
  });

  test('a scenario whose own checks all skipped is "skipped", whatever the wire check says', () => {
    assert.equal(
      judge('s', [check('own', 'SKIPPED'), check('wire-schema-valid', 'SUCCESS')]).verdict,
      'skipped',
    );
    assert.equal(judge('s', [], ['no result']).verdict, 'fail');
  });
});

describe('end to end', () => {
  const cwd = fileURLToPath(new URL('../../..', import.meta.url));
  const paths: Paths = {
    cwd,
    preload: fileURLToPath(new URL('../../conformance/node20/preload.js', import.meta.url)),
    server: 'build/conformance/server.js',
    client: 'build/conformance/client.js',
  };
  const suite = installedSuites().find((s) => s.id === '0.2')!;
  const results = mkdtempSync(join(tmpdir(), 'switchboard-conformance-test-'));
  after(() => rmSync(results, { recursive: true, force: true }));

  test('a server scenario against the fixture server, and client scenarios (one signing in) with the fixture client', async () => {
    const [server, client, signIn] = await Promise.all([
      execute(
        {
          suite,
          role: 'server',
          wire: '2026-07-28',
          args: ['--scenario', 'tools-call-simple-text', '--spec-version', '2026-07-28'],
          expected: ['tools-call-simple-text'],
        },
        join(results, 'server'),
        paths,
      ),
      execute(
        {
          suite,
          role: 'client',
          wire: '2025-11-25',
          args: ['--scenario', 'tools_call', '--spec-version', '2025-11-25'],
          expected: ['tools_call'],
        },
        join(results, 'client'),
        paths,
      ),
      // Its results land in a directory named by the scenario's prefix (auth/).
      execute(
        {
          suite,
          role: 'client',
          wire: '2025-11-25',
          args: ['--scenario', 'auth/metadata-default', '--spec-version', '2025-11-25'],
          expected: ['auth/metadata-default'],
        },
        join(results, 'sign-in'),
        paths,
      ),
    ]);
    for (const { result } of [...server, ...client, ...signIn]) {
      assert.equal(result.verdict, 'pass', result.problems.join('\n'));
      assert.ok(result.counts.SUCCESS >= 2, `${result.scenario}: ${JSON.stringify(result.counts)}`);
    }
  });

  // The whole suite through the gateway is `node build/conformance/run.js --through gateway` (CI).
  test('server scenarios through switchboard gateway fronting the fixture: logs, several questions, a task', async () => {
    const through = { ...paths, server: 'build/conformance/gateway.js' };
    const scenario = (wire: string, name: string) =>
      execute(
        {
          suite,
          role: 'server',
          wire,
          args: ['--scenario', name, ...(wire === EXTENSION_WIRE ? [] : ['--spec-version', wire])],
          expected: [name],
        },
        join(results, `gateway-${name}`),
        through,
      );
    const outcomes = await Promise.all([
      scenario('2025-11-25', 'tools-call-with-logging'),
      scenario('2026-07-28', 'input-required-result-multiple-input-requests'),
      scenario('2026-07-28', 'input-required-result-capability-check'),
      scenario(EXTENSION_WIRE, 'tasks-capability-negotiation'),
    ]);
    for (const { result } of outcomes.flat()) {
      assert.equal(result.verdict, 'pass', `${result.scenario}: ${result.problems.join('\n')}`);
    }
  });
});

/** The `switchboard check` command's selection options and exit statuses: a warning alone exits 0, --only/--skip, and exit 2 for a target that is not MCP or a wrong command line. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli } from '../cli/run-cli.js';
import { server } from './cli-target.js';

describe('switchboard check: selection and exit statuses', () => {
  test('a SHOULD warning alone exits 0; --skip and --only select checks by id or area', async () => {
    const run = await runCli(['check', '--quiet', '--revision', '2025-11-25', server('cursor-ignored')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /WARN pagination\.invalid-cursor \[SHOULD\]/);
    const only = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-11-25',
      '--only',
      'tools,ping',
      '--verbose',
      server(),
    ]);
    assert.equal(only.code, 0, only.stderr);
    assert.match(only.stdout, /^ {2}ping {10}1 passed$/m);
    assert.doesNotMatch(only.stdout, /^ {2}(jsonrpc|resources) /m);
    const skipped = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-06-18',
      '--skip',
      'tools.invalid-arguments',
      server('no-input-validation'),
    ]);
    assert.equal(skipped.code, 0, skipped.stderr);
  });
  test('exit 2: a target that speaks no MCP, and a wrong command line', async () => {
    const notMcp = await runCli([
      'check',
      '--quiet',
      '--revision',
      '2025-11-25',
      '--',
      process.execPath,
      '-e',
      'console.log("hello")',
    ]);
    assert.equal(notMcp.code, 2);
    assert.match(notMcp.stderr, /speaks none of the revisions checked, so it could not be checked/);
    const unknown = await runCli(['check', '--only', 'no-such-rule', server()]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--only\/--skip name no requirement or area: no-such-rule/);
    const revision = await runCli(['check', '--revision', '2020-01-01', server()]);
    assert.equal(revision.code, 2);
    assert.match(revision.stderr, /Unknown revision "2020-01-01"/);
  });
});

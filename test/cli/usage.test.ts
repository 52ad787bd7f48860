/**
 * The CLI's usage errors (exit code 2, nothing started), help and version. (Split from
 * commands.test.ts so that each file stays well inside the suite's per-file time limit on a loaded
 * machine.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { runCli as runCliInProcess } from '../../src/cli/cli.js';
import { fixtureTarget, runCli } from './run-cli.js';

const target = fixtureTarget();

describe('switchboard usage errors (exit code 2, nothing started)', { concurrency: 8 }, () => {
  // Usage is checked before anything starts, so most cases run the CLI in this process (runCli is
  // all of main.js but the process wiring); two run the real executable for its exit status.
  const usage = async (args: string[], message: RegExp) => {
    let stdout = '';
    let stderr = '';
    const code = await runCliInProcess(args, {
      out: (text) => {
        stdout += text;
      },
      err: (text) => {
        stderr += text;
      },
    });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, message);
    assert.match(stderr, /Run "switchboard (\w+ )?--help" for usage\.\n$/);
  };

  test('the executable exits with 2: no command, a bad target', async () => {
    for (const args of [[], ['tools', 'node "server.js']]) {
      const { code, stdout, stderr } = await runCli(args);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, /^switchboard: (Missing a command|The server command .* unterminated " quote)/);
    }
  });
  test('an unknown command', () => usage(['listen', target], /Unknown command "listen"/));
  test('no target', () => usage(['tools'], /Missing the server to talk to/));
  test('a missing tool name', () => usage(['call', target], /Missing the name of the tool to call/));
  test('extra words after the target', () =>
    usage(
      ['tools', 'node', 'server.js'],
      /Unexpected argument "server\.js"\. If it belongs to the server command/,
    ));
  test('an unknown option', () => usage(['tools', target, '--port', '3'], /Unknown option --port/));
  test('an option without its value', () =>
    usage(['tools', target, '--timeout'], /Option --timeout needs a value/));
  test('a shell operator', () => usage(['tools', 'node a.js | tee log'], /shell operator "\|"/));
  test('a malformed HTTP target', () => usage(['tools', 'http://[::1'], /not a valid URL/));
  test('an unknown revision', () =>
    usage(['tools', target, '--protocol', '2099-01-01'], /Unknown protocol revision/));
  test('--legacy with --protocol', () =>
    usage(['tools', target, '--legacy', '--protocol', '2025-06-18'], /--legacy and --protocol/));
  test('a bad timeout', () =>
    usage(['tools', target, '--timeout', '5s'], /--timeout takes a positive whole number/));
  test('--args that is not an object', () =>
    usage(['call', target, 'add', '--args', '[1]'], /--args must be a JSON object/));
});

describe('switchboard help and version', { concurrency: 4 }, () => {
  test('--help lists the commands', async () => {
    const { code, stdout } = await runCli(['--help']);
    assert.equal(code, 0);
    for (const name of ['tools', 'resources', 'prompts', 'call', 'read', 'prompt']) {
      assert.match(stdout, new RegExp(`^ {2}${name} +\\S`, 'm'));
    }
    assert.match(stdout, /--args <json>/);
  });

  test('<command> --help and help <command> describe one command', async () => {
    const a = await runCli(['call', '--help']);
    const b = await runCli(['help', 'call']);
    assert.equal(a.code, 0);
    assert.equal(a.stdout, b.stdout);
    assert.match(a.stdout, /^ {2}switchboard call <target> <tool> \[key=value \.\.\.\] \[--args <json>\]$/m);
    assert.match(
      a.stdout,
      /^ {2}switchboard call <tool> \[key=value \.\.\.\] \[--args <json>\] -- <server command \.\.\.>$/m,
    );
    const unknown = await runCli(['help', 'nope']);
    assert.equal(unknown.code, 2);
  });

  test('--version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    const { code, stdout } = await runCli(['--version']);
    assert.equal(code, 0);
    assert.equal(stdout, `${pkg.version}\n`);
  });
});

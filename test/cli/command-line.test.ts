import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { targetFromWords } from '../../src/cli/target.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { CommandLineError, splitCommandLine } from '../../src/util/command-line.js';

describe('splitCommandLine', () => {
  const cases: [string, string[]][] = [
    ['node server.js', ['node', 'server.js']],
    ['  node   server.js  --flag ', ['node', 'server.js', '--flag']],
    [`node "my server.js" 'a b'`, ['node', 'my server.js', 'a b']],
    [`node "say \\"hi\\"" 'it''s'`, ['node', 'say "hi"', 'its']],
    [`node 'no \\escapes "here"'`, ['node', 'no \\escapes "here"']],
    ['node my\\ server.js', ['node', 'my server.js']],
    ['C:\\tools\\server.exe --x', ['C:\\tools\\server.exe', '--x']],
    ['node "" x', ['node', '', 'x']],
    ['node --opt=a"b c"d', ['node', '--opt=ab cd']],
    ['echo $HOME ~ *.js', ['echo', '$HOME', '~', '*.js']],
    ['node "a | b" \'c && d\'', ['node', 'a | b', 'c && d']],
    ['', []],
  ];
  for (const [line, words] of cases) {
    test(JSON.stringify(line), () => assert.deepEqual(splitCommandLine(line), words));
  }

  test('refuses an unterminated quote and unquoted shell operators', () => {
    assert.throws(() => splitCommandLine('node "x'), CommandLineError);
    assert.throws(() => splitCommandLine("node 'x"), CommandLineError);
    for (const op of ['|', '&&', ';', '>', '<']) {
      assert.throws(() => splitCommandLine(`node a.js ${op} b`), /shell operator/);
    }
  });
});

describe('targetFromWords', () => {
  test('one word is a command line; words after -- are taken as they are', () => {
    assert.deepEqual(targetFromWords(['node "a b.js" --x'], false), {
      kind: 'stdio',
      command: 'node',
      args: ['a b.js', '--x'],
    });
    assert.deepEqual(targetFromWords(['node', 'a b.js', '"q"'], true), {
      kind: 'stdio',
      command: 'node',
      args: ['a b.js', '"q"'],
    });
  });

  test('refuses nothing and a blank command line', () => {
    assert.throws(() => targetFromWords([], false), /Missing the server/);
    assert.throws(() => targetFromWords(['   '], false), /Missing the server/);
    assert.throws(() => targetFromWords(['""'], false), /names no program/);
  });

  test('a command line that cannot be split is a usage mistake (exit code 2)', () => {
    assert.throws(() => targetFromWords(['node "x'], false), UsageError);
    assert.throws(() => targetFromWords(['node a.js | tee'], false), UsageError);
  });

  test('one http(s) URL is an HTTP target; after -- it is a program name', () => {
    const target = targetFromWords(['http://127.0.0.1:3000/mcp'], false);
    assert.equal(target.kind, 'http');
    assert.equal(target.kind === 'http' && String(target.url), 'http://127.0.0.1:3000/mcp');
    assert.equal(targetFromWords(['https://x.example/mcp'], true).kind, 'stdio');
    assert.throws(() => targetFromWords(['http://[::1'], false), /not a valid URL/);
  });
});

/**
 * README.md and docs/cli.md show terminal sessions; this runs each `$ switchboard ...` line of every
 * block marked `<!-- cli-session -->` and compares what it prints (stderr, then stdout) with the
 * lines below it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { splitCommandLine } from '../../src/util/command-line.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

interface Step {
  command: string;
  expected: string;
}

/** The commands of every marked console block, each with the output shown after it. */
function sessions(markdown: string): Step[] {
  const steps: Step[] = [];
  for (const [, body] of markdown.matchAll(/<!-- cli-session -->\n```console\n([\s\S]*?)```\n/g)) {
    let current: Step | undefined;
    for (const line of body!.split('\n').slice(0, -1)) {
      if (line.startsWith('$ ')) {
        current = { command: line.slice(2), expected: '' };
        steps.push(current);
      } else {
        assert.ok(current, `output before any command in a cli-session block: ${line}`);
        current.expected += `${line}\n`;
      }
    }
  }
  return steps;
}

function run(words: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...words],
      { cwd: repo, timeout: 30_000, env: CLI_ENV },
      (_error, stdout, stderr) => resolve(stderr + stdout),
    );
  });
}

const steps = ['README.md', join('docs', 'cli.md')].flatMap((page) =>
  sessions(readFileSync(join(repo, page), 'utf8')),
);

describe('cli-session blocks of README.md and docs/cli.md', { concurrency: 4 }, () => {
  test('there are sessions to run', () => assert.ok(steps.length >= 10));
  for (const { command, expected } of steps) {
    test(command, async () => {
      // The same splitting rules the CLI applies to a quoted target are a subset of the shell's.
      const [program, ...words] = splitCommandLine(command);
      assert.equal(program, 'switchboard');
      assert.equal(await run(words), expected);
    });
  }
});

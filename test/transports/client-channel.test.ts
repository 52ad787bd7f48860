import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ChannelSink } from '../../src/engine/channel.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { childEnv } from '../../src/transports/stdio/child-env.js';
import {
  StdioClientChannel,
  type StdioClientChannelOptions,
} from '../../src/transports/stdio/client-channel.js';
import { StderrTail } from '../../src/transports/stdio/stderr-tail.js';
import { until } from '../helpers/wait.js';

const fixture = fileURLToPath(new URL('../fixtures/stdio-server.js', import.meta.url));

/** A sink whose messages and close can be awaited. */
class Inbox {
  readonly messages: unknown[] = [];
  readonly closes: (Error | undefined)[] = [];
  readonly malformed: Error[] = [];
  #waiters: (() => void)[] = [];
  readonly sink: ChannelSink = {
    message: (value) => {
      this.messages.push(value);
      this.#wake();
    },
    malformed: (error) => {
      this.malformed.push(error);
      this.#wake();
    },
    closed: (error) => {
      this.closes.push(error);
      this.#wake();
    },
  };

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  async until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  async message(count = 1): Promise<unknown> {
    await this.until(() => this.messages.length >= count || this.closes.length > 0);
    assert.ok(
      this.messages.length >= count,
      `expected ${count} messages, channel closed: ${this.closes[0]?.message}`,
    );
    return this.messages[count - 1];
  }

  async closed(): Promise<Error | undefined> {
    await this.until(() => this.closes.length > 0);
    return this.closes[0];
  }
}

const channels: StdioClientChannel[] = [];
after(async () => {
  // Whatever a failed test left behind is stopped here, so no child outlives the suite.
  await Promise.all(channels.map((channel) => channel.close()));
});

function open(mode: string, options: Partial<StdioClientChannelOptions> = {}) {
  const channel = new StdioClientChannel({
    command: process.execPath,
    args: [fixture, mode],
    stderr: 'pipe',
    // Generous, so a well-behaved child always exits on stdin EOF first; escalation tests shorten it.
    shutdownTimeoutMs: 5000,
    ...options,
  });
  channels.push(channel);
  const inbox = new Inbox();
  channel.start(inbox.sink);
  return { channel, inbox };
}

/** Timers, pipes and process handles this process holds (not closes in flight), sorted by kind. */
function activeResources(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((kind) => kind !== 'CloseReq')
    .sort();
}

/** The kinds held now that were not held `before` (earlier tests' handles may still be closing). */
function newResources(before: string[]): string[] {
  const remaining = [...before];
  return activeResources().filter((kind) => {
    const index = remaining.indexOf(kind);
    if (index === -1) return true;
    remaining.splice(index, 1);
    return false;
  });
}

/** Asserts that nothing the channel opened (timer, pipe, process handle) is still held. */
async function assertNothingLeft(before: string[]): Promise<void> {
  // libuv closes a handle a few loop turns after Node reports the stream or process closed.
  await until(() => newResources(before).length === 0, 'the channel releasing its handles').catch(() => {});
  assert.deepEqual(newResources(before), []);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ESRCH');
    return false;
  }
}

describe('StdioClientChannel', () => {
  test('round trip with a real server process; close() ends stdin and the server exits on its own', async () => {
    const before = activeResources();
    const { channel, inbox } = open('echo');
    assert.match(channel.label, /^stdio: .*stdio-server\.js echo \(pid \d+\)$/);
    const big = 'é'.repeat(300_000);
    channel.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    channel.send(JSON.stringify({ big }));
    assert.deepEqual(await inbox.message(1), { echo: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    assert.deepEqual(await inbox.message(2), { echo: { big } });

    const pid = channel.pid!;
    await channel.close();
    assert.deepEqual(channel.exitStatus, { code: 0, signal: null });
    assert.deepEqual(inbox.closes, [undefined]);
    assert.equal(isAlive(pid), false);
    await channel.close();
    assert.equal(inbox.closes.length, 1);
    await assertNothingLeft(before);
  });

  test('a crashing server closes the channel with its exit code, pid and last stderr lines', async () => {
    const before = activeResources();
    const { channel, inbox } = open('crash');
    const error = await inbox.closed();
    assert.ok(error instanceof SwitchboardError);
    assert.equal(error.code, 'CONNECTION_CLOSED');
    assert.match(
      error.message,
      new RegExp(`stdio-server\\.js crash" \\(pid ${channel.pid}\\) exited unexpectedly with code 3`),
    );
    const lastLines = Array.from({ length: 20 }, (_, i) => `stderr line ${i + 11}`).join('\n');
    assert.ok(error.message.endsWith(`Last lines of its stderr:\n${lastLines}`), error.message);
    assert.equal(channel.stderrTail(), lastLines);
    assert.deepEqual(channel.exitStatus, { code: 3, signal: null });
    await channel.close();
    assert.equal(inbox.closes.length, 1);
    await assertNothingLeft(before);
  });

  test('a command that does not exist closes the channel with a TRANSPORT error', async () => {
    const command = 'switchboard-test-command-that-does-not-exist';
    const before = activeResources();
    const { channel, inbox } = open('', { command, args: [] });
    const error = await inbox.closed();
    assert.ok(error instanceof SwitchboardError);
    assert.equal(error.code, 'TRANSPORT');
    assert.match(
      error.message,
      new RegExp(`^Could not start "${command}": .*ENOENT.*Check that the command exists and is on PATH`),
    );
    assert.equal(channel.pid, undefined);
    channel.send('{"a":1}');
    await channel.close();
    assert.equal(inbox.closes.length, 1);
    await assertNothingLeft(before);
  });

  test('close() escalates to SIGTERM when the server ignores stdin EOF', async () => {
    const { channel, inbox } = open('ignore-eof', { shutdownTimeoutMs: 200 });
    assert.deepEqual(await inbox.message(), { ready: true });
    const pid = channel.pid!;
    await channel.close();
    assert.deepEqual(channel.exitStatus, { code: null, signal: 'SIGTERM' });
    assert.deepEqual(inbox.closes, [undefined]);
    assert.equal(isAlive(pid), false);
  });

  test('close() escalates to SIGKILL when the server also ignores SIGTERM, and reaps it', async () => {
    const before = activeResources();
    const { channel, inbox } = open('stubborn', { shutdownTimeoutMs: 200 });
    assert.deepEqual(await inbox.message(), { ready: true });
    const pid = channel.pid!;
    const first = channel.close();
    const second = channel.close();
    await Promise.all([first, second]);
    assert.deepEqual(channel.exitStatus, { code: null, signal: 'SIGKILL' });
    assert.deepEqual(inbox.closes, [undefined]);
    assert.equal(isAlive(pid), false);
    await assertNothingLeft(before);
  });

  test('a server that closes its stdout is stopped and reported', async () => {
    const { channel, inbox } = open('close-stdout', { shutdownTimeoutMs: 200 });
    assert.deepEqual(await inbox.message(), { ready: true });
    const error = await inbox.closed();
    assert.match(
      String(error?.message),
      /closed its stdout while still running, so it was stopped with SIGTERM/,
    );
    assert.equal(isAlive(channel.pid!), false);
  });

  test('a child that exits while a grandchild holds its pipes open still closes the channel', async () => {
    const { channel, inbox } = open('orphan-pipes', { shutdownTimeoutMs: 200 });
    const { grandchild } = (await inbox.message()) as { grandchild: number };
    try {
      const error = await inbox.closed();
      assert.match(String(error?.message), /exited unexpectedly with code 0/);
      await channel.close();
    } finally {
      process.kill(grandchild, 'SIGKILL');
    }
  });

  test('the child gets only the safe environment subset plus env, unless inheritEnv', async () => {
    process.env.SWITCHBOARD_TEST_SECRET = 'do-not-leak';
    try {
      const filtered = open('env', { env: { SWITCHBOARD_EXTRA: 'yes', HOME: undefined } });
      const { env } = (await filtered.inbox.message()) as { env: Record<string, string> };
      assert.equal(env.SWITCHBOARD_TEST_SECRET, undefined);
      assert.equal(env.SWITCHBOARD_EXTRA, 'yes');
      assert.equal(env.HOME, undefined);
      assert.equal(env.PATH, process.env.PATH);
      await filtered.channel.close();

      const inherited = open('env', { inheritEnv: true });
      const all = (await inherited.inbox.message()) as { env: Record<string, string> };
      assert.equal(all.env.SWITCHBOARD_TEST_SECRET, 'do-not-leak');
      await inherited.channel.close();
    } finally {
      delete process.env.SWITCHBOARD_TEST_SECRET;
    }
  });

  test('stderr output is read continuously and is not an error', async () => {
    let stderrChars = 0;
    const { channel, inbox } = open('chatty', {
      stderr: (chunk) => {
        stderrChars += chunk.length;
      },
    });
    channel.send('{"id":1}');
    assert.deepEqual(await inbox.message(), { echo: { id: 1 } });
    assert.deepEqual(inbox.closes, []);
    assert.deepEqual(inbox.malformed, []);
    await channel.close();
    assert.deepEqual(inbox.closes, [undefined]);
    // close() resolves after the child's pipes closed, so all of stderr has been read by now.
    assert.equal(stderrChars, 1024 * 1024);
    assert.equal(channel.stderrTail().split('\n').length, 4, 'the tail is bounded to 4 KB');
  });

  test('rejects an empty command at construction', () => {
    assert.throws(() => new StdioClientChannel({ command: '' }), /non-empty `command`/);
  });
});

describe('childEnv', () => {
  const parent = {
    PATH: '/bin',
    HOME: '/home/u',
    AWS_SECRET_ACCESS_KEY: 'x',
    BASH_FUNC_f: '() { :; }',
    TERM: '() {',
  };

  test('keeps the safe subset and drops exported shell functions', () => {
    assert.deepEqual(childEnv(parent, {}, 'linux'), { PATH: '/bin', HOME: '/home/u' });
  });

  test('applies env last: set and remove', () => {
    assert.deepEqual(childEnv(parent, { env: { HOME: undefined, A: '1' } }, 'linux'), {
      PATH: '/bin',
      A: '1',
    });
  });

  test('inheritEnv passes everything', () => {
    assert.deepEqual(childEnv(parent, { inheritEnv: true }, 'linux'), parent);
  });

  test('on Windows names compare case-insensitively', () => {
    const windowsParent = { Path: 'C:\\bin', SystemRoot: 'C:\\Windows', Secret: 's' };
    assert.deepEqual(childEnv(windowsParent, { env: { PATH: 'D:\\bin' } }, 'win32'), {
      SystemRoot: 'C:\\Windows',
      PATH: 'D:\\bin',
    });
  });
});

describe('StderrTail', () => {
  test('keeps the last 20 lines and at most 4 KB', () => {
    const tail = new StderrTail();
    for (let i = 1; i <= 100; i++) tail.append(`line ${i}\n`);
    assert.equal(tail.toString(), Array.from({ length: 20 }, (_, i) => `line ${i + 81}`).join('\n'));
    tail.append('y'.repeat(10_000));
    assert.equal(tail.toString(), 'y'.repeat(4096));
  });
});

/**
 * Outbound queues are bounded on stdio (issue 15, finding 1): a peer that stops reading is not
 * answered into memory without limit. A server stops reading stdin while its answers wait, and gives
 * up on a client that never reads; a client gives up on a server that never reads its stdin.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ChannelSink } from '../../src/engine/channel.js';
import type { SwitchboardError } from '../../src/protocol/errors.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';
import { StdioServerChannel } from '../../src/transports/stdio/server-channel.js';
import { until } from '../helpers/wait.js';

const fixture = fileURLToPath(new URL('../fixtures/stdio-server.js', import.meta.url));

/** A request line of about 120 bytes, and the echo the server channel answers it with. */
const line = (i: number) =>
  `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'x', params: { pad: 'p'.repeat(80) } })}\n`;

/** A sink that answers every message with an echo frame, as the fixture's echo server does. */
function echoing(channel: StdioServerChannel, closes: (Error | undefined)[] = []): ChannelSink {
  return {
    message: (value) => channel.send(JSON.stringify({ echo: value })),
    malformed: () => {},
    closed: (error) => closes.push(error),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('stdio backpressure', () => {
  test('a server whose client stops reading stdout pauses stdin, then answers everything once read', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough(); // nobody reads it (yet)
    const reports: SwitchboardError[] = [];
    const channel = new StdioServerChannel({ stdin, stdout, onSendError: (e) => reports.push(e) });
    channel.start(echoing(channel));

    // Feed 1000 requests a turn until the channel stops reading; 200k would be 24 MB of input.
    let sent = 0;
    while (!stdin.isPaused() && sent < 200_000) {
      stdin.write(Array.from({ length: 1000 }, (_, i) => line(sent + i)).join(''));
      sent += 1000;
      await tick();
    }
    assert.ok(stdin.isPaused(), `stdin was still being read after ${sent} requests nobody read answers to`);
    // The queue stopped near the 1 MiB pause point: what waits is far less than what was sent.
    const waiting = stdout.readableLength + stdout.writableLength;
    assert.ok(waiting < 4 * 1024 * 1024, `${waiting} bytes of answers waiting`);
    assert.equal(reports.length, 1);
    assert.match(reports[0]!.message, /not reading stdout .* stopped reading stdin/);

    // Once the client reads, everything is answered, in order, and reading resumed.
    let answered = 0;
    const lines = createInterface({ input: stdout });
    for await (const text of lines) {
      assert.equal((JSON.parse(text) as { echo: { id: number } }).echo.id, answered);
      if (++answered === sent) break;
    }
    assert.equal(stdin.isPaused(), false);
    assert.equal(reports.length, 1, 'a pause is reported once');
    await channel.close();
  });

  test('a server gives up on a client that never reads, past maxQueuedBytes', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const reports: SwitchboardError[] = [];
    const closes: (Error | undefined)[] = [];
    const channel = new StdioServerChannel({
      stdin,
      stdout,
      maxQueuedBytes: 256 * 1024,
      onSendError: (e) => reports.push(e),
    });
    channel.start(echoing(channel, closes));
    // Notifications the server sends on its own, with stdin paused: only the cap stops them.
    let sent = 0;
    while (closes.length === 0 && sent < 100_000) {
      for (let i = 0; i < 100; i++)
        channel.send(JSON.stringify({ method: 'n', params: { pad: 'p'.repeat(1000) } }));
      sent += 100;
      await tick();
    }
    assert.equal(closes.length, 1, `still open after ${sent} notifications`);
    assert.match(String(closes[0]?.message), /stopped reading stdout.*maxQueuedBytes/);
    assert.ok(reports.some((e) => /maxQueuedBytes/.test(e.message)));
    assert.ok(stdout.readableLength + stdout.writableLength < 1024 * 1024);
    await channel.close();
  });

  test('a stdio server process keeps its memory while its client does not read (real pipes)', async () => {
    const child = spawn(process.execPath, [fixture, 'echo'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.pause();
    let stderr = '';
    let paused = false;
    const pausedReported = new Promise<void>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
        if (!paused && /not reading stdout/.test(stderr)) {
          paused = true;
          resolve();
        }
      });
    });
    // 300k requests unanswered grew the server past 1 GB before the fix.
    let sent = 0;
    while (!paused && sent < 300_000) {
      const ok = child.stdin.write(Array.from({ length: 1000 }, (_, i) => line(sent + i)).join(''));
      sent += 1000;
      if (!ok) await Promise.race([once(child.stdin, 'drain'), pausedReported]);
    }
    assert.ok(paused, `the server read all ${sent} requests without pausing; stderr: ${stderr}`);
    const rss =
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) * 1024;
    assert.ok(rss < 200 * 1024 * 1024, `server RSS ${rss} bytes`);

    let answered = 0;
    for await (const _ of createInterface({ input: child.stdout })) if (++answered === sent) break;
    assert.equal(answered, sent);
    child.stdin.end();
    await once(child, 'exit');
  });

  test('a client gives up on a server that never reads its stdin, past maxQueuedBytes', async () => {
    const channel = new StdioClientChannel({
      command: process.execPath,
      args: [fixture, 'deaf'],
      stderr: 'pipe',
      maxQueuedBytes: 1024 * 1024,
      shutdownTimeoutMs: 200,
    });
    const closes: (Error | undefined)[] = [];
    let ready = false;
    channel.start({ message: () => (ready = true), malformed: () => {}, closed: (e) => closes.push(e) });
    await until(() => ready, 'the ready line');
    const frame = JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { pad: 'p'.repeat(64 * 1024) } });
    let sent = 0;
    while (closes.length === 0 && sent < 2000) {
      channel.send(frame);
      sent++;
      await tick();
    }
    await until(() => closes.length === 1, 'the close');
    assert.match(String(closes[0]?.message), /stopped reading its stdin .*maxQueuedBytes/);
    assert.ok(sent * frame.length < 200 * 1024 * 1024);
    await channel.close();
  });
});

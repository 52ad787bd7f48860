/**
 * The gateway with a legacy HTTP+SSE upstream, and when upstreams fail: never start, crash mid-call,
 * hang, speak garbage, answer too slowly, hang while idle (found by the health check); and whether
 * every process it started is gone after close() (no child of this process is left, zombie or not).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startV1Sse } from '../fixtures/http-official.js';
import { until } from '../helpers/wait.js';
import { assertExited } from '../interop/helpers/processes.js';
import { noChildren, pidOf, startGateway, switchboardClient, textOf, UPSTREAM } from './helpers.js';

describe('gateway: a legacy HTTP+SSE upstream', () => {
  test('serves its tools, and a cancelled downstream call cancels the upstream call', async () => {
    const sse = await startV1Sse();
    const started = await startGateway({ old: { type: 'sse', url: sse.url } });
    try {
      const { client } = await switchboardClient(started.url, 'gil', 'legacy');
      assert.deepEqual((await client.callTool('old__echo', { text: 'over sse' })).content, [
        { type: 'text', text: 'over sse' },
      ]);
      const controller = new AbortController();
      const waiting = client.callTool('old__wait', {}, { signal: controller.signal });
      await until(() => sse.waits.length === 1, 'the upstream call to start');
      controller.abort();
      await assert.rejects(waiting);
      await until(() => sse.aborts.length === 1, 'the upstream call to be cancelled');
      await client.close();
    } finally {
      await started.close();
      await sse.close();
    }
  });
});

describe('gateway: faults', () => {
  test('an upstream that never starts is reported; the others serve; a crash mid-call is an error result, then it comes back', async () => {
    const started = await startGateway({
      broken: { command: process.execPath, args: [UPSTREAM, 'crash-on-start'] },
      local: { command: process.execPath, args: [UPSTREAM] },
    });
    try {
      const health = started.gateway.health();
      const broken = health.find((h) => h.name === 'broken');
      // Failing, or (on a loaded machine, past the first backoff) starting again after the failure.
      assert.ok(
        broken && ['failing', 'circuit-open', 'starting'].includes(broken.state),
        JSON.stringify(health),
      );
      assert.match(broken.lastError ?? '', /cannot open the database/);
      assert.equal(health.find((h) => h.name === 'local')?.state, 'up');

      const { client } = await switchboardClient(started.url, 'fay', 'legacy');
      const first = pidOf(await client.callTool('local__whoami'));
      const crashed = await client.callTool('local__crash');
      assert.equal(crashed.isError, true);
      assert.match(textOf(crashed), /exited|closed/);
      await assertExited([first], 'the crashed upstream');
      // The next call opens a new session.
      const second = pidOf(await client.callTool('local__whoami'));
      assert.notEqual(second, first);
      // A read is safe to repeat: one whose upstream dies under it goes again on a new session.
      const marker = join(mkdtempSync(join(tmpdir(), 'gateway-once-')), 'read');
      const read = await client.readResource(`gateway://local/once://${encodeURIComponent(marker)}`);
      assert.deepEqual(
        read.contents.map((c) => ('text' in c ? c.text : '')),
        ['read after a crash'],
      );
      await assertExited([second], 'the upstream that crashed mid-read');
      const third = pidOf(await client.callTool('local__whoami'));
      await client.close();
      await assertExited([third], 'the session of a closed client');
    } finally {
      await started.close();
    }
  });

  test('an upstream that hangs or speaks garbage is reported with what is wrong; the others serve', async () => {
    const silent = ['-e', 'process.stdin.resume()'];
    const garbage = ['-e', 'process.stdin.resume(); console.log("hello, this is not JSON-RPC")'];
    const started = await startGateway({
      hung: { command: process.execPath, args: silent, timeoutMs: 1000 },
      noisy: { command: process.execPath, args: garbage, timeoutMs: 1000 },
      local: { command: process.execPath, args: [UPSTREAM] },
    });
    try {
      const health = started.gateway.health();
      const hung = health.find((h) => h.name === 'hung')!;
      const noisy = health.find((h) => h.name === 'noisy')!;
      assert.notEqual(hung.state, 'up', JSON.stringify(hung));
      assert.match(hung.lastError ?? '', /'initialize' .* got no response within \d+ ms/);
      assert.notEqual(noisy.state, 'up', JSON.stringify(noisy));
      assert.match(noisy.lastError ?? '', /JSON|parse|not a JSON-RPC/i);
      const { client } = await switchboardClient(started.url, 'ivy', 'legacy');
      assert.match(textOf(await client.callTool('local__whoami')), /pid \d+/);
      await client.close();
    } finally {
      await started.close();
    }
    await noChildren('after a hung and a garbage upstream');
  });

  test('a slow upstream: its call ends at its timeout, the others serve meanwhile, it serves again', async () => {
    const started = await startGateway({
      slow: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'slow' }, timeoutMs: 5000 },
      local: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'local' } },
    });
    try {
      // A 2026-07-28 client: its calls go through the gateway's (already open) session with each.
      const { client } = await switchboardClient(started.url, 'jo');
      let slowEnded = false;
      // `slow` answers only when cancelled: the gateway's per-call timeout is what ends it.
      const slow = client.callTool('slow__slow').finally(() => {
        slowEnded = true;
      });
      assert.match(textOf(await client.callTool('local__whoami')), /^local pid \d+$/);
      assert.equal(slowEnded, false, 'the other upstream answered while the slow call ran');
      const timedOut = await slow;
      assert.equal(timedOut.isError, true);
      assert.match(textOf(timedOut), /^Upstream "slow": .*got no response within \d+ ms/);
      assert.equal(started.gateway.health().find((h) => h.name === 'slow')?.state, 'up');
      assert.match(textOf(await client.callTool('slow__whoami')), /^slow pid \d+$/);
      await client.close();
    } finally {
      await started.close();
    }
    await noChildren('after a slow upstream');
  });

  test('a stdio server that hangs without exiting (stopped) fails its health check: stopped, started again, up', async () => {
    const started = await startGateway({
      local: {
        command: process.execPath,
        args: [UPSTREAM],
        env: { UPSTREAM_LABEL: 'local' },
        healthCheckIntervalMs: 200,
        connectTimeoutMs: 2000,
      },
    });
    const state = () => started.gateway.health().find((h) => h.name === 'local')?.state;
    // A 2026-07-28 client's call runs on the gateway's own session: its process is the one checked.
    const modern = await switchboardClient(started.url, 'hal');
    let hung: number | undefined;
    try {
      hung = pidOf(await modern.client.callTool('local__whoami'));
      // Alive, but answering nothing: no exit tells the gateway, only its check can.
      process.kill(hung, 'SIGSTOP');
      await until(() => state() !== 'up', 'the hung upstream reported down');
      assert.match(
        started.gateway.health().find((h) => h.name === 'local')?.lastError ?? '',
        /did not answer server\/discover within 2000 ms \(connectTimeoutMs\)/,
      );
      await assertExited([hung], 'the hung upstream, stopped by the gateway');
      await until(() => state() === 'up', 'the upstream started again');
      const again = pidOf(await modern.client.callTool('local__whoami'));
      assert.notEqual(again, hung);
    } finally {
      // Should the gateway not have stopped it, it must not stay stopped either.
      if (hung !== undefined) {
        try {
          process.kill(hung, 'SIGCONT');
        } catch {
          // Gone already.
        }
      }
      await modern.client.close();
      await started.close();
    }
    await noChildren('after a hung upstream');
  });

  test('close() stops every upstream process it started, the catalog and the per-client ones', async () => {
    const started = await startGateway({ local: { command: process.execPath, args: [UPSTREAM] } });
    const a = await switchboardClient(started.url, 'a', 'legacy');
    const b = await switchboardClient(started.url, 'b', 'legacy');
    const pids = [
      pidOf(await a.client.callTool('local__whoami')),
      pidOf(await b.client.callTool('local__whoami')),
    ];
    const modern = await switchboardClient(started.url, 'c');
    pids.push(pidOf(await modern.client.callTool('local__whoami')));
    assert.equal(new Set(pids).size, 3);
    await started.close();
    await assertExited(pids, 'gateway close');
    await noChildren('after close()');
    await Promise.allSettled([a.client.close(), b.client.close(), modern.client.close()]);
  });
});

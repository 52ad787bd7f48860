import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProgressUpdate } from '../../src/engine/peer.js';
import { Server } from '../../src/extensions/server.js';
import { SwitchboardError } from '../../src/protocol/errors.js';
import { REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import type { RequestContext } from '../../src/server/context.js';
import { advance, controlClock, settleOnClock } from '../helpers/clock.js';
import { connectPair } from '../helpers/pair.js';
import { rawSession } from '../helpers/raw-session.js';
import { openWire } from '../helpers/wire.js';

const pin = (revision: Revision) => ({ version: { pin: revision } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const textOf = (result: { content: { type: string }[] }) =>
  (result.content[0] as { type: 'text'; text: string }).text;

function progressServer() {
  const server = new Server({ name: 'progress', version: '1.0.0' });
  let finished: RequestContext | undefined;
  server.registerTool('steps', {}, (_args, ctx) => {
    for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `step ${i}`);
    finished = ctx;
    return 'done';
  });
  server.registerTool('backwards', {}, (_args, ctx) => {
    ctx.progress(2);
    ctx.progress(2);
    return 'unreachable';
  });
  server.registerTool(
    'slow',
    { inputSchema: { type: 'object', properties: { steps: { type: 'number' } } } },
    async (args, ctx) => {
      for (let i = 1; i <= (args.steps as number); i++) {
        if (ctx.signal.aborted) return 'stopped';
        await sleep(25);
        ctx.progress(i);
      }
      return 'slow done';
    },
  );
  return { server, late: () => finished?.progress(10, 3, 'too late') };
}

for (const revision of REVISIONS) {
  describe(`progress on ${revision}`, () => {
    test('updates arrive in order, with message where the revision has it', async () => {
      const { server } = progressServer();
      const pair = await connectPair(server, pin(revision));
      const updates: ProgressUpdate[] = [];
      await pair.client.callTool('steps', {}, { onprogress: (u) => updates.push(u) });
      const withMessage = revision !== '2024-11-05';
      assert.deepEqual(
        updates,
        [1, 2, 3].map((i) =>
          withMessage ? { progress: i, total: 3, message: `step ${i}` } : { progress: i, total: 3 },
        ),
      );
      pair.assertClean();
      await pair.close();
    });

    test('progress must increase', async () => {
      const { server } = progressServer();
      const pair = await connectPair(server, pin(revision));
      const result = await pair.client.callTool('backwards', {}, { onprogress: () => undefined });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /Progress must increase with every report: got 2 after 2/);
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('progress rules', () => {
  test('a progressToken that is neither a string nor an integer is refused with -32602 (both eras)', async () => {
    const wire = await openWire(progressServer().server, { check: true });
    await wire.initialize('2025-06-18');
    for (const token of [{ evil: true }, 1.5, [1], null, true]) {
      const legacy = await wire.request('tools/call', { name: 'steps', _meta: { progressToken: token } });
      assert.equal(legacy.error?.code, -32602, JSON.stringify(legacy));
      assert.match(legacy.error.message, /"_meta.progressToken" must be a string or an integer/);
      const modern = await wire.modern('tools/call', { name: 'steps' }, { progressToken: token });
      assert.equal(modern.error?.code, -32602, JSON.stringify(modern));
    }
    assert.equal(wire.notifications.length, 0, 'no progress was echoed for a refused token');
    for (const token of ['t-1', 7, -3]) {
      const ok = await wire.request('tools/call', { name: 'steps', _meta: { progressToken: token } });
      assert.equal(ok.result?.content?.[0]?.text, 'done');
    }
    assert.deepEqual(
      wire.notifications.map((n) => n.params.progressToken),
      ['t-1', 't-1', 't-1', 7, 7, 7, -3, -3, -3],
    );
    wire.assertClean();
    await wire.close();
  });

  test('nothing is sent without a progress token, nor after the request completed', async () => {
    const { server, late } = progressServer();
    const raw = await rawSession(server);
    await raw.modern('tools/call', { name: 'steps' });
    assert.equal(raw.fromServer.length, 1, 'only the result: no token, no progress');
    await raw.modern('tools/call', { name: 'steps', _meta: { progressToken: 'p' } });
    const before = raw.fromServer.length;
    late();
    await raw.modern('tools/call', { name: 'steps' });
    assert.equal(raw.fromServer.length, before + 1);
    raw.assertClean();
    await raw.close();
  });

  test('progress restarts the timeout; maxTotalTimeoutMs bounds it anyway (controlled clock)', async (t) => {
    const pairs = [];
    for (const revision of ['2026-07-28', '2025-11-25'] as const) {
      pairs.push(await connectPair(progressServer().server, pin(revision)));
    }
    // Virtual time from here: a loaded machine cannot stretch a 25 ms step past a 150 ms timeout.
    controlClock(t);
    const isTimeout = (outcome: object) =>
      'error' in outcome && outcome.error instanceof SwitchboardError && outcome.error.code === 'TIMEOUT';
    for (const pair of pairs) {
      // 12 steps of 25 ms outlast a 150 ms timeout, but each step's progress restarts it.
      const done = await settleOnClock(
        t,
        pair.client.callTool('slow', { steps: 12 }, { timeoutMs: 150, onprogress: () => undefined }),
      );
      assert.ok('value' in done, String((done as { error?: unknown }).error));
      assert.equal(textOf(done.value), 'slow done');
      assert.ok(done.elapsedMs >= 300, `it took ${done.elapsedMs} ms, twice the timeout`);
      const fixed = await settleOnClock(
        t,
        pair.client.callTool(
          'slow',
          { steps: 12 },
          { timeoutMs: 150, onprogress: () => undefined, resetTimeoutOnProgress: false },
        ),
      );
      assert.ok(isTimeout(fixed), 'without resets, 150 ms is the end');
      assert.ok(fixed.elapsedMs >= 150 && fixed.elapsedMs < 200, `${fixed.elapsedMs} ms`);
      const capped = await settleOnClock(
        t,
        pair.client.callTool(
          'slow',
          { steps: 40 },
          { timeoutMs: 150, maxTotalTimeoutMs: 200, onprogress: () => undefined },
        ),
      );
      assert.ok(isTimeout(capped), 'progress cannot outlast maxTotalTimeoutMs');
      assert.ok(capped.elapsedMs >= 200 && capped.elapsedMs < 250, `${capped.elapsedMs} ms`);
      // Let the cancelled handlers see their abort and end before the pair closes.
      await advance(t, 2000);
      pair.assertClean();
      await pair.close();
    }
  });
});

/**
 * The failure paths of HTTP upstreams, each a real server process (test/fixtures/gateway-http-upstream)
 * this file starts on 127.0.0.1 and kills: a Streamable HTTP upstream (legacy, and 2026-07-28)
 * killed while calls of both downstream eras are in flight and started again on the same port, once
 * it is seen down, or at once (a restart); a 2024-11-05 HTTP+SSE upstream whose event stream drops,
 * or whose process dies; an upstream that
 * sends a response's headers and then nothing. What is checked each time: the calls in flight end
 * with an error naming the upstream (no hang), the gateway and the other upstreams and clients go
 * on, `/readyz` says the upstream is down and then up again, and the next call works. And the
 * gateway's own health check: an upstream killed while no call runs is found down all the same.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Server } from '../../src/extensions/server.js';
import { toNodeListener } from '../../src/node/listener.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import type { CallToolResult, GetPromptResult } from '../../src/protocol/types.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { until } from '../helpers/wait.js';
import { healthServedGateway, listen, noChildren, switchboardClient, textOf, UPSTREAM } from './helpers.js';

const HTTP_UPSTREAM = fileURLToPath(new URL('../fixtures/gateway-http-upstream.js', import.meta.url));

/** One run of the HTTP upstream fixture: its lines on stdout waited for, never slept for. */
interface HttpUpstream {
  readonly port: number;
  readonly url: string;
  readonly sseUrl: string;
  /** Resolves with the `count`-th line matching `pattern` (counting every line it printed); fails after `ms`. */
  line(pattern: RegExp, count?: number, ms?: number): Promise<string>;
  /** The lines matching `pattern` it printed so far. */
  printed(pattern: RegExp): string[];
  /** SIGKILL, resolved once the process exited. */
  kill(): Promise<void>;
}

async function startHttpUpstream(
  era: 'legacy' | 'modern',
  label: string,
  port = 0,
  env: Record<string, string> = {},
): Promise<HttpUpstream> {
  const child: ChildProcessWithoutNullStreams = spawnOwned(
    process.execPath,
    [HTTP_UPSTREAM, String(port), era],
    { env: { ...process.env, UPSTREAM_LABEL: label, ...env } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: string[] = [];
  let waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push(text);
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  });
  // A guard against a hang (wide, for a loaded machine), never a timing.
  const line = (pattern: RegExp, count = 1, ms = 30_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((waiter) => waiter !== check);
        reject(
          new Error(`the upstream printed no ${pattern} (#${count}) within ${ms} ms: ${lines.join(' | ')}`),
        );
      }, ms);
      const check = () => {
        const found = lines.filter((text) => pattern.test(text));
        if (found.length >= count) {
          clearTimeout(timer);
          return resolve(found[count - 1]!);
        }
        if (child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          return reject(new Error(`the upstream exited before printing ${pattern}: ${lines.join(' | ')}`));
        }
        waiters.push(check);
      };
      check();
    });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const listening = await Promise.race([
    line(/^listening \d+$/),
    exited.then(() => {
      throw new Error(`the HTTP upstream exited: ${stderr}`);
    }),
  ]);
  const bound = Number(listening.split(' ')[1]);
  const upstream: HttpUpstream = {
    port: bound,
    url: `http://127.0.0.1:${bound}/mcp`,
    sseUrl: `http://127.0.0.1:${bound}/sse`,
    line,
    printed: (pattern) => lines.filter((text) => pattern.test(text)),
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
  // Every run is killed after the file, whatever the test did with it (a killed one is gone at once).
  closing.push(() => upstream.kill());
  return upstream;
}

/** `<label> pid <pid> session <session>`, as the fixture's `whoami` answers. */
function whoami(result: CallToolResult): { label: string; pid: number; session: string } {
  const match = /^(\S+) pid (\d+) session (\S+)$/.exec(textOf(result));
  assert.ok(match, `not a whoami answer: ${textOf(result)}`);
  return { label: match[1]!, pid: Number(match[2]), session: match[3]! };
}

const closing: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closing.reverse()) await close().catch(() => undefined);
  await noChildren('after the HTTP upstream faults');
});

/** The gateway over `servers` with its health paths (see `healthServedGateway`), closed after the file. */
async function servedGateway(servers: Record<string, unknown>) {
  const started = await healthServedGateway(servers);
  closing.push(() => started.close());
  return started;
}

/** A Switchboard client of the gateway at `url` (see `switchboardClient`), closed after the file. */
async function clientOf(url: string, name: string, era?: 'legacy') {
  const opened = await switchboardClient(url, name, era);
  closing.push(() => opened.client.close());
  return opened;
}

describe('gateway: an HTTP upstream restarted mid-call', () => {
  test('legacy and 2026-07-28 upstreams killed under calls of both eras: errors naming them, /readyz down then up, the next calls work, the rest untouched', async () => {
    const old = await startHttpUpstream('legacy', 'old');
    const fresh = await startHttpUpstream('modern', 'new');
    const started = await servedGateway({
      old: { url: old.url },
      new: { url: fresh.url },
      local: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'local' } },
    });
    const legacy = await clientOf(started.url, 'lee', 'legacy');
    const modern = await clientOf(started.url, 'mo');
    // A client that calls nothing on the upstream that dies: its calls elsewhere go on.
    const bystander = await clientOf(started.url, 'bea', 'legacy');
    const state = async (name: string) => (await started.readyz(name)).state;

    for (const [name, other] of [
      ['old', 'new'],
      ['new', 'old'],
    ] as const) {
      const running = name === 'old' ? old : fresh;
      const before = {
        legacy: whoami(await legacy.client.callTool(`${name}__whoami`)),
        modern: whoami(await modern.client.callTool(`${name}__whoami`)),
        bystander: whoami(await bystander.client.callTool(`${other}__whoami`)),
      };
      assert.equal(before.legacy.label, name);
      const holds = [legacy.client.callTool(`${name}__hold`), modern.client.callTool(`${name}__hold`)];
      await running.line(/^start hold /, 2);
      await running.kill();
      // Both calls in flight end, with an error result naming the upstream (a tool call's failure
      // is the model's to read), and nothing hangs.
      for (const result of await Promise.all(holds)) {
        assert.equal(result.isError, true, textOf(result));
        assert.match(textOf(result), new RegExp(`^Upstream "${name}": `));
      }
      await until(async () => (await state(name)) !== 'up', `/readyz to show "${name}" down`);
      const down = await started.readyz(name);
      assert.match(down.lastError ?? '', /127\.0\.0\.1/, JSON.stringify(down));
      // While it is down a call to it fails at once, naming it (2026-07-28: it is unavailable;
      // legacy: its own session's POST is refused), until its circuit opens (three failed
      // reconnects): then its tools are off the lists (list_changed) and unknown.
      const gone = new RegExp(`^Unknown tool: "${name}__whoami"`);
      const refused = await modern.client.callTool(`${name}__whoami`).then(textOf, (e: Error) => e.message);
      assert.match(
        refused,
        new RegExp(
          `^Upstream "${name}" is unavailable \\((failing|circuit-open)\\): .*127\\.0\\.0\\.1|${gone.source}`,
          's',
        ),
      );
      const unreached = await legacy.client.callTool(`${name}__whoami`).then(textOf, (e: Error) => e.message);
      assert.match(unreached, new RegExp(`^Upstream "${name}"|${gone.source}`));
      assert.equal(
        whoami(await bystander.client.callTool(`${other}__whoami`)).session,
        before.bystander.session,
      );
      assert.match(textOf(await legacy.client.callTool('local__whoami')), /^local pid \d+$/);
      assert.equal(await state(other), 'up');

      // Started again on the same port: /readyz recovers, and the next calls work.
      await startHttpUpstream(name === 'old' ? 'legacy' : 'modern', name, running.port);
      await until(async () => (await state(name)) === 'up', `/readyz to show "${name}" up again`);
      // Its tools are back once listed again (they leave the lists when its circuit opens: list_changed).
      await until(
        async () => (await legacy.client.listTools()).tools.some((tool) => tool.name === `${name}__whoami`),
        `the tools of "${name}" listed again`,
      );
      const after = {
        legacy: whoami(await legacy.client.callTool(`${name}__whoami`)),
        modern: whoami(await modern.client.callTool(`${name}__whoami`)),
      };
      assert.notEqual(after.legacy.pid, before.legacy.pid, 'a new process answers');
      if (name === 'old') {
        // The legacy client's upstream session was forgotten with the process: a new one, transparently.
        assert.notEqual(after.legacy.session, before.legacy.session);
        assert.notEqual(after.legacy.session, '-');
        assert.ok((await started.readyz(name)).sessionsReopened >= 1, 'counted as reopened');
      } else {
        // 2026-07-28: no session to reopen.
        assert.equal(after.modern.session, '-');
      }
      assert.equal(
        whoami(await bystander.client.callTool(`${other}__whoami`)).session,
        before.bystander.session,
      );
    }
    assert.equal(started.gateway.health().find((h) => h.name === 'local')?.state, 'up');
    legacy.assertClean();
    modern.assertClean();
    bystander.assertClean();
  });

  test('restarted (killed, started again at once on its port) under a tool call and a prompt of each era: each fails naming it and what broke, is not sent again, the next call heals, the other client untouched', async () => {
    const old = await startHttpUpstream('legacy', 'old');
    const fresh = await startHttpUpstream('modern', 'new');
    const running = { old, new: fresh };
    const started = await servedGateway({ old: { url: old.url }, new: { url: fresh.url } });
    const legacy = await clientOf(started.url, 'ria', 'legacy');
    const modern = await clientOf(started.url, 'rob');
    // Calls nothing on the upstream that restarts: its upstream session on the other stays its own.
    const bystander = await clientOf(started.url, 'rex', 'legacy');
    for (const [name, other] of [
      ['old', 'new'],
      ['new', 'old'],
    ] as const) {
      const before = {
        legacy: whoami(await legacy.client.callTool(`${name}__whoami`)),
        legacyElsewhere: whoami(await legacy.client.callTool(`${other}__whoami`)),
        bystander: whoami(await bystander.client.callTool(`${other}__whoami`)),
      };
      whoami(await modern.client.callTool(`${name}__whoami`));
      const outcome = (call: Promise<unknown>) =>
        call.then(
          (result) => result as CallToolResult,
          (error: unknown) => error,
        );
      const inFlight = [
        outcome(legacy.client.callTool(`${name}__hold`)),
        outcome(modern.client.callTool(`${name}__hold`)),
        outcome(legacy.client.getPrompt(`${name}__hold`)),
        outcome(modern.client.getPrompt(`${name}__hold`)),
      ];
      await running[name].line(/^start hold /, 2);
      await running[name].line(/^start hold-prompt /, 2);
      // The restart: the process dies under the calls and a new one listens on the same port, as
      // soon as it can (nothing waits for the gateway to notice).
      const port = running[name].port;
      await running[name].kill();
      running[name] = await startHttpUpstream(name === 'old' ? 'legacy' : 'modern', name, port);
      const [legacyTool, modernTool, legacyPrompt, modernPrompt] = await Promise.all(inFlight);
      // A tool call: its error result, naming the upstream and the stream that broke under it.
      for (const result of [legacyTool, modernTool] as CallToolResult[]) {
        assert.equal(result.isError, true, textOf(result));
        assert.match(textOf(result), new RegExp(`^Upstream "${name}": .*127\\.0\\.0\\.1:${port}`, 's'));
      }
      // Any other method: a JSON-RPC error (-32603) saying the same.
      for (const error of [legacyPrompt, modernPrompt]) {
        assert.ok(error instanceof ProtocolError, String(error));
        assert.equal(error.code, ErrorCode.InternalError);
        assert.match(error.message, new RegExp(`^Upstream "${name}": .*127\\.0\\.0\\.1:${port}`, 's'));
      }
      // Under load the new process may listen only after the gateway's third reconnect met the port
      // closed: the circuit is then open and the upstream's items are off the lists (as designed)
      // until the backoff finds it. Else, as is usual, they stay and the call below heals at once.
      if ((await started.readyz(name)).state === 'circuit-open')
        await until(async () => (await started.readyz(name)).state === 'up', `"${name}" found again`);
      // The legacy client's next call heals: its upstream session, forgotten by the new process
      // (404), is replaced for it alone.
      const healed = whoami(await legacy.client.callTool(`${name}__whoami`));
      assert.notEqual(healed.pid, before.legacy.pid, 'the new process answers');
      if (name === 'old') assert.notEqual(healed.session, before.legacy.session);
      // A 2026-07-28 client's calls go on the gateway's own session, back once the gateway found the
      // new process (at once, or after the backoff if its check met the port closed).
      await until(async () => (await started.readyz(name)).state === 'up', `"${name}" up again`);
      assert.equal(whoami(await modern.client.callTool(`${name}__whoami`)).pid, healed.pid);
      // Nothing that was in flight ran again on the new process.
      assert.deepEqual(running[name].printed(/^start /), []);
      // The failed client's session elsewhere, and the other client's, are as they were.
      assert.deepEqual(whoami(await legacy.client.callTool(`${other}__whoami`)), before.legacyElsewhere);
      assert.deepEqual(whoami(await bystander.client.callTool(`${other}__whoami`)), before.bystander);
    }
    legacy.assertClean();
    modern.assertClean();
    bystander.assertClean();
  });
});

describe('gateway: an HTTP upstream that stops answering while a read is in flight on the gateway’s own session', () => {
  test('the check after a failed call closes that session: the read fails naming the upstream and its address, and is not sent again', async () => {
    // In this process, so that new requests can be cut while the one in flight keeps its stream.
    const server = new Server({ name: 'deafening', version: '1.0.0' });
    let prompts = 0;
    server.registerPrompt(
      'hold',
      { description: 'Answers when cancelled.' },
      (_args, ctx) =>
        new Promise<{ messages: [] }>((resolve) => {
          prompts++;
          ctx.signal.addEventListener('abort', () => resolve({ messages: [] }));
        }),
    );
    server.registerTool('whoami', { description: 'Answers.' }, () => 'here');
    const handler = createHttpHandler(server);
    const http = await listen(toNodeListener(handler));
    closing.push(async () => {
      await handler.close();
      await http.close();
    });
    const started = await servedGateway({ deaf: { url: http.url } });
    const modern = await clientOf(started.url, 'dee');
    const prompt = modern.client.getPrompt('deaf__hold').then(
      () => 'answered',
      (error: unknown) => error,
    );
    await until(() => prompts === 1, 'the prompt running upstream');
    // Every new request's connection is cut from now on (the gateway's check of its session too).
    http.swap((req) => req.socket.destroy());
    const cut = await modern.client.callTool('deaf__whoami');
    assert.equal(cut.isError, true, textOf(cut));
    assert.match(textOf(cut), /^Upstream "deaf": /);
    const error = await prompt;
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, ErrorCode.InternalError);
    const address = new URL(http.url).host.replace(/\./g, '\\.');
    assert.match(
      error.message,
      new RegExp(`^Upstream "deaf": .*${address}.*closed before 'prompts/get'`, 's'),
    );
    assert.equal(prompts, 1, 'not sent again');
    assert.notEqual((await started.readyz('deaf')).state, 'up');
    modern.assertClean();
  });
});

describe('gateway: a legacy HTTP+SSE upstream whose event stream drops', () => {
  test('the stream cut under calls, then the process killed under calls: errors naming it, reconnected, the next calls work', async () => {
    let sse = await startHttpUpstream('legacy', 'old');
    const started = await servedGateway({
      old: { type: 'sse', url: sse.sseUrl },
      local: { command: process.execPath, args: [UPSTREAM], env: { UPSTREAM_LABEL: 'local' } },
    });
    const legacy = await clientOf(started.url, 'sid', 'legacy');
    const modern = await clientOf(started.url, 'sol');
    const state = async () => (await started.readyz('old')).state;
    const namesIt = (result: CallToolResult) => {
      assert.equal(result.isError, true, textOf(result));
      assert.match(textOf(result), /^Upstream "old": .*(HTTP\+SSE|127\.0\.0\.1)/s);
    };
    const first = whoami(await legacy.client.callTool('old__whoami'));
    whoami(await modern.client.callTool('old__whoami'));

    // The server cuts every event stream (the catalog's, the legacy client's, the lease's) mid-call.
    let holds = [legacy.client.callTool('old__hold'), modern.client.callTool('old__hold')];
    // A prompt (a read, safe to repeat) in flight too, on the legacy client's own session.
    const prompt = legacy.client.getPrompt('old__hold').then(
      (result) => result,
      (error: unknown) => error,
    );
    await sse.line(/^start hold /, 2);
    await sse.line(/^start hold-prompt /);
    namesIt(await legacy.client.callTool('old__drop'));
    for (const result of await Promise.all(holds)) namesIt(result);
    // The read goes again, once, on a new session, which answers it; unless the gateway saw its own
    // session drop first (the streams end together): then the upstream is failing, and the read
    // fails at once naming it.
    const again = await Promise.race([prompt, sse.line(/^start hold-prompt /, 2).then((line) => line)]);
    if (typeof again === 'string') {
      assert.notEqual(again, await sse.line(/^start hold-prompt /), 'on a new session');
      assert.equal(textOf(await legacy.client.callTool('old__release')), 'released 1');
      const answered = (await prompt) as GetPromptResult;
      assert.deepEqual(answered.messages[0]?.content, { type: 'text', text: 'released' });
    } else {
      assert.ok(again instanceof ProtocolError, String(again));
      assert.match(again.message, /^Upstream "old" is unavailable \(failing\): .*HTTP\+SSE/s);
    }
    // Every dropped session counted: the gateway's own, the legacy client's, the one leased for the
    // 2026-07-28 call.
    await until(async () => (await started.readyz('old')).sessionsLost >= 3, 'the dropped sessions counted');
    const lostToDrop = (await started.readyz('old')).sessionsLost;
    // The transport cannot resume: the gateway opens new sessions (its own with a backoff).
    await until(async () => (await started.readyz('old')).restarts >= 1, 'the catalog session reopened');
    await until(async () => (await state()) === 'up', 'the upstream up again');
    const second = whoami(await legacy.client.callTool('old__whoami'));
    assert.equal(second.pid, first.pid);
    assert.notEqual(second.session, first.session, 'a new HTTP+SSE session for the legacy client');
    whoami(await modern.client.callTool('old__whoami'));

    // The process dies under calls, and comes back on the same port.
    holds = [legacy.client.callTool('old__hold'), modern.client.callTool('old__hold')];
    await sse.line(/^start hold /, 4);
    await sse.kill();
    for (const result of await Promise.all(holds)) namesIt(result);
    await until(async () => (await state()) !== 'up', '/readyz to show it down');
    const down = await started.readyz('old');
    assert.match(down.lastError ?? '', new RegExp(`127\\.0\\.0\\.1:${sse.port}`), JSON.stringify(down));
    assert.match(textOf(await legacy.client.callTool('local__whoami')), /^local pid \d+$/);
    sse = await startHttpUpstream('legacy', 'old', sse.port);
    await until(async () => (await state()) === 'up', '/readyz to show it up again');
    await until(
      async () => (await legacy.client.listTools()).tools.some((tool) => tool.name === 'old__whoami'),
      'its tools listed again',
    );
    assert.notEqual(whoami(await legacy.client.callTool('old__whoami')).pid, first.pid);
    assert.notEqual(whoami(await modern.client.callTool('old__whoami')).pid, first.pid);
    // The gateway's own session and the legacy client's, at least (a leased session the gateway
    // closed itself, its call failed, before it saw the stream end is not counted as lost).
    assert.ok(
      (await started.readyz('old')).sessionsLost >= lostToDrop + 2,
      'the sessions the process took along counted',
    );
    legacy.assertClean();
    modern.assertClean();
  });
});

describe('gateway: an HTTP upstream that hangs mid-response', () => {
  test('headers, then nothing: the call ends at its timeout, the request is cancelled, a lease is closed and never handed on', async () => {
    const old = await startHttpUpstream('legacy', 'old');
    const fresh = await startHttpUpstream('modern', 'new');
    const started = await servedGateway({
      old: { url: old.url, timeoutMs: 3000 },
      new: { url: fresh.url, timeoutMs: 3000 },
    });
    const legacy = await clientOf(started.url, 'hal', 'legacy');
    const modern = await clientOf(started.url, 'hep');
    const other = await clientOf(started.url, 'ora');
    const timedOut = (name: string, result: CallToolResult) => {
      assert.equal(result.isError, true, textOf(result));
      assert.match(textOf(result), new RegExp(`^Upstream "${name}": .*got no response within \\d+ ms`, 's'));
    };

    // A 2026-07-28 client's call to a legacy upstream runs on a session leased for it alone.
    timedOut('old', await modern.client.callTool('old__hang'));
    const leased = (await old.line(/^start hang /)).split(' ')[2]!;
    await old.line(new RegExp(`^aborted hang ${leased}$`));
    // The upstream may still answer there (and log, and ask): the lease is closed, not handed on.
    await old.line(new RegExp(`^closed ${leased}$`));
    const next = [
      whoami(await other.client.callTool('old__whoami')),
      whoami(await modern.client.callTool('old__whoami')),
    ];
    for (const answer of next) assert.notEqual(answer.session, leased);

    // A legacy client's own session: the call is cancelled upstream, the session stays the client's.
    const own = whoami(await legacy.client.callTool('old__whoami')).session;
    timedOut('old', await legacy.client.callTool('old__hang'));
    await old.line(new RegExp(`^aborted hang ${own}$`));
    assert.equal(whoami(await legacy.client.callTool('old__whoami')).session, own);
    // Any other method says the same, as a JSON-RPC error.
    await assert.rejects(
      legacy.client.getPrompt('old__hang'),
      /Upstream "old": .*got no response within \d+ ms/s,
    );

    // A 2026-07-28 upstream: the request's stream is closed, which cancels it there.
    timedOut('new', await modern.client.callTool('new__hang'));
    await fresh.line(/^aborted hang -$/);
    assert.equal(whoami(await modern.client.callTool('new__whoami')).label, 'new');
    for (const name of ['old', 'new']) assert.equal(await started.readyz(name).then((h) => h.state), 'up');
    legacy.assertClean();
    modern.assertClean();
    other.assertClean();
  });
});

describe('gateway: a 2026-07-28 client that leaves mid-call', () => {
  test('closing its connection cancels the call on a legacy and on a 2026-07-28 HTTP upstream', async () => {
    const old = await startHttpUpstream('legacy', 'old');
    const fresh = await startHttpUpstream('modern', 'new');
    const started = await servedGateway({ old: { url: old.url }, new: { url: fresh.url } });
    const modern = await clientOf(started.url, 'lea');
    // The gateway is told by the call's Cancellable (no signal per call): the upstream still hears.
    for (const [name, upstream, session] of [
      ['old', old, '\\S+'],
      ['new', fresh, '-'],
    ] as const) {
      const leaving = new AbortController();
      const call = modern.client.callTool(`${name}__hold`, {}, { signal: leaving.signal });
      await upstream.line(new RegExp(`^start hold ${session}$`));
      leaving.abort();
      await assert.rejects(call);
      await upstream.line(new RegExp(`^aborted hold ${session}$`));
    }
    assert.equal(whoami(await modern.client.callTool('new__whoami')).label, 'new');
  });
});

describe('gateway: the sessions a legacy upstream leases to 2026-07-28 calls', () => {
  test('held to maxSessions: calls beyond it wait their turn (first come, first served), give up when cancelled', async () => {
    const old = await startHttpUpstream('legacy', 'old');
    const started = await servedGateway({ old: { url: old.url, maxSessions: 1, timeoutMs: 60_000 } });
    const modern = await clientOf(started.url, 'lia');
    const outcome = (call: Promise<CallToolResult>) =>
      call.then(
        (result) => textOf(result),
        (error: Error) => error.message,
      );

    // Three at once with one lease: they take turns on that one session, none is refused.
    const answers = await Promise.all([1, 2, 3].map(() => modern.client.callTool('old__whoami')));
    const sessions = new Set(answers.map((answer) => whoami(answer).session));
    assert.equal(sessions.size, 1, `one leased session: ${[...sessions].join(', ')}`);
    assert.equal((await started.readyz('old')).sessions, 1);

    // A call holds the lease (its wait and its timeout are tested in lease-pool.test.ts).
    const holding = new AbortController();
    const hold = outcome(modern.client.callTool('old__hold', {}, { signal: holding.signal }));
    await old.line(/^start hold /);
    // A waiting call that is cancelled stops waiting.
    const leaving = new AbortController();
    const left = outcome(modern.client.callTool('old__whoami', {}, { signal: leaving.signal }));
    await until(async () => (await started.readyz('old')).leaseWaits === 1, 'a call to wait');
    leaving.abort();
    await left;
    await until(
      async () => (await started.readyz('old')).leaseWaits === 0,
      'the cancelled call gone from the queue',
    );
    // One waiting when the holder leaves: it gets a session (the held one is closed, a new one opens).
    const next = modern.client.callTool('old__whoami');
    await until(async () => (await started.readyz('old')).leaseWaits === 1, 'a third call to wait');
    assert.equal(await started.metric('switchboard_gateway_upstream_lease_waits', 'old'), 1);
    holding.abort();
    await hold;
    assert.equal(whoami(await next).label, 'old');
    assert.ok((await started.readyz('old')).sessions <= 1, 'never more than the cap');
    modern.assertClean();
  });
});

describe('gateway: health checks of idle HTTP upstreams', () => {
  test('a legacy and a 2026-07-28 upstream killed while no call runs: /readyz shows each failing, then up once it is back on the same port', async () => {
    let old = await startHttpUpstream('legacy', 'old');
    let fresh = await startHttpUpstream('modern', 'new');
    closing.push(
      () => old.kill(),
      () => fresh.kill(),
    );
    // A short interval, so the check runs several times within the test.
    const started = await healthServedGateway({
      old: { url: old.url, healthCheckIntervalMs: 200 },
      new: { url: fresh.url, healthCheckIntervalMs: 200 },
    });
    closing.push(() => started.close());
    const modern = await switchboardClient(started.url, 'ida');
    closing.push(() => modern.client.close());
    const state = async (name: string) => (await started.readyz(name)).state;
    for (const [name, other] of [
      ['old', 'new'],
      ['new', 'old'],
    ] as const) {
      const running = name === 'old' ? old : fresh;
      const before = whoami(await modern.client.callTool(`${name}__whoami`));
      assert.equal(before.label, name);
      // Nothing runs on it when it dies: only the gateway's own check can tell.
      await running.kill();
      await until(async () => (await state(name)) !== 'up', `/readyz to show "${name}" down with no call`);
      const down = await started.readyz(name);
      assert.match(down.lastError ?? '', /127\.0\.0\.1/, JSON.stringify(down));
      assert.equal(await state(other), 'up');
      const again = await startHttpUpstream(name === 'old' ? 'legacy' : 'modern', name, running.port);
      if (name === 'old') old = again;
      else fresh = again;
      await until(async () => (await state(name)) === 'up', `/readyz to show "${name}" up again`);
      await until(
        async () => (await modern.client.listTools()).tools.some((tool) => tool.name === `${name}__whoami`),
        `the tools of "${name}" listed again`,
      );
      assert.notEqual(whoami(await modern.client.callTool(`${name}__whoami`)).pid, before.pid);
    }
    modern.assertClean();
  });

  test('an upstream that answers ping with method-not-found (-32601) is up: pinged again and again, never restarted', async () => {
    const old = await startHttpUpstream('legacy', 'old', 0, { UPSTREAM_NO_PING: '1' });
    closing.push(() => old.kill());
    const started = await healthServedGateway({ old: { url: old.url, healthCheckIntervalMs: 200 } });
    closing.push(() => started.close());
    // Three pings: had the first counted as a failure, the upstream would have been reconnected
    // (restarts) before the next could be sent.
    await old.line(/^ping /, 3);
    const health = await started.readyz('old');
    assert.equal(health.state, 'up', JSON.stringify(health));
    assert.equal(health.restarts, 0, JSON.stringify(health));
    const modern = await switchboardClient(started.url, 'ned');
    closing.push(() => modern.client.close());
    assert.equal(whoami(await modern.client.callTool('old__whoami')).label, 'old');
    modern.assertClean();
  });
});

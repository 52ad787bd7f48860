/**
 * A task passed through from an upstream is bound to the caller who made it: its id carries a tag
 * only that caller's requests verify. Another principal presenting the id (even for a tool denied
 * to them) gets exactly the answer of an id the gateway never made, on `tasks/get`, `tasks/update`
 * and `tasks/cancel`, and the upstream never sees those requests; nor an untagged upstream id sent
 * straight. Without `gateway.auth` the one anonymous caller's ids are tagged and checked the same.
 * A 2025-11-25 `tasks/list` lists the caller's own passed-on tasks (none: see forwarding.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../../src/extensions/client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { until } from '../helpers/wait.js';
import { connect } from './cluster-nodes.js';
import { frontDoorOver, gatewayOver, protocolFailure, taskUpstream, textOf } from './helpers.js';

const ALICE = randomBytes(32).toString('base64url');
const BOB = randomBytes(32).toString('base64url');

/** A made-up task id in the gateway's form: what it answers for an id it never made. */
const NEVER_MADE = 'up__AAAAAAAAAAAAAAAAAAAAAA.nope';

/** `tasks/get`, `tasks/update` and `tasks/cancel` of `taskId` by `client`: each one's error. */
async function refusals(client: Client, taskId: string) {
  const answers = [];
  for (const [method, extra] of [
    ['tasks/get', {}],
    ['tasks/update', { inputResponses: { q: { action: 'accept', content: { name: 'bob' } } } }],
    ['tasks/cancel', {}],
  ] as const) {
    const refused = await protocolFailure(
      client.request(method as 'ping', { taskId, ...extra } as never, { unchecked: true }),
    );
    answers.push({
      method,
      code: refused.code,
      message: refused.message.replaceAll(JSON.stringify(taskId), 'ID'),
    });
  }
  return answers;
}

describe('gateway.auth: a task belongs to the principal who made it', () => {
  let upstream: Awaited<ReturnType<typeof taskUpstream>>;
  let started: Awaited<ReturnType<typeof frontDoorOver>>;

  before(async () => {
    upstream = await taskUpstream('up');
    started = await frontDoorOver(upstream.url, { alice: ALICE, bob: BOB }, [
      { principals: ['alice'], allow: ['up__*'] },
      // bob may not use `wait` at all: alice's task of it is no more his than any other.
      { principals: ['bob'], allow: ['up__confirm'] },
    ]);
  });
  after(async () => {
    await started?.close();
    await upstream?.close();
  });

  test("bob, with alice's task id, gets the unknown-task answer on get, update and cancel; the upstream sees none of it", async () => {
    const alice = await connect(started.url, ALICE, 'auto', true);
    const bob = await connect(started.url, BOB, 'auto', true);
    try {
      const task = await alice.callToolAsTask('up__wait', { gate: 'one' });
      const taskId = task.taskId!;
      assert.match(taskId, /^up__[A-Za-z0-9_-]{22}\./, 'the id names its upstream and carries its tag');
      assert.equal((await task.refresh()).status, 'working');
      const upstreamId = taskId.slice(taskId.indexOf('.') + 1);
      const before = upstream.seen.length;

      const unknown = await refusals(bob, NEVER_MADE);
      assert.equal(unknown[0]!.code, ErrorCode.InvalidParams);
      assert.match(unknown[0]!.message, /^Task not found: ID\./);
      assert.deepEqual(await refusals(bob, taskId), unknown, "alice's task is unknown to bob");
      // The upstream's own id, sent straight (the gateway stands in for one upstream), or the id with
      // its tag taken off: unknown too, also to alice.
      assert.deepEqual(await refusals(bob, upstreamId), unknown);
      assert.deepEqual(await refusals(bob, `up__${upstreamId}`), unknown);
      assert.deepEqual(await refusals(alice, upstreamId), unknown);
      assert.deepEqual(upstream.seen.slice(before), [], 'no refused request reached the upstream');
      assert.deepEqual(upstream.cancelled, []);

      // Alice's own requests go on as before.
      assert.equal((await task.refresh()).status, 'working');
      upstream.open('one');
      assert.equal(textOf(await task.result()), 'up released one');
      assert.ok(upstream.seen.slice(before).every((request) => request.taskId === upstreamId));
      assert.ok(upstream.seen.length > before);
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  test("a task's question is answered by its own caller alone; cancel too", async () => {
    const alice = await connect(started.url, ALICE, 'auto', true);
    const bob = await connect(started.url, BOB, 'auto', true);
    alice.onElicitation(() => ({ action: 'accept', content: { name: 'alice' } }));
    try {
      const asking = await bob.callToolAsTask('up__confirm', {});
      // alice may use `confirm` herself, and still cannot answer or cancel bob's task.
      const refused = await refusals(alice, asking.taskId!);
      assert.deepEqual(refused, await refusals(alice, NEVER_MADE));
      const waiting = await alice.callToolAsTask('up__wait', { gate: 'two' });
      await waiting.cancel();
      assert.equal((await waiting.refresh()).status, 'cancelled');
      await until(() => upstream.cancelled.length > 0, "alice's task stopped");
      assert.deepEqual(upstream.cancelled, ['two']);
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  test('a 2025-11-25 tasks/list lists only what was passed on to the caller: nothing from the upstream', async () => {
    const alice = await connect(started.url, ALICE, 'legacy');
    try {
      const before = upstream.seen.length;
      assert.deepEqual(await alice.listTasks(), { tasks: [] });
      assert.deepEqual(upstream.seen.slice(before), []);
    } finally {
      await alice.close();
    }
  });
});

describe('without gateway.auth: the anonymous caller’s task ids are tagged and checked too', () => {
  test('its own id works; the upstream id sent straight, or a changed tag, is unknown', async () => {
    const upstream = await taskUpstream('up');
    const started = await gatewayOver({ up: { url: upstream.url } });
    const client = await connect(started.url, 'none', 'auto', true);
    try {
      const task = await client.callToolAsTask('up__wait', { gate: 'three' });
      const taskId = task.taskId!;
      assert.match(taskId, /^up__[A-Za-z0-9_-]{22}\./);
      const before = upstream.seen.length;
      const unknown = await refusals(client, NEVER_MADE);
      const tag = taskId.slice(4, 26);
      const changed = `up__${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}${taskId.slice(26)}`;
      assert.deepEqual(await refusals(client, changed), unknown);
      assert.deepEqual(await refusals(client, taskId.slice(27)), unknown);
      assert.deepEqual(upstream.seen.slice(before), []);
      upstream.open('three');
      assert.equal(textOf(await task.result()), 'up released three');
    } finally {
      await client.close();
      await started.close();
      await upstream.close();
    }
  });
});

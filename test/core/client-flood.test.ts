/**
 * A legacy server flooding the client with requests (issue 15): the client serves at most 16 at
 * once, keeps up to 1,024 more waiting in order, and refuses the rest at once with an error; the
 * waiting ones are served as turns free up, and one cancelled while waiting never runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { fakeServer, legacyInit } from '../helpers/fake-server.js';

const CONCURRENT = 16;
const QUEUED = 1024;

test('server requests: 16 served at once, 1,024 waiting, the rest refused; the waiting ones all answered', async () => {
  const server = fakeServer((request) =>
    request.method === 'initialize' ? legacyInit('2025-11-25') : { result: {} },
  );
  const client = new Client({ name: 'c', version: '1' }, { version: { pin: '2025-11-25' } });
  let running = 0;
  let most = 0;
  const asked: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const total = CONCURRENT + QUEUED + 50;
  let served = 0;
  let allServed!: () => void;
  const done = new Promise<void>((resolve) => {
    allServed = resolve;
  });
  client.onElicitation(async (params) => {
    asked.push(params.message);
    running++;
    most = Math.max(most, running);
    await gate;
    running--;
    if (++served === CONCURRENT + QUEUED - 1) allServed();
    return { action: 'decline' };
  });
  await client.connect(server.channel);
  const elicit = (i: number) => ({
    jsonrpc: '2.0',
    id: `e${i}`,
    method: 'elicitation/create',
    params: { message: `m${i}`, requestedSchema: { type: 'object', properties: {} } },
  });
  for (let i = 0; i < total; i++) server.send(elicit(i));
  // One waiting request is cancelled: it must never reach the handler.
  server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'e20' } });
  // Two round trips: every flood frame reached the client, then every answer to it reached us.
  await client.ping();
  await client.ping();

  const answers = () => server.received.filter((f) => !('method' in f));
  assert.equal(running, CONCURRENT);
  assert.equal(most, CONCURRENT);
  const refused = answers();
  assert.equal(refused.length, total - CONCURRENT - QUEUED, 'only the ones past the queue are answered yet');
  for (const answer of refused) {
    assert.equal(answer.error?.code, ErrorCode.InternalError, JSON.stringify(answer));
    assert.match(
      answer.error.message,
      /^Too many requests at once: 16 of your requests are being served and 1024 more are waiting/,
    );
    assert.ok(
      Number(String(answer.id).slice(1)) >= CONCURRENT + QUEUED,
      `${answer.id} was refused, not a later one`,
    );
  }

  open();
  await done;
  await client.ping();
  await client.ping();
  const declined = answers().filter((a) => a.result?.action === 'decline');
  assert.equal(
    declined.length,
    CONCURRENT + QUEUED - 1,
    'every waiting request but the cancelled one answered',
  );
  assert.equal(most, CONCURRENT, 'never more than 16 at once');
  assert.ok(!asked.includes('m20'), 'the request cancelled while waiting never ran');
  // Served in arrival order.
  assert.deepEqual(
    asked,
    Array.from({ length: CONCURRENT + QUEUED }, (_, i) => `m${i}`).filter((m) => m !== 'm20'),
  );
  await client.close();
});

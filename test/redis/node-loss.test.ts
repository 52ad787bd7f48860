/**
 * A node dies under a legacy session (2025-11-25): three nodes in processes of their own on one real
 * Redis, behind a real nginx in round-robin. The node holding the client's GET stream is killed
 * (SIGKILL) while it streams notifications and runs one of the client's calls, and the last events
 * it sent never reach the client (lost with the connection): the call fails with an error the
 * client sees (nothing hangs), the client resumes its GET stream on another node with
 * `Last-Event-ID`, and it has every event the dead node stored, once and in order (the lost ones
 * from the replay out of Redis); the changes made afterwards reach it through the node that took the
 * stream over. With the official SDK v1 client and with Switchboard's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { until } from '../helpers/wait.js';
import { type ProcessCluster, startProcessCluster } from './cluster.js';
import { LEGACY_CLIENTS, Valve } from './legacy-clients.js';

trapUnhandledRejections();

/** The URIs the client follows: `tick://0` .. `tick://59`. */
const TICKS = 60;

/** The `resources/updated` URIs the HTTP event store keeps for the session's GET stream (stream 0). */
async function storedUpdates(cluster: ProcessCluster, sessionId: string): Promise<string[]> {
  const redis = new Redis(cluster.redis.url);
  try {
    const entries = await redis.lrange(`${cluster.prefix}e:${sessionId}`, 0, -1);
    return entries
      .filter((entry) => entry.startsWith('0 '))
      .map((entry) => entry.slice(entry.indexOf(' ', 2) + 1))
      .map((data) => (JSON.parse(data) as { params: { uri: string } }).params.uri);
  } finally {
    redis.disconnect();
  }
}

/**
 * How the running call's answer was coming: as JSON (nothing sent before it: the dead node's HTTP
 * response never started, nginx answers 502), or on an SSE stream (the call logged each tick: the
 * client resumes that stream on another node, which answers the call with an error once the dead
 * node's lease ran out).
 */
const REPLIES = [
  { reply: 'JSON', log: false, error: /502|Bad Gateway/ },
  {
    reply: 'SSE',
    log: true,
    error: /-32603|stopped before answering it; the request may or may not have run/,
  },
] as const;

for (const [label, open] of LEGACY_CLIENTS)
  for (const { reply, log, error } of REPLIES) {
    test(`${label}, call answered as ${reply}: the node holding the GET stream dies mid-stream; the client resumes on another node and misses no stored event; the call it ran fails`, async () => {
      const cluster = await startProcessCluster();
      try {
        const valve = new Valve();
        const client = await open(cluster.url, valve.fetch);
        const sessionId = client.sessionId()!;
        await until(() => cluster.nodes.some((node) => node.requests.includes('GET')), 'a GET stream');
        const holder = cluster.nodes.find((node) => node.requests.includes('GET'))!;
        for (let k = 0; k < TICKS; k++) await client.subscribe(`tick://${k}`);

        // Round-robin: the request after one served by the node before the holder goes to the holder.
        const previous = cluster.nodes[(cluster.nodes.indexOf(holder) + 2) % 3]!;
        await until(
          async () => (await client.callTool('echo')).startsWith(`${previous.name}:`),
          `a call served by ${previous.name}`,
        );
        const running = client.callTool('ticks', { from: 0, count: 50, log, hold: true }).then(
          (text) => text,
          (error: unknown) => error,
        );
        await until(() => client.updates.length >= 5, 'the holder streams ticks');
        // From here the client's GET stream loses what the holder sends, which the holder stores.
        valve.close();
        const live = client.updates.length;
        await until(
          async () => (await storedUpdates(cluster, sessionId)).length >= live + 5,
          'the holder stored events the client did not get',
        );
        await holder.kill();

        // The call the dead node was running fails, visibly, rather than hang.
        const outcome = await running;
        assert.ok(outcome instanceof Error, `the call on the dead node failed, got ${String(outcome)}`);
        assert.match(outcome.message, error);

        await until(
          () => cluster.nodes.some((node) => node !== holder && node.requests.includes('GET resume')),
          'the client resumed its GET stream on another node',
        );
        const stored = await storedUpdates(cluster, sessionId);
        await until(() => client.updates.length >= stored.length, 'every stored event reached the client');
        assert.ok(valve.lost > 0 && client.updates.length >= live + 5, 'some came only by the resumption');
        // Each tick once, in order: nothing stored was missed, nothing replayed twice.
        const expected = Array.from({ length: client.updates.length }, (_, k) => `tick://${k}`);
        assert.deepEqual(client.updates, expected);
        assert.deepEqual(client.updates.slice(0, stored.length), stored);

        // The stream goes on from another node: changes made now reach the client.
        const heard = client.updates.length;
        const survivor = await client.callTool('ticks', { from: 55, count: 3 });
        assert.match(survivor, /^[ABC] ticked$/);
        assert.notEqual(survivor[0], holder.name);
        await until(() => client.updates.length === heard + 3, 'the changes made after the loss');
        assert.deepEqual(client.updates.slice(heard), ['tick://55', 'tick://56', 'tick://57']);
        await client.close();
      } finally {
        await cluster.close();
      }
    });
  }

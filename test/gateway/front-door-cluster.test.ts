/**
 * `gateway.redis`: two `switchboard gateway` processes with one config behind nginx in plain
 * round-robin (no stickiness), sharing a real redis-server: 2026-07-28 calls land on either node,
 * a legacy session works through both (the Redis session store), a rate limit counts over both,
 * and when one node is killed mid-run the other serves what comes next.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  freePort,
  type LocalBalancer,
  type LocalRedis,
  startBalancer,
  startRedis,
} from '../../examples/cluster/services.js';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { ProtocolError } from '../../src/protocol/errors.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { CLI, CLI_ENV } from '../cli/run-cli.js';
import { spawnOwned } from '../helpers/owned-children.js';
import { pidOf, UPSTREAM } from './helpers.js';

const ALICE = randomBytes(32).toString('base64url');
const BOB = randomBytes(32).toString('base64url');

interface GatewayNode {
  readonly port: number;
  kill(signal: NodeJS.Signals): Promise<unknown>;
}

async function startNode(config: string): Promise<GatewayNode> {
  const port = await freePort();
  const child = spawnOwned(process.execPath, [CLI, 'gateway', config, '--port', String(port)], {
    env: { ...CLI_ENV, ALICE_KEY: ALICE, BOB_KEY: BOB },
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/serving 1 server at \S+\n/.test(stderr)) resolve();
    });
    child.on('exit', () => reject(new Error(`the gateway exited: ${stderr}`)));
  });
  return {
    port,
    kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

async function connect(url: string, key: string, era: 'auto' | 'legacy'): Promise<Client> {
  const client = new Client({ name: `cluster-${era}`, version: '1.0.0' }, { version: era });
  await client.connect(
    new StreamableHttpClientChannel(url, {
      fetch: nodeFetch,
      rememberEra: false,
      headers: { authorization: `Bearer ${key}` },
    }),
  );
  return client;
}

describe('gateway.redis: two gateway nodes behind round-robin nginx', () => {
  let redis: LocalRedis;
  let nodes: GatewayNode[];
  let balancer: LocalBalancer;
  let url: string;

  before(async () => {
    redis = await startRedis();
    const config = join(mkdtempSync(join(tmpdir(), 'gateway-cluster-')), 'team.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { local: { command: process.execPath, args: [UPSTREAM] } },
        gateway: {
          auth: { apiKeys: { alice: '${ALICE_KEY}', bob: '${BOB_KEY}' } },
          rateLimits: [{ principals: ['bob'], tools: ['local__whoami'], limit: '3/hour' }],
          redis: redis.url,
        },
      }),
    );
    nodes = [await startNode(config), await startNode(config)];
    balancer = await startBalancer(nodes.map((node) => `127.0.0.1:${node.port}`));
    url = `${balancer.origin}/mcp`;
  });
  after(async () => {
    await balancer?.stop();
    await Promise.all((nodes ?? []).map((node) => node.kill('SIGTERM')));
    await redis?.stop();
  });

  test('2026-07-28 calls land on both nodes; a rate limit counts over both', async () => {
    const alice = await connect(url, ALICE, 'auto');
    const bob = await connect(url, BOB, 'auto');
    try {
      assert.equal(alice.era, 'modern');
      const pids = new Set<number>();
      for (let i = 0; i < 4; i++) pids.add(pidOf(await alice.callTool('local__whoami', {})));
      assert.equal(pids.size, 2, 'each node answers from its own upstream');
      for (let i = 0; i < 3; i++) await bob.callTool('local__whoami', {});
      for (let i = 0; i < 2; i++) {
        // Whichever node takes it, the shared counter says no.
        const refused = await bob.callTool('local__whoami', {}).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(refused instanceof ProtocolError && refused.code === -32023, String(refused));
      }
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  test('a legacy session works through both nodes', async () => {
    const alice = await connect(url, ALICE, 'legacy');
    try {
      assert.equal(alice.era, 'legacy');
      const pids = new Set<number>();
      for (let i = 0; i < 4; i++) pids.add(pidOf(await alice.callTool('local__whoami', {})));
      // Round-robin spreads the session's POSTs over both nodes (its record is in Redis); each node
      // opens its own upstream session for it (docs/gateway.md: what needs stickiness).
      assert.equal(pids.size, 2);
      assert.deepEqual((await alice.listTools()).tools.map((t) => t.name).includes('local__whoami'), true);
    } finally {
      await alice.close();
    }
  });

  test('a node killed mid-run: the other serves what comes next', async () => {
    const alice = await connect(url, ALICE, 'auto');
    try {
      await alice.callTool('local__whoami', {});
      await nodes[0]!.kill('SIGKILL');
      const pids = new Set<number>();
      for (let i = 0; i < 4; i++) pids.add(pidOf(await alice.callTool('local__whoami', {})));
      assert.equal(pids.size, 1, 'only the live node answers');
      const fresh = await connect(url, ALICE, 'legacy');
      assert.ok(
        pidOf(await fresh.callTool('local__whoami', {})) > 0,
        'a new legacy session opens on the live node',
      );
      await fresh.close();
    } finally {
      await alice.close();
    }
  });
});

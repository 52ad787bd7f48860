/**
 * `npm run --silent cluster:demo` as a user runs it: it prints the balancer's URL, a client works
 * through it (each call reaching the next node), and Ctrl-C (SIGINT) stops the balancer, the nodes
 * and Redis: afterwards nothing listens on any of their ports.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect as tcpConnect } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';

const demo = fileURLToPath(new URL('../../examples/cluster/demo.js', import.meta.url));

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

test('cluster:demo serves through the balancer and Ctrl-C stops everything it started', async () => {
  const child = spawn(process.execPath, [demo], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C stops')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}):\n${output}`)));
  });
  const url = /round-robin at (\S+)/.exec(output)![1]!;
  const ports = [...output.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
  assert.ok(ports.length >= 5, `redis, the balancer and three nodes: ${output}`);

  const client = new Client({ name: 'demo-test', version: '1.0.0' });
  await client.connect(new StreamableHttpClientChannel(url, { fetch: nodeFetch, rememberEra: false }));
  assert.equal(client.era, 'modern');
  for (let i = 0; i < 3; i++) {
    assert.deepEqual((await client.callTool('add', { a: 2, b: i })).structuredContent, { sum: 2 + i });
  }
  await client.close();

  const exited = once(child, 'exit');
  child.kill('SIGINT');
  const [code] = await exited;
  assert.equal(code, 0, output);
  for (const port of new Set(ports)) assert.equal(await listening(port), false, `port ${port} still listens`);
});

/**
 * One "target → channel" for the CLI, check, the console and the gateway (node/target.ts): the
 * string form, how a target is shown, and the channel each kind opens with the caller's options.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/extensions/client.js';
import { describeTarget, openTarget, parseTarget, TargetError } from '../../src/node/target.js';
import type { FetchLike } from '../../src/transports/http/client/fetch-like.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { StdioClientChannel } from '../../src/transports/stdio/client-channel.js';

describe('targets', () => {
  test('a URL is an HTTP target, a command line a stdio one; what cannot be read is a TargetError', () => {
    assert.deepEqual(parseTarget(['node "a b.js" --x']), {
      kind: 'stdio',
      command: 'node',
      args: ['a b.js', '--x'],
    });
    assert.equal(
      String((parseTarget(['https://x.example/mcp']) as { url: URL }).url),
      'https://x.example/mcp',
    );
    assert.throws(() => parseTarget(['node a.js | tee']), TargetError);
    assert.throws(() => parseTarget(['http://[::1']), TargetError);
    assert.throws(() => parseTarget([]), /Missing the server/);
  });

  test('a target is shown as it would be typed', () => {
    assert.equal(
      describeTarget({ kind: 'stdio', command: 'node', args: ['my server.js', '--x'] }),
      'node "my server.js" --x',
    );
    assert.equal(
      describeTarget({ kind: 'http', url: new URL('http://127.0.0.1:1/mcp') }),
      'http://127.0.0.1:1/mcp',
    );
  });

  test('a stdio target opens a stdio channel running its command', async () => {
    const channel = openTarget(
      { kind: 'stdio', command: process.execPath, args: ['-e', 'process.stdin.resume()'] },
      { stdio: { stderr: 'pipe' } },
    );
    assert.ok(channel instanceof StdioClientChannel);
    channel.start({ message() {}, malformed() {}, closed() {} });
    assert.match(channel.label ?? '', /node|-e/);
    await channel.close();
  });

  test("an HTTP target's channel sends the target's headers through the caller's fetch", async () => {
    const seen: Headers[] = [];
    const fetch: FetchLike = async (_url, init) => {
      seen.push(new Headers(init?.headers as Record<string, string>));
      return new Response(null, { status: 500 });
    };
    const channel = openTarget(
      { kind: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'x-team': 'blue' } },
      { http: { fetch, rememberEra: false, transport: 'streamable' } },
    );
    assert.ok(channel instanceof StreamableHttpClientChannel);
    const client = new Client({ name: 't', version: '1' }, { version: 'legacy', timeoutMs: 5_000 });
    await assert.rejects(client.connect(channel));
    await client.close();
    assert.ok(seen.length > 0, 'the caller fetch was used');
    assert.equal(seen[0]?.get('x-team'), 'blue');
  });
});

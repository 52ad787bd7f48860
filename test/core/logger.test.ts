/**
 * One logger option for every component: what concerns no single call reaches the logger of the
 * Server or Client (and the channels they use inherit it), `onerror` keeps working beside it, and a
 * component without a logger stays silent (a stdio server channel alone writes to stderr).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import type { ChannelSink } from '../../src/engine/channel.js';
import { Client } from '../../src/extensions/client.js';
import { Server } from '../../src/extensions/server.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { StdioServerChannel } from '../../src/transports/stdio/server-channel.js';
import type { Logger } from '../../src/util/logger.js';

function recorder(): Logger & { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  return {
    errors,
    warnings,
    error: (error) => errors.push(error.message),
    warn: (message) => warnings.push(message),
  };
}

function sink(logger?: Logger): ChannelSink {
  return { message() {}, malformed() {}, closed() {}, logger };
}

describe('logger', () => {
  test("a client listener that throws reaches the client's logger and onerror, and fails no call", async () => {
    const server = new Server({ name: 's', version: '1' });
    server.registerTool('work', {}, (_args, ctx) => {
      ctx.log('info', 'working');
      return 'done';
    });
    const logger = recorder();
    const onerror: string[] = [];
    const client = new Client(
      { name: 'c', version: '1' },
      { logLevel: 'info', logger, onerror: (e) => onerror.push(e.message) },
    );
    client.onLog(() => {
      throw new Error('listener bug');
    });
    const [a, b] = createLinkedChannels();
    server.connect(b);
    await client.connect(a);
    const result = await client.callTool('work');
    assert.deepEqual(result.content, [{ type: 'text', text: 'done' }]);
    assert.deepEqual(logger.errors, ['listener bug']);
    assert.deepEqual(onerror, ['listener bug']);
    await client.close();
  });

  test("a server's problems reach its logger; a malformed frame is one", async () => {
    const logger = recorder();
    const server = new Server({ name: 's', version: '1' }, { logger });
    const [a, b] = createLinkedChannels();
    server.connect(b);
    const closed = new Promise<void>((resolve) => a.start({ ...sink(), closed: () => resolve() }));
    // A notification before initialize: no request to answer, so only the logger hears of it.
    a.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await server.close();
    await closed;
    assert.equal(logger.errors.length, 1);
    assert.match(logger.errors[0]!, /notifications\/initialized arrived before initialize/);
  });

  test('a stdio server channel reports a refused frame to its own logger, else to the one its owner passes', () => {
    const own = recorder();
    const inherited = recorder();
    const withOwn = new StdioServerChannel({
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      logger: own,
    });
    withOwn.start(sink(inherited));
    withOwn.send('{"a":\n1}');
    assert.equal(own.errors.length, 1);
    assert.equal(inherited.errors.length, 0);

    const without = new StdioServerChannel({ stdin: new PassThrough(), stdout: new PassThrough() });
    without.start(sink(inherited));
    without.send('{"a":\n1}');
    assert.equal(inherited.errors.length, 1);
    assert.match(inherited.errors[0]!, /newline/i);
    void withOwn.close();
    void without.close();
  });

  test("onSendError still takes a stdio channel's reports instead of the logger", () => {
    const logger = recorder();
    const refused: Error[] = [];
    const channel = new StdioServerChannel({
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      logger,
      onSendError: (error) => refused.push(error),
    });
    channel.start(sink());
    channel.send('{"a":\n1}');
    assert.equal(refused.length, 1);
    assert.deepEqual(logger.errors, []);
    void channel.close();
  });
});

/**
 * The gateway on its own server's pipeline: forwarded items are the server's pass-through items,
 * so `gateway.server.filterList` hides them in calls too (answered like unknown ones), a user
 * middleware sees every forwarded call, a schema the local compiler refuses is shown anyway, names
 * that collide at runtime follow the collision policy, and a 2026-07-28 client's call to a legacy
 * upstream gets a session of its own even while the catalog session reconnects.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Channel } from '../../src/engine/channel.js';
import type { Server } from '../../src/extensions/server.js';
import type { CallToolResult } from '../../src/protocol/types.js';
import { protocolFailure } from '../helpers/rejects.js';
import { counter, gate, until } from '../helpers/wait.js';
import { gatewayOver, switchboardClient, textOf, upstreamServer } from './helpers.js';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

describe('gateway: one pipeline', () => {
  const closing: Array<() => Promise<void>> = [];
  after(async () => {
    for (const close of closing.reverse()) await close();
  });

  test('filterList and a user middleware on gateway.server apply to forwarded calls, in both eras', async () => {
    let secretRuns = 0;
    const upstream = await upstreamServer((server) => {
      server.registerTool('visible', { description: 'Shown.' }, () => text('visible ran'));
      server.registerTool('write_secret', { description: 'Hidden by the gateway.' }, () => {
        secretRuns++;
        return text('secret written');
      });
      // A schema Switchboard's own tool builder refuses: the upstream publishes it as it is.
      server.registerPassThroughTool(
        {
          name: 'odd',
          inputSchema: {
            type: 'object',
            $defs: { region: { $dynamicAnchor: 'region', type: 'string' } },
            properties: { region: { $dynamicRef: '#region' } },
          },
        },
        () => text('odd ran'),
      );
    });
    closing.push(upstream.close);
    const started = await gatewayOver({ up: { url: upstream.url } });
    closing.push(started.close);
    started.gateway.server.filterList('tools', (tool) => tool.name !== 'up__write_secret');
    const calls: string[] = [];
    started.gateway.server.use((next) => async (method, params, ctx) => {
      const result = await next(method, params, ctx);
      if (method === 'tools/call')
        calls.push(`${params.name as string} → ${textOf(result as CallToolResult)}`);
      return result;
    });

    for (const era of ['auto', 'legacy'] as const) {
      const { client, assertClean } = await switchboardClient(started.url, `pipeline-${era}`, era);
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, ['up__odd', 'up__visible']);
      const hidden = await protocolFailure(() => client.callTool('up__write_secret'));
      const unknown = await protocolFailure(() => client.callTool('up__no_such_tool'));
      assert.equal(hidden.code, unknown.code);
      assert.equal(
        hidden.message.replace('up__write_secret', 'NAME'),
        unknown.message.replace('up__no_such_tool', 'NAME'),
      );
      assert.equal(textOf(await client.callTool('up__visible')), 'visible ran');
      assert.equal(textOf(await client.callTool('up__odd', { region: 'eu' })), 'odd ran');
      assertClean();
      await client.close();
    }
    assert.equal(secretRuns, 0, 'the hidden tool never ran upstream');
    assert.deepEqual(calls, [
      'up__visible → visible ran',
      'up__odd → odd ran',
      'up__visible → visible ran',
      'up__odd → odd ran',
    ]);
  });

  for (const collisions of ['rename', 'skip'] as const) {
    test(`a name that collides at runtime (collisions: "${collisions}")`, async () => {
      const namespaced = await upstreamServer((server) => {
        server.registerTool('x', {}, () => text('x of ns'));
      });
      let bareServer: Server | undefined;
      const bare = await upstreamServer((server) => {
        bareServer = server;
        server.registerTool('y', {}, () => text('y of bare'));
      });
      closing.push(namespaced.close, bare.close);
      const started = await gatewayOver(
        { ns: { url: namespaced.url }, bare: { url: bare.url, namespace: false } },
        { collisions },
      );
      closing.push(started.close);
      assert.equal(started.gateway.exposed('ns').tools + started.gateway.exposed('bare').tools, 2);
      // The bare upstream adds a tool whose name is the namespaced one's downstream name.
      bareServer!.registerTool('ns__x', {}, () => text('ns__x of bare'));
      const expected = collisions === 'rename' ? 2 : 1;
      await until(
        () =>
          started.gateway.exposed('bare').tools === expected &&
          (collisions === 'rename' || started.warnings.length > 0),
        `the bare upstream's new tool handled (${collisions})`,
      );
      const { client } = await switchboardClient(started.url, `collide-${collisions}`);
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.equal(textOf(await client.callTool('ns__x')), 'x of ns', 'the first holder keeps its name');
      if (collisions === 'rename') {
        const renamed = names.find((name) => name.startsWith('ns__x_'));
        assert.ok(renamed, names.join(', '));
        assert.equal(names.length, 3, names.join(', '));
        assert.equal(textOf(await client.callTool(renamed)), 'ns__x of bare');
      } else {
        assert.deepEqual(names, ['ns__x', 'y']);
        assert.ok(
          started.warnings.some((w) => w.includes('"ns__x" of "bare" is not shown')),
          started.warnings.join('\n'),
        );
      }
      await client.close();
    });
  }

  test("a 2026-07-28 client's call to a legacy upstream while its catalog session reconnects gets a session of its own", async () => {
    const upstream = await upstreamServer(
      (server) => {
        server.registerTool('ask', {}, async (_args, ctx) => {
          const answer = await ctx.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          });
          return text(answer.action === 'accept' ? `hello ${answer.content.name}` : answer.action);
        });
      },
      { legacyOnly: true },
    );
    closing.push(upstream.close);
    const channels: Channel[] = [];
    let hold: { opened: () => void; release: Promise<void> } | undefined;
    const wrap = (channel: Channel): Channel => {
      channels.push(channel);
      const held = hold;
      hold = undefined;
      if (!held) return channel;
      // The reconnecting catalog's frames wait until the test lets them go.
      held.opened();
      return new Proxy(channel, {
        get(target, key) {
          if (key === 'send') {
            return (frame: string, info?: never) => void held.release.then(() => target.send(frame, info));
          }
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    };
    const started = await gatewayOver({ up: { url: upstream.url } }, {}, wrap);
    closing.push(started.close);
    const arrived = counter();
    started.gateway.server.use((next) => (method, params, ctx) => {
      if (method === 'tools/call') arrived.fire();
      return next(method, params, ctx);
    });
    const ada = await switchboardClient(started.url, 'ada');
    const bob = await switchboardClient(started.url, 'bob');
    assert.equal(ada.client.revision, '2026-07-28');

    const opened = gate();
    const release = gate();
    hold = { opened: opened.open, release: release.wait };
    // The catalog session goes: the gateway reconnects it after its backoff, and that waits.
    await channels[0]!.close();
    await opened.wait;
    assert.equal(started.gateway.health()[0]!.state, 'starting');
    const calls = [ada.client.callTool('up__ask'), bob.client.callTool('up__ask')];
    await arrived.reached(2);
    release.open();
    const [toAda, toBob] = await Promise.all(calls);
    assert.equal(textOf(toAda!), 'hello ada');
    assert.equal(textOf(toBob!), 'hello bob');
    assert.deepEqual(ada.asked, ['Your name?']);
    assert.deepEqual(bob.asked, ['Your name?']);
    await ada.client.close();
    await bob.client.close();
  });
});

/**
 * MCP Apps through the gateway: an upstream's `ui://` view stays a `ui://` resource downstream
 * (`ui://<server>/<rest>`), the tools' `_meta.ui.resourceUri` (and the older flat
 * `_meta["ui/resourceUri"]`) name the mapped URI, a read of it routes back, and the tool calls a
 * view makes by its own server's names reach that server. Two servers with the same view URI stay
 * apart. A tool's or prompt's result that names a view or resource itself (`resource_link`,
 * embedded `resource`, the result's `_meta.ui.resourceUri`) names it as the gateway serves it, and
 * reads back, also when the tool ran as a task. (The console renders such a view through the gateway: test/console/browser-apps.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { APP_MIME_TYPE, toolUi } from '../../src/extensions/apps.js';
import { Client } from '../../src/extensions/client.js';
import { nodeFetch } from '../../src/node/fetch.js';
import { type RunningServer, serve } from '../../src/node/serve.js';
import { ProtocolError } from '../../src/protocol/errors.js';
import { StreamableHttpClientChannel } from '../../src/transports/http/client/streamable-channel.js';
import { createHttpHandler } from '../../src/transports/http/server/handler.js';
import { appsServer, TODAY_URI, VIEW_URI, viewHtml } from '../fixtures/apps-upstream.js';
import { gatewayOver, textOf } from './helpers.js';

describe('gateway: MCP Apps views and their tool calls', () => {
  const upstreams: RunningServer[] = [];
  let started: Awaited<ReturnType<typeof gatewayOver>>;
  before(async () => {
    for (const label of ['forecast', 'maps']) {
      const server = appsServer(label, { refresh: label === 'forecast' });
      upstreams.push(await serve(createHttpHandler(server), { port: 0 }));
    }
    started = await gatewayOver({ forecast: { url: upstreams[0]!.url }, maps: { url: upstreams[1]!.url } });
  });
  after(async () => {
    await started.close();
    for (const upstream of upstreams) await upstream.close();
  });

  for (const era of ['auto', 'legacy'] as const) {
    test(`${era === 'auto' ? '2026-07-28' : 'legacy'} client: ui:// views, their links and reads, and the views' own tool calls`, async () => {
      const client = new Client({ name: 'apps-host', version: '1.0.0' }, { version: era });
      await client.connect(
        new StreamableHttpClientChannel(started.url, { fetch: nodeFetch, rememberEra: false }),
      );
      try {
        const { resources } = await client.listResources();
        const views = resources
          .filter((r) => r.mimeType === APP_MIME_TYPE)
          .map((r) => r.uri)
          .sort();
        assert.deepEqual(views, ['ui://forecast/weather/dashboard', 'ui://maps/weather/dashboard']);

        const { tools } = await client.listTools();
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        assert.equal(
          toolUi(byName.get('forecast__show_weather')!)?.resourceUri,
          'ui://forecast/weather/dashboard',
        );
        assert.equal(toolUi(byName.get('maps__show_weather')!)?.resourceUri, 'ui://maps/weather/dashboard');
        assert.equal(
          byName.get('forecast__old_style')?._meta?.['ui/resourceUri'],
          'ui://forecast/weather/dashboard',
        );
        assert.deepEqual(toolUi(byName.get('forecast__refresh')!)?.visibility, ['app']);

        for (const label of ['forecast', 'maps']) {
          const uri = `ui://${label}/weather/dashboard`;
          const [content] = (await client.readResource(uri)).contents;
          assert.equal(content?.uri, uri);
          assert.equal(content?.mimeType, APP_MIME_TYPE);
          assert.equal((content as { text?: string }).text, viewHtml(label));
          assert.deepEqual(content?._meta?.ui, {
            csp: { connectDomains: ['https://api.example.com'] },
            prefersBorder: true,
          });
        }
        // The upstream's own URI is not the gateway's.
        await assert.rejects(client.readResource(VIEW_URI), ProtocolError);

        // A view calls its server's tools by their own names: `refresh` is forecast's alone.
        assert.match(textOf(await client.callTool('refresh')), /^forecast refreshed \d+$/);
        assert.match(textOf(await client.callTool('forecast__refresh')), /^forecast refreshed \d+$/);
        // `show_weather` and `status` are names of both servers: a bare call cannot tell which.
        await assert.rejects(client.callTool('status'), ProtocolError);
        assert.equal(textOf(await client.callTool('maps__status')), 'maps status');

        // A result naming the view and a resource itself: mapped as descriptors are, read back.
        const linked = await client.callTool('forecast__show_links');
        assert.deepEqual(linked._meta?.ui, { resourceUri: 'ui://forecast/weather/dashboard' });
        assert.equal(linked._meta?.['ui/resourceUri'], 'ui://forecast/weather/dashboard');
        const prompt = await client.getPrompt('maps__briefing');
        for (const [label, blocks] of [
          ['forecast', linked.content],
          ['maps', prompt.messages.map((message) => message.content)],
        ] as const) {
          const uris = blocks.map((block) =>
            block.type === 'resource_link' ? block.uri : block.type === 'resource' ? block.resource.uri : '',
          );
          assert.deepEqual(uris, [
            `ui://${label}/weather/dashboard`,
            `gateway://${label}/${TODAY_URI}`,
            `gateway://${label}/${TODAY_URI}`,
          ]);
          const [view] = (await client.readResource(uris[0]!)).contents;
          assert.equal((view as { text?: string }).text, viewHtml(label));
          const [today] = (await client.readResource(uris[1]!)).contents;
          assert.equal((today as { text?: string }).text, `${label}: today is sunny`);
        }
      } finally {
        await client.close();
      }
    });
  }

  test('2026-07-28 client: a tool run as a task names the view and the resource as the gateway serves them', async () => {
    const client = new Client({ name: 'apps-host', version: '1.0.0' }, { version: 'auto', tasks: true });
    await client.connect(
      new StreamableHttpClientChannel(started.url, { fetch: nodeFetch, rememberEra: false }),
    );
    try {
      const task = await client.callToolAsTask('forecast__show_links', {});
      const result = await task.result();
      const uris = result.content.map((block) =>
        block.type === 'resource_link' ? block.uri : block.type === 'resource' ? block.resource.uri : '',
      );
      assert.deepEqual(uris, [
        'ui://forecast/weather/dashboard',
        `gateway://forecast/${TODAY_URI}`,
        `gateway://forecast/${TODAY_URI}`,
      ]);
      assert.deepEqual(result._meta?.ui, { resourceUri: 'ui://forecast/weather/dashboard' });
      const [today] = (await client.readResource(uris[1]!)).contents;
      assert.equal((today as { text?: string }).text, 'forecast: today is sunny');
    } finally {
      await client.close();
    }
  });
});

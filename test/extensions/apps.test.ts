/**
 * MCP Apps (`io.modelcontextprotocol/ui`): the server helpers (view resources, tool links, the
 * extension advertised), the client declaration and the host-side visibility filter, in every
 * revision with strict schema checks, plus the official v1 client declaring the extension in
 * `initialize` the way real hosts do.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Channel } from '../../src/engine/channel.js';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  appToolMeta,
  clientSupportsApps,
  isToolForApp,
  isToolForModel,
  registerAppResource,
  registerAppTool,
  toolsForModel,
  toolUi,
  toolVisibility,
  withAppsSupport,
} from '../../src/extensions/apps.js';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { featuresOf, REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { createLinkedChannels } from '../../src/transports/memory.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';

trapUnhandledRejections();

const HTML = '<!DOCTYPE html><html><body>Weather</body></html>';
const UI = {
  csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://cdn.example'] },
  permissions: { geolocation: {} },
  prefersBorder: true,
};

function appServer() {
  const server = new Server({ name: 'weather', version: '1.0.0' });
  registerAppResource(
    server,
    'dashboard',
    'ui://weather/dashboard',
    { description: 'Dashboard', ui: UI },
    () => HTML,
  );
  registerAppTool(
    server,
    'get_weather',
    { description: 'Weather now', ui: { resourceUri: 'ui://weather/dashboard' } },
    (_args, ctx) => (clientSupportsApps(ctx.client) ? 'rendered by the view' : 'Sunny, 21 °C'),
  );
  registerAppTool(
    server,
    'refresh',
    { description: 'For the view only', ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] } },
    () => 'refreshed',
  );
  server.registerTool('plain', {}, () => 'plain');
  return server;
}

const configError = (pattern: RegExp) => (e: unknown) =>
  e instanceof SwitchboardError && e.code === 'CONFIG' && pattern.test(e.message);

for (const revision of REVISIONS) {
  const f = featuresOf(revision as Revision);
  describe(`MCP Apps on ${revision}`, () => {
    test('the view resource, its contents and the tool links carry _meta.ui where the revision can', async () => {
      const pair = await connectPair(appServer(), {
        version: { pin: revision },
        capabilities: withAppsSupport(),
      });
      const { client } = pair;
      const [view] = (await client.listResources()).resources;
      assert.equal(view!.uri, 'ui://weather/dashboard');
      assert.equal(view!.mimeType, APP_MIME_TYPE);
      assert.deepEqual(view!._meta, f.structured ? { ui: UI } : undefined);
      const read = await client.readResource('ui://weather/dashboard');
      assert.deepEqual(read.contents, [
        {
          uri: 'ui://weather/dashboard',
          mimeType: APP_MIME_TYPE,
          text: HTML,
          ...(f.structured ? { _meta: { ui: UI } } : {}),
        },
      ]);
      const tools = (await client.listTools()).tools;
      const weather = tools.find((t) => t.name === 'get_weather')!;
      assert.deepEqual(
        weather._meta,
        f.structured ? { ui: { resourceUri: 'ui://weather/dashboard' } } : undefined,
      );
      assert.deepEqual(
        (await client.listTools({ forModel: true })).tools.map((t) => t.name).sort(),
        // Before 2025-06-18 descriptors carry no _meta: the link, and the restriction, cannot travel.
        f.structured ? ['get_weather', 'plain'] : ['get_weather', 'plain', 'refresh'],
        'app-only tools are hidden from the model',
      );
      assert.equal(
        f.modern
          ? client.serverCapabilities.extensions?.[APPS_EXTENSION] !== undefined
          : 'extensions' in client.serverCapabilities,
        f.modern,
        'the extension is advertised on 2026-07-28 only',
      );
      // The client declared the extension: in its envelope, or (legacy) in initialize.
      const answer = await client.callTool('get_weather', {});
      assert.deepEqual(answer.content, [{ type: 'text', text: 'rendered by the view' }]);
      pair.assertClean();
      await pair.close();
    });

    test('a client that does not declare the extension gets the text fallback', async () => {
      const pair = await connectPair(appServer(), { version: { pin: revision } });
      const answer = await pair.client.callTool('get_weather', {});
      assert.deepEqual(answer.content, [{ type: 'text', text: 'Sunny, 21 °C' }]);
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('MCP Apps: server helpers', () => {
  test('discover advertises io.modelcontextprotocol/ui; a server without apps does not', async () => {
    const pair = await connectPair(appServer(), { version: { pin: '2026-07-28' } });
    assert.deepEqual(pair.client.serverCapabilities.extensions, { [APPS_EXTENSION]: {} });
    await pair.close();
    const plain = new Server({ name: 'plain', version: '1' });
    plain.registerTool('t', {}, () => 'x');
    const other = await connectPair(plain, { version: { pin: '2026-07-28' } });
    assert.equal(other.client.serverCapabilities.extensions, undefined);
    await other.close();
  });

  test('a content block keeps its own _meta and may refine the view settings', async () => {
    const server = new Server({ name: 'views', version: '1' });
    registerAppResource(server, 'v', 'ui://views/one', { ui: { prefersBorder: true } }, (uri) => ({
      uri,
      text: HTML,
      _meta: { ui: { prefersBorder: false, domain: 'views.example' }, 'com.example/rev': 3 },
    }));
    registerAppResource(server, 'bare', 'ui://views/bare', {}, () => new TextEncoder().encode(HTML));
    const pair = await connectPair(server);
    const [content] = (await pair.client.readResource('ui://views/one')).contents;
    assert.deepEqual(content!._meta, {
      ui: { prefersBorder: false, domain: 'views.example' },
      'com.example/rev': 3,
    });
    const [bare] = (await pair.client.readResource('ui://views/bare')).contents;
    assert.equal(bare!.mimeType, APP_MIME_TYPE);
    assert.equal(bare!._meta, undefined);
    assert.ok('blob' in bare!);
    pair.assertClean();
    await pair.close();
  });

  test('a view that returns another MIME type is a server error; an unknown one is not found', async () => {
    const server = new Server({ name: 'views', version: '1' });
    registerAppResource(server, 'v', 'ui://views/wrong', {}, (uri) => ({
      uri,
      mimeType: 'text/html',
      text: HTML,
    }));
    registerAppResource(server, 'gone', 'ui://views/gone', {}, () => undefined);
    const pair = await connectPair(server);
    await assert.rejects(
      pair.client.readResource('ui://views/wrong'),
      (e) =>
        e instanceof ProtocolError &&
        e.code === ErrorCode.InternalError &&
        /must be text\/html;profile=mcp-app/.test(e.message),
    );
    await assert.rejects(
      pair.client.readResource('ui://views/gone'),
      (e) => e instanceof ProtocolError && e.code === ErrorCode.InvalidParams,
    );
    pair.assertClean();
    await pair.close();
  });

  test('configuration mistakes are CONFIG errors that say what to write', () => {
    const server = new Server({ name: 'views', version: '1' });
    const read = () => HTML;
    assert.throws(
      () => registerAppResource(server, 'x', 'https://x.example', {}, read),
      configError(/ui:\/\/ URI/),
    );
    assert.throws(() => registerAppResource(server, 'x', 'ui://', {}, read), configError(/ui:\/\/ URI/));
    assert.throws(
      () =>
        registerAppResource(server, 'x', 'ui://x', { ui: { csp: { scriptDomains: ['a'] } as never } }, read),
      configError(/not an MCP Apps CSP field/),
    );
    assert.throws(
      () =>
        registerAppResource(
          server,
          'x',
          'ui://x',
          { ui: { csp: { connectDomains: 'https://a' as never } } },
          read,
        ),
      configError(/array of origins/),
    );
    assert.throws(
      () =>
        registerAppResource(server, 'x', 'ui://x', { ui: { permissions: { bluetooth: {} } as never } }, read),
      configError(/ui\.permissions\.bluetooth/),
    );
    assert.throws(
      () => registerAppResource(server, 'x', 'ui://x', { ui: { prefersBorder: 'yes' as never } }, read),
      configError(/boolean/),
    );
    assert.throws(() => appToolMeta({ resourceUri: 'file:///x' }), configError(/ui\.resourceUri/));
    assert.throws(() => appToolMeta({ visibility: [] }), configError(/non-empty array/));
    assert.throws(() => appToolMeta({ visibility: ['user' as never] }), configError(/"model" and\/or "app"/));
    assert.throws(() => withAppsSupport({}, []), configError(/at least one MIME type/));
  });

  test('appToolMeta keeps other _meta and folds duplicate visibility', () => {
    assert.deepEqual(
      appToolMeta({ resourceUri: 'ui://a/b', visibility: ['app', 'app'] }, { 'com.example/x': 1 }),
      {
        'com.example/x': 1,
        ui: { resourceUri: 'ui://a/b', visibility: ['app'] },
      },
    );
    assert.deepEqual(appToolMeta({}), { ui: {} });
  });
});

describe('MCP Apps: host helpers', () => {
  const tool = (name: string, _meta?: Record<string, unknown>) => ({
    name,
    inputSchema: { type: 'object' as const },
    ...(_meta ? { _meta } : {}),
  });
  const tools = [
    tool('plain'),
    tool('both', { ui: { resourceUri: 'ui://a/v', visibility: ['model', 'app'] } }),
    tool('model-only', { ui: { visibility: ['model'] } }),
    tool('app-only', { ui: { resourceUri: 'ui://a/v', visibility: ['app'] } }),
    tool('flat', { 'ui/resourceUri': 'ui://a/old' }),
  ];

  test('toolsForModel drops app-only tools; the default visibility is both', () => {
    assert.deepEqual(
      toolsForModel(tools).map((t) => t.name),
      ['plain', 'both', 'model-only', 'flat'],
    );
    assert.deepEqual(toolVisibility(tools[0]!), ['model', 'app']);
    assert.equal(isToolForApp(tools[2]!), false, 'a view may not call a model-only tool');
    assert.equal(isToolForApp(tools[3]!), true);
    assert.equal(isToolForModel(tools[3]!), false);
  });

  test('toolUi reads _meta.ui and the deprecated flat ui/resourceUri', () => {
    assert.equal(toolUi(tools[0]!), undefined);
    assert.deepEqual(toolUi(tools[3]!), { resourceUri: 'ui://a/v', visibility: ['app'] });
    assert.deepEqual(toolUi(tools[4]!), { resourceUri: 'ui://a/old' });
  });

  test('withAppsSupport adds the declaration and keeps the rest', () => {
    assert.deepEqual(
      withAppsSupport({ elicitation: {}, extensions: { 'com.example/x': {} } }, [APP_MIME_TYPE, 'text/x']),
      {
        elicitation: {},
        extensions: { 'com.example/x': {}, [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE, 'text/x'] } },
      },
    );
    assert.equal(clientSupportsApps(withAppsSupport()), true);
    assert.equal(clientSupportsApps(withAppsSupport({}, ['text/x'])), false);
    assert.equal(clientSupportsApps(withAppsSupport({}, ['text/x']), 'text/x'), true);
    assert.equal(clientSupportsApps({ extensions: { [APPS_EXTENSION]: { mimeTypes: 'nope' } } }), false);
    assert.equal(clientSupportsApps(undefined), false);
  });
});

/** An official SDK transport over one of our in-memory channels. */
function officialTransport(channel: Channel) {
  const transport = {
    onmessage: undefined as ((message: any) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    async start() {
      channel.start({
        message: (value) => transport.onmessage?.(value),
        malformed: (error) => transport.onerror?.(error),
        closed: () => transport.onclose?.(),
      });
    },
    async send(message: unknown) {
      channel.send(JSON.stringify(message));
    },
    async close() {
      await channel.close();
    },
  };
  return transport;
}

describe('MCP Apps: a real host declaring the extension in initialize', () => {
  test('the official v1 client (legacy) is recognised as rendering views', async () => {
    const server = appServer();
    for (const [capabilities, expected] of [
      [withAppsSupport(), 'rendered by the view'],
      [{}, 'Sunny, 21 °C'],
    ] as const) {
      const [clientEnd, serverEnd] = createLinkedChannels();
      server.connect(serverEnd);
      const client = new V1Client({ name: 'host', version: '1.0.0' }, { capabilities });
      await client.connect(officialTransport(clientEnd));
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.find((t) => t.name === 'refresh')?._meta, {
        ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] },
      });
      const answer = await client.callTool({ name: 'get_weather', arguments: {} });
      assert.deepEqual(answer.content, [{ type: 'text', text: expected }]);
      await client.close();
    }
  });
});

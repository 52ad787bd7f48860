/**
 * Registration handles: update (rename, new handler), enable/disable/remove, and the `list_changed`
 * notifications they send to initialized legacy connections (coalesced per tick). Disabled items
 * are invisible to lists and calls alike.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError, SwitchboardError } from '../../src/protocol/errors.js';
import { LEGACY_REVISIONS } from '../../src/protocol/revisions.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { type Frame, openWire, type Wire } from '../helpers/wire.js';

trapUnhandledRejections();

const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';

function makeServer(options: ConstructorParameters<typeof Server>[1] = {}) {
  const server = new Server({ name: 'handles', version: '1.0.0' }, options);
  const tool = server.registerTool('greet', { description: 'v1' }, () => 'hello v1');
  const keep = server.registerTool('keep', {}, () => 'kept');
  const prompt = server.registerPrompt('ask', { description: 'p1' }, () => 'ask v1');
  const resource = server.registerResource('doc', 'mem://doc', { description: 'r1' }, () => 'doc v1');
  const template = server.registerResourceTemplate(
    'item',
    'mem://items/{id}',
    {},
    (_u, { id }) => `item ${id}`,
  );
  return { server, tool, keep, prompt, resource, template };
}

/** The notifications the server sent since the last drain, fenced by a ping. */
async function drain(wire: Wire): Promise<string[]> {
  await wire.request('ping');
  return wire.notifications.splice(0).map((n: Frame) => n.method);
}

async function initialized(server: Server, revision = '2025-11-25') {
  const wire = await openWire(server, { check: true });
  await wire.initialize(revision);
  return wire;
}

const names = async (wire: Wire, method = 'tools/list', key = 'tools', id = 'name') =>
  (await wire.request(method)).result[key].map((x: Frame) => x[id]);

for (const revision of LEGACY_REVISIONS) {
  describe(`handles on ${revision}`, () => {
    test('tool: update in place, rename, new handler — each sends tools/list_changed', async () => {
      const { server, tool } = makeServer();
      const wire = await initialized(server, revision);
      tool.update({ description: 'v2' });
      assert.deepEqual(await drain(wire), [TOOLS]);
      const listed = (await wire.request('tools/list')).result.tools.find((t: Frame) => t.name === 'greet');
      assert.equal(listed.description, 'v2');
      assert.equal((await wire.request('tools/call', { name: 'greet' })).result.content[0].text, 'hello v1');

      tool.update({ name: 'welcome', handler: () => 'hello v2' });
      assert.equal(tool.name, 'welcome');
      assert.deepEqual(await drain(wire), [TOOLS]);
      assert.deepEqual(await names(wire), ['keep', 'welcome']);
      assert.equal(
        (await wire.request('tools/call', { name: 'welcome' })).result.content[0].text,
        'hello v2',
      );
      const old = await wire.request('tools/call', { name: 'greet' });
      assert.equal(old.error.code, ErrorCode.InvalidParams);
      // The description given earlier is kept through later updates.
      assert.equal((await wire.request('tools/list')).result.tools[1].description, 'v2');
      wire.assertClean();
      await wire.close();
    });

    test('tool: disable hides it from list and call; enable brings it back; remove is final', async () => {
      const { server, tool } = makeServer();
      const wire = await initialized(server, revision);
      tool.disable();
      assert.equal(tool.enabled, false);
      assert.deepEqual(await drain(wire), [TOOLS]);
      assert.deepEqual(await names(wire), ['keep']);
      const hidden = await wire.request('tools/call', { name: 'greet' });
      assert.equal(hidden.error.code, ErrorCode.InvalidParams);
      assert.match(hidden.error.message, /Unknown tool: "greet"/);
      tool.disable(); // no change, no notification
      assert.deepEqual(await drain(wire), []);
      tool.enable();
      assert.equal(tool.enabled, true);
      assert.deepEqual(await drain(wire), [TOOLS]);
      assert.deepEqual(await names(wire), ['greet', 'keep']);
      tool.remove();
      assert.equal(tool.enabled, false);
      assert.deepEqual(await drain(wire), [TOOLS]);
      assert.deepEqual(await names(wire), ['keep']);
      assert.throws(
        () => tool.enable(),
        (e: unknown) =>
          e instanceof SwitchboardError && e.code === 'CONFIG' && /was it removed/.test(e.message),
      );
      assert.throws(() => tool.update({ description: 'x' }), /was it removed/);
      tool.remove(); // idempotent
      assert.deepEqual(await drain(wire), []);
      wire.assertClean();
      await wire.close();
    });

    test('prompt handle: update, rename, disable, remove → prompts/list_changed', async () => {
      const { server, prompt } = makeServer();
      const wire = await initialized(server, revision);
      prompt.update({ name: 'question', handler: () => 'ask v2', description: 'p2' });
      assert.deepEqual(await drain(wire), [PROMPTS]);
      assert.deepEqual(await names(wire, 'prompts/list', 'prompts'), ['question']);
      const got = await wire.request('prompts/get', { name: 'question' });
      assert.equal(got.result.messages[0].content.text, 'ask v2');
      assert.equal((await wire.request('prompts/get', { name: 'ask' })).error.code, ErrorCode.InvalidParams);
      prompt.disable();
      assert.deepEqual(await drain(wire), [PROMPTS]);
      assert.equal(
        (await wire.request('prompts/get', { name: 'question' })).error.code,
        ErrorCode.InvalidParams,
      );
      const completion = await wire.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'question' },
        argument: { name: 'a', value: '' },
      });
      assert.equal(completion.error.code, ErrorCode.InvalidParams, 'a disabled prompt cannot be completed');
      prompt.enable();
      prompt.remove();
      assert.deepEqual(await drain(wire), [PROMPTS]);
      wire.assertClean();
      await wire.close();
    });

    test('resource and template handles → resources/list_changed; disabled ones cannot be read', async () => {
      const { server, resource, template } = makeServer();
      const wire = await initialized(server, revision);
      const notFound = (await wire.request('resources/read', { uri: 'mem://nope' })).error.code;
      resource.update({ uri: 'mem://doc2', read: () => 'doc v2' });
      assert.equal(resource.uri, 'mem://doc2');
      assert.deepEqual(await drain(wire), [RESOURCES]);
      assert.deepEqual(await names(wire, 'resources/list', 'resources', 'uri'), ['mem://doc2']);
      assert.equal(
        (await wire.request('resources/read', { uri: 'mem://doc2' })).result.contents[0].text,
        'doc v2',
      );
      assert.equal((await wire.request('resources/read', { uri: 'mem://doc' })).error.code, notFound);
      resource.disable();
      assert.equal((await wire.request('resources/read', { uri: 'mem://doc2' })).error.code, notFound);
      assert.deepEqual(await drain(wire), [RESOURCES]);

      template.update({ uriTemplate: 'mem://things/{id}', name: 'thing' });
      assert.equal(template.uriTemplate, 'mem://things/{id}');
      assert.deepEqual(await drain(wire), [RESOURCES]);
      assert.deepEqual(await names(wire, 'resources/templates/list', 'resourceTemplates', 'uriTemplate'), [
        'mem://things/{id}',
      ]);
      assert.equal(
        (await wire.request('resources/read', { uri: 'mem://things/7' })).result.contents[0].text,
        'item 7',
      );
      assert.equal((await wire.request('resources/read', { uri: 'mem://items/7' })).error.code, notFound);
      template.disable();
      assert.equal((await wire.request('resources/read', { uri: 'mem://things/7' })).error.code, notFound);
      assert.deepEqual(await names(wire, 'resources/templates/list', 'resourceTemplates', 'uriTemplate'), []);
      const completion = await wire.request('completion/complete', {
        ref: { type: 'ref/resource', uri: 'mem://things/{id}' },
        argument: { name: 'id', value: '' },
      });
      assert.equal(completion.error.code, ErrorCode.InvalidParams);
      template.enable();
      assert.equal(
        (await wire.request('resources/read', { uri: 'mem://things/7' })).result.contents[0].text,
        'item 7',
      );
      assert.deepEqual(await drain(wire), [RESOURCES, RESOURCES], 'disable and enable, in separate ticks');
      wire.assertClean();
      await wire.close();
    });

    test('changes in one tick are coalesced: one notification per kind', async () => {
      const { server, tool, keep, prompt, resource, template } = makeServer();
      const wire = await initialized(server, revision);
      tool.disable();
      tool.enable();
      keep.update({ title: 'Keep' });
      server.registerTool('new1', {}, () => 'x');
      server.registerTool('new2', {}, () => 'x');
      prompt.update({ description: 'p2' });
      resource.disable();
      template.update({ description: 't2' });
      assert.deepEqual((await drain(wire)).sort(), [PROMPTS, RESOURCES, TOOLS]);
      assert.deepEqual(await drain(wire), []);
      wire.assertClean();
      await wire.close();
    });

    test('removing the last tool still notifies, and tools/list then answers an empty list', async () => {
      const { server, tool, keep } = makeServer();
      const wire = await initialized(server, revision);
      tool.remove();
      keep.remove();
      assert.deepEqual(await drain(wire), [TOOLS]);
      const listed = await wire.request('tools/list');
      assert.deepEqual(listed.result, { tools: [] });
      const call = await wire.request('tools/call', { name: 'keep' });
      assert.equal(call.error.code, ErrorCode.InvalidParams);
      wire.assertClean();
      await wire.close();
    });
  });
}

describe('who receives list_changed', () => {
  test('only connections that completed the handshake (initialize + initialized)', async () => {
    const { server, tool } = makeServer();
    const fresh = await openWire(server);
    const halfway = await openWire(server);
    await halfway.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    const done = await initialized(server);
    const modern = await openWire(server);
    await modern.modern('tools/list');
    tool.disable();
    assert.deepEqual(await drain(done), [TOOLS]);
    assert.deepEqual(await drain(halfway), []);
    assert.deepEqual(await drain(fresh), []);
    assert.deepEqual(
      await drain(modern),
      [],
      'modern clients hear of changes only through subscriptions/listen',
    );
    for (const wire of [fresh, halfway, done, modern]) await wire.close();
  });

  test('a closed connection is forgotten; others still hear', async () => {
    const { server, tool } = makeServer();
    const a = await initialized(server);
    const b = await initialized(server);
    await a.close();
    await a.connection.closed;
    tool.disable();
    assert.deepEqual(await drain(b), [TOOLS]);
    await b.close();
  });

  test('no notification for a kind whose listChanged the server does not advertise', async () => {
    const { server, tool, prompt } = makeServer({ capabilities: { tools: { listChanged: false } } });
    const wire = await initialized(server);
    tool.disable();
    prompt.disable();
    assert.deepEqual(await drain(wire), [PROMPTS]);
    await wire.close();
  });

  test('the client hears list_changed through on() and its cache stays honest', async () => {
    const { server, tool } = makeServer();
    const pair = await connectPair(server, { version: { pin: '2025-06-18' } });
    const heard: unknown[] = [];
    const off = pair.client.on(TOOLS, (params) => heard.push(params));
    assert.equal((await pair.client.listTools()).tools.length, 2);
    tool.disable();
    assert.equal((await pair.client.listTools()).tools.length, 1);
    assert.deepEqual(heard, [{}]);
    off();
    tool.enable();
    await pair.client.listTools();
    assert.equal(heard.length, 1, 'unsubscribed');
    pair.assertClean();
    await pair.close();
  });
});

describe('failed updates change nothing', () => {
  test('renaming onto a taken name is a CONFIG error and leaves the definition as it was', async () => {
    const { server, tool } = makeServer();
    assert.throws(
      () => tool.update({ name: 'keep', description: 'should not stick' }),
      (e: unknown) =>
        e instanceof SwitchboardError && e.code === 'CONFIG' && /that name is taken/.test(e.message),
    );
    assert.equal(tool.name, 'greet');
    tool.update({ title: 'Greet' });
    const wire = await initialized(server);
    const listed = (await wire.request('tools/list')).result.tools.find((t: Frame) => t.name === 'greet');
    assert.equal(listed.description, 'v1', 'the failed update left no trace');
    assert.equal(listed.title, 'Greet');
    await wire.close();
  });

  test('an invalid new name or schema is refused before anything changes', async () => {
    const { server, tool, resource, prompt } = makeServer();
    assert.throws(() => tool.update({ name: 'bad name' }), /Invalid tool name/);
    assert.throws(
      () => tool.update({ inputSchema: { type: 'string' }, description: 'nope' }),
      /must describe an object/,
    );
    assert.throws(() => resource.update({ uri: 'no-scheme', description: 'nope' }), /absolute URI/);
    assert.throws(() => prompt.update({ name: 'bad name' }), /Invalid prompt name/);
    server.registerResource('other', 'mem://other', {}, () => 'o');
    assert.throws(() => resource.update({ uri: 'mem://other', description: 'nope' }), /that name is taken/);
    tool.update({ title: 'T' });
    resource.update({ title: 'R' });
    const wire = await initialized(server);
    const t = (await wire.request('tools/list')).result.tools.find((x: Frame) => x.name === 'greet');
    assert.deepEqual([t.description, t.inputSchema], ['v1', { type: 'object' }]);
    const r = (await wire.request('resources/list')).result.resources.find(
      (x: Frame) => x.uri === 'mem://doc',
    );
    assert.equal(r.description, 'r1');
    await wire.close();
  });

  test('update keeps the schema and validates with it', async () => {
    const server = new Server({ name: 'x', version: '1' });
    const handle = server.registerTool(
      'n',
      { inputSchema: z.object({ n: z.number() }) },
      ({ n }) => `n=${n}`,
    );
    handle.update({ description: 'numbers' });
    const pair = await connectPair(server);
    assert.equal((await pair.client.callTool('n', { n: 'x' })).isError, true);
    assert.deepEqual((await pair.client.callTool('n', { n: 2 })).content, [{ type: 'text', text: 'n=2' }]);
    await assert.rejects(pair.client.callTool('missing'), ProtocolError);
    pair.assertClean();
    await pair.close();
  });
});

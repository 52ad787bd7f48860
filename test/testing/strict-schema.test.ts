import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { REVISIONS, type Revision } from '../../src/protocol/revisions.js';
import { RevisionSchema } from '../../src/testing/revision-schema.js';
import { definitionsOf, deriveOfficialSchema, deriveStrictSchema } from '../../src/testing/strict-schema.js';

type Node = Record<string, any>;

/** The copies shipped with the package (build/test/testing → repository root). */
const documents = Object.fromEntries(
  REVISIONS.map((r) => [
    r,
    JSON.parse(readFileSync(new URL(`../../../spec/schema/${r}/schema.json`, import.meta.url), 'utf8')),
  ]),
) as Record<Revision, Node>;

const strictDefs = (revision: Revision) => definitionsOf(deriveStrictSchema(documents[revision])) as Node;

describe('the shipped schemas', () => {
  test('are the five revisions, each in its dialect', () => {
    for (const revision of REVISIONS) {
      const document = documents[revision];
      const modern = revision >= '2025-11-25';
      assert.equal(document.$schema.includes('2020-12'), modern, revision);
      assert.ok(modern ? document.$defs : document.definitions, revision);
    }
  });

  test('every definition of every revision validates without an unresolved reference, strict or not', () => {
    for (const revision of REVISIONS) {
      for (const strict of [true, false]) {
        const schema = new RevisionSchema(revision, documents[revision], strict);
        for (const name of Object.keys(definitionsOf(documents[revision]))) {
          assert.doesNotThrow(() => schema.check(name, {}), `${revision} ${name} (strict: ${strict})`);
        }
      }
    }
  });

  test('deriving leaves the original document untouched', () => {
    const before = JSON.stringify(documents['2025-11-25']);
    deriveStrictSchema(documents['2025-11-25']);
    deriveOfficialSchema(documents['2025-11-25']);
    assert.equal(JSON.stringify(documents['2025-11-25']), before);
  });
});

describe('the strict variant', () => {
  test('closes objects the spec defines field by field, in every revision', () => {
    for (const revision of REVISIONS) {
      const defs = strictDefs(revision);
      assert.equal(defs.Tool.additionalProperties, false, `${revision} Tool`);
      assert.equal(defs.Implementation.additionalProperties, false, `${revision} Implementation`);
      assert.equal(defs.ClientCapabilities.additionalProperties, false, `${revision} ClientCapabilities`);
      assert.equal(defs.ServerCapabilities.properties.tools.additionalProperties, false, revision);
      assert.equal(defs.JSONRPCRequest.additionalProperties, false, `${revision} JSONRPCRequest`);
    }
  });

  test('leaves open what is open by nature', () => {
    for (const revision of REVISIONS) {
      const defs = strictDefs(revision);
      const tool = defs.Tool.properties;
      assert.notEqual(tool.inputSchema.additionalProperties, false, `${revision} inputSchema`);
      assert.notEqual(defs.ClientCapabilities.properties.experimental.additionalProperties, false, revision);
      assert.notEqual(defs.JSONRPCRequest.properties.params.additionalProperties, false, revision);
      assert.notEqual(defs.Result.additionalProperties, false, `${revision} Result`);
      assert.notEqual(
        defs.CallToolRequest.additionalProperties,
        undefined,
        `${revision} CallToolRequest is closed`,
      );
    }
    assert.equal(
      strictDefs('2024-11-05').Request.properties.params.properties._meta.additionalProperties,
      undefined,
    );
    const modern = strictDefs('2026-07-28');
    for (const name of [
      'MetaObject',
      'RequestMetaObject',
      'ResultMetaObject',
      'StringSchema',
      'JSONObject',
    ]) {
      assert.notEqual(modern[name].additionalProperties, false, name);
    }
  });

  test('gives legacy request params back the inherited _meta, and nothing from 2025-11-25 on', () => {
    const old = strictDefs('2024-11-05');
    assert.deepEqual(Object.keys(old.CallToolRequest.properties.params.properties).sort(), [
      '_meta',
      'arguments',
      'name',
    ]);
    assert.ok(old.ProgressNotification.properties.params.properties._meta);
    const tasks = strictDefs('2025-11-25');
    assert.deepEqual(Object.keys(tasks.GetTaskRequest.properties.params.properties), ['taskId']);
  });

  test('closes allOf composites once, over the union of their branches', () => {
    const header = strictDefs('2026-07-28').HeaderMismatchError.properties.error;
    assert.equal(header.additionalProperties, false);
    assert.deepEqual(Object.keys(header.properties).sort(), ['code', 'data', 'message']);
    for (const branch of header.allOf) assert.equal(branch.additionalProperties, undefined);
    const task = strictDefs('2025-11-25').GetTaskResult;
    assert.equal(task.additionalProperties, false);
    assert.ok(task.properties._meta && task.properties.taskId && task.properties.ttl);
  });
});

describe('corrections applied to both variants', () => {
  test('error responses accept id null', () => {
    for (const revision of REVISIONS) {
      for (const derive of [deriveStrictSchema, deriveOfficialSchema]) {
        const schema = new RevisionSchema(revision, documents[revision], derive === deriveStrictSchema);
        const message = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
        assert.deepEqual(schema.check(schema.envelope.error, message), [], revision);
        const request = { jsonrpc: '2.0', id: null, method: 'ping' };
        assert.notDeepEqual(
          schema.check('JSONRPCRequest', request),
          [],
          `${revision}: requests still need an id`,
        );
      }
    }
  });

  test('JSONValue (2026-07-28) accepts any JSON value, as schema.ts declares', () => {
    const schema = new RevisionSchema('2026-07-28', documents['2026-07-28'], true);
    assert.deepEqual(schema.check('JSONObject', { ratio: 0.5, none: null, list: [1.5, null] }), []);
  });
});

describe('definition lookup', () => {
  test('methods come from each sender union', () => {
    const modern = new RevisionSchema('2026-07-28', documents['2026-07-28'], true);
    assert.equal(modern.messageDefinition('client', 'request', 'server/discover'), 'DiscoverRequest');
    assert.equal(
      modern.messageDefinition('client', 'notification', 'notifications/cancelled'),
      'CancelledNotification',
    );
    assert.equal(
      modern.messageDefinition('server', 'notification', 'notifications/cancelled'),
      'CancelledNotification',
    );
    assert.equal(modern.messageDefinition('server', 'request', 'sampling/createMessage'), undefined);
    const legacy = new RevisionSchema('2025-06-18', documents['2025-06-18'], true);
    assert.equal(legacy.messageDefinition('server', 'request', 'elicitation/create'), 'ElicitRequest');
    assert.equal(
      legacy.messageDefinition('client', 'notification', 'notifications/roots/list_changed'),
      'RootsListChangedNotification',
    );
    assert.equal(legacy.messageDefinition('client', 'request', 'elicitation/create'), undefined);
  });

  test('results follow the request names, EmptyResult otherwise', () => {
    const schema = new RevisionSchema('2025-11-25', documents['2025-11-25'], true);
    assert.equal(schema.resultDefinition('tools/call'), 'CallToolResult');
    assert.equal(schema.resultDefinition('tasks/result'), 'GetTaskPayloadResult');
    assert.equal(schema.resultDefinition('ping'), 'EmptyResult');
    assert.equal(schema.resultDefinition('resources/unsubscribe'), 'EmptyResult');
    assert.equal(schema.resultDefinition('nope'), undefined);
    const modern = new RevisionSchema('2026-07-28', documents['2026-07-28'], true);
    assert.equal(modern.resultDefinition('subscriptions/listen'), 'SubscriptionsListenResult');
    assert.deepEqual(
      ['tools/call', 'prompts/get', 'resources/read', 'tools/list', 'server/discover'].map((m) =>
        modern.acceptsInputRequired(m),
      ),
      [true, true, true, false, false],
    );
  });

  test('typed errors are indexed by code', () => {
    const modern = new RevisionSchema('2026-07-28', documents['2026-07-28'], true);
    assert.deepEqual(modern.errorDefinitions(-32022), [
      { definition: 'UnsupportedProtocolVersionError', scope: 'response' },
    ]);
    assert.deepEqual(modern.errorDefinitions(-32602), [{ definition: 'InvalidParamsError', scope: 'error' }]);
    const legacy = new RevisionSchema('2025-11-25', documents['2025-11-25'], true);
    assert.deepEqual(legacy.errorDefinitions(-32042), [
      { definition: 'URLElicitationRequiredError', scope: 'response' },
    ]);
    assert.deepEqual(legacy.errorDefinitions(-32602), []);
  });
});

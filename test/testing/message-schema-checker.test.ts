import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Revision } from '../../src/protocol/revisions.js';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { MessageSchemaChecker } from '../../src/testing/message-schema-checker.js';
import type { SchemaCatalog } from '../../src/testing/schema-catalog.js';
import { SchemaViolationError } from '../../src/testing/schema-violation.js';
import {
  ALL,
  clientRequest,
  error,
  initialize,
  initializeResult,
  LEGACY,
  listBody,
  modernMeta,
  notification,
  request,
  result,
  resultBody,
  richTool,
} from './wire-messages.js';

let catalog: SchemaCatalog;
before(async () => {
  catalog = await loadSchemaCatalog();
});

/** A fresh checker that has seen the client send `method` (id 1), so the server's response can be matched. */
function afterRequest(revision: Revision, method: string, params: Record<string, unknown> = {}) {
  const checker = new MessageSchemaChecker(catalog);
  assert.deepEqual(checker.checkMessage(revision, 'client', clientRequest(revision, 1, method, params)), []);
  return checker;
}

const reasons = (found: readonly { pointer: string; reason: string }[]) =>
  found.map((v) => `${v.pointer}: ${v.reason}`);

describe('results', () => {
  test('a tool title is a violation on 2024-11-05 and fine on 2025-06-18', () => {
    const tools = [{ ...richTool, title: 'Add numbers' }];
    const old = afterRequest('2024-11-05', 'tools/list').checkMessage(
      '2024-11-05',
      'server',
      result(1, { tools }),
    );
    assert.equal(old.length, 1, reasons(old).join('\n'));
    const [v] = old;
    assert.equal(v!.pointer, '/result/tools/0/title');
    assert.equal(v!.value, 'Add numbers');
    assert.equal(v!.definition, 'ListToolsResult');
    assert.equal(v!.keyword, 'additionalProperties');
    assert.equal(v!.schemaLocation, 'Tool/additionalProperties');
    // The one-line message names the revision, the definition, the pointer and the value.
    for (const part of [
      '2024-11-05',
      'ListToolsResult',
      '/result/tools/0/title',
      '"Add numbers"',
      'tools/list',
    ]) {
      assert.ok(v!.message.includes(part), `${v!.message} lacks ${part}`);
    }
    const newer = afterRequest('2025-06-18', 'tools/list').checkMessage(
      '2025-06-18',
      'server',
      result(1, { tools }),
    );
    assert.deepEqual(reasons(newer), []);
  });

  test('structuredContent is a violation on 2025-03-26 and fine from 2025-06-18', () => {
    const body = { content: [{ type: 'text', text: '3' }], structuredContent: { sum: 3 } };
    const old = afterRequest('2025-03-26', 'tools/call', { name: 'add' }).checkMessage(
      '2025-03-26',
      'server',
      result(1, body),
    );
    assert.deepEqual(reasons(old), [
      '/result/structuredContent: property "structuredContent" is not defined by CallToolResult in revision 2025-03-26',
    ]);
    for (const revision of ['2025-06-18', '2025-11-25', '2026-07-28'] as const) {
      const found = afterRequest(revision, 'tools/call', { name: 'add' }).checkMessage(
        revision,
        'server',
        result(1, resultBody(revision, body)),
      );
      assert.deepEqual(reasons(found), [], revision);
    }
  });

  test('audio content is a violation on 2024-11-05, naming the discriminator', () => {
    const body = { content: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] };
    const found = afterRequest('2024-11-05', 'tools/call', { name: 'speak' }).checkMessage(
      '2024-11-05',
      'server',
      result(1, body),
    );
    assert.equal(found.length, 1, reasons(found).join('\n'));
    assert.equal(found[0]!.pointer, '/result/content/0/type');
    assert.equal(found[0]!.value, 'audio');
    assert.match(found[0]!.reason, /matches none of TextContent, ImageContent, EmbeddedResource/);
    assert.match(found[0]!.reason, /"text", "image", "resource"/);
    const later = afterRequest('2025-03-26', 'tools/call', { name: 'speak' }).checkMessage(
      '2025-03-26',
      'server',
      result(1, body),
    );
    assert.deepEqual(reasons(later), []);
  });

  test('a bad member inside one content block names that block, not every alternative', () => {
    const body = { content: [{ type: 'text', text: 42 }] };
    const found = afterRequest('2025-06-18', 'tools/call', { name: 'x' }).checkMessage(
      '2025-06-18',
      'server',
      result(1, body),
    );
    assert.deepEqual(reasons(found), ['/result/content/0/text: expected string, got integer']);
    assert.equal(found[0]!.schemaLocation, 'TextContent/properties/text/type');
  });

  test('a 2026-07-28 result without resultType is a violation', () => {
    const found = afterRequest('2026-07-28', 'tools/call', { name: 'add' }).checkMessage(
      '2026-07-28',
      'server',
      result(1, { content: [] }),
    );
    assert.deepEqual(reasons(found), [
      '/result/resultType: required property "resultType" of CallToolResult is missing',
    ]);
  });

  test('ttlMs and cacheScope are required on modern list results', () => {
    const found = afterRequest('2026-07-28', 'tools/list').checkMessage(
      '2026-07-28',
      'server',
      result(1, { resultType: 'complete', cacheScope: 'public', tools: [richTool] }),
    );
    assert.deepEqual(reasons(found), [
      '/result/ttlMs: required property "ttlMs" of ListToolsResult is missing',
    ]);
    const ok = afterRequest('2026-07-28', 'tools/list').checkMessage(
      '2026-07-28',
      'server',
      result(1, listBody('2026-07-28', { tools: [richTool] })),
    );
    assert.deepEqual(reasons(ok), []);
  });

  test('an InputRequiredResult answers tools/call on 2026-07-28, but not tools/list', () => {
    const inputRequired = {
      resultType: 'input_required',
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Proceed?',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', default: true } } },
          },
        },
        ask: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } },
      },
      requestState: 'sealed-state',
    };
    const call = afterRequest('2026-07-28', 'tools/call', { name: 'deploy' });
    assert.deepEqual(reasons(call.checkMessage('2026-07-28', 'server', result(1, inputRequired))), []);
    const list = afterRequest('2026-07-28', 'tools/list');
    const found = list.checkMessage('2026-07-28', 'server', result(1, inputRequired));
    assert.equal(found.length, 1);
    assert.equal(found[0]!.keyword, 'resultType');
    assert.match(found[0]!.reason, /"tools\/list" cannot be answered with an InputRequiredResult/);
  });

  test('an input request inside an InputRequiredResult is checked like any message', () => {
    const found = afterRequest('2026-07-28', 'prompts/get', { name: 'p' }).checkMessage(
      '2026-07-28',
      'server',
      result(1, {
        resultType: 'input_required',
        inputRequests: { roots: { method: 'roots/list', params: {}, id: 7 } },
      }),
    );
    assert.deepEqual(reasons(found), [
      '/result/inputRequests/roots/id: property "id" is not defined by ListRootsRequest in revision 2026-07-28',
    ]);
  });

  test('ping, logging/setLevel and resources/subscribe are answered by EmptyResult', () => {
    for (const [method, params] of [
      ['ping', {}],
      ['logging/setLevel', { level: 'info' }],
      ['resources/subscribe', { uri: 'file:///a' }],
    ] as const) {
      const checker = afterRequest('2025-06-18', method, params);
      assert.deepEqual(checker.checkMessage('2025-06-18', 'server', result(1, {})), [], method);
    }
  });

  test('a result is checked against the request it answers, in either direction', () => {
    const checker = new MessageSchemaChecker(catalog);
    const sampling = request('s-1', 'sampling/createMessage', { messages: [], maxTokens: 5 });
    assert.deepEqual(checker.checkMessage('2025-06-18', 'server', sampling), []);
    assert.equal(checker.pendingRequest('server', 's-1')?.method, 'sampling/createMessage');
    const found = checker.checkMessage(
      '2025-06-18',
      'client',
      result('s-1', { role: 'assistant', model: 'm' }),
    );
    assert.deepEqual(reasons(found), [
      '/result/content: required property "content" of CreateMessageResult is missing',
    ]);
    assert.equal(checker.pendingRequest('server', 's-1'), undefined, 'the response settles the request');
  });

  test('a result that answers no request the checker saw is a violation unless context.method names it', () => {
    const checker = new MessageSchemaChecker(catalog);
    const [v] = checker.checkMessage('2025-06-18', 'server', result(9, { tools: [] }));
    assert.equal(v?.keyword, 'id');
    assert.equal(v?.pointer, '/id');
    const named = checker.checkMessage('2025-06-18', 'server', result(9, { tools: [{ name: 'x' }] }), {
      method: 'tools/list',
      label: 'replayed',
    });
    assert.deepEqual(reasons(named), [
      '/result/tools/0/inputSchema: required property "inputSchema" of Tool is missing',
    ]);
    assert.equal(named[0]!.label, 'replayed');
  });

  test('2025-11-25 task results (allOf of Result and Task) accept both sides and nothing else', () => {
    const task = {
      taskId: 't1',
      status: 'working',
      createdAt: '2025-11-25T10:00:00Z',
      lastUpdatedAt: '2025-11-25T10:00:01Z',
      ttl: null,
    };
    const ok = afterRequest('2025-11-25', 'tasks/get', { taskId: 't1' }).checkMessage(
      '2025-11-25',
      'server',
      result(1, { ...task, _meta: { 'example.com/trace': 1 } }),
    );
    assert.deepEqual(reasons(ok), []);
    const extra = afterRequest('2025-11-25', 'tasks/get', { taskId: 't1' }).checkMessage(
      '2025-11-25',
      'server',
      result(1, { ...task, progress: 0.5 }),
    );
    assert.deepEqual(reasons(extra), [
      '/result/progress: property "progress" is not defined by GetTaskResult in revision 2025-11-25',
    ]);
  });

  test('a task-augmented tools/call on 2025-11-25 may be answered by CreateTaskResult', () => {
    const checker = afterRequest('2025-11-25', 'tools/call', { name: 'slow', task: { ttl: 60000 } });
    const created = {
      task: {
        taskId: 't',
        status: 'working',
        createdAt: 'x',
        lastUpdatedAt: 'x',
        ttl: 60000,
        pollInterval: 500,
      },
    };
    assert.deepEqual(reasons(checker.checkMessage('2025-11-25', 'server', result(1, created))), []);
  });
});

describe('requests and notifications', () => {
  test('a method outside the revision is a violation', () => {
    const checker = new MessageSchemaChecker(catalog);
    const [missing] = checker.checkMessage('2024-11-05', 'server', request(1, 'elicitation/create', {}));
    assert.equal(missing?.keyword, 'method');
    assert.equal(missing?.pointer, '/method');
    assert.match(missing!.reason, /method "elicitation\/create" does not exist in revision 2024-11-05/);
    const [made] = checker.checkMessage('2025-06-18', 'client', request(2, 'tools/frobnicate'));
    assert.match(made!.reason, /method "tools\/frobnicate" does not exist in revision 2025-06-18/);
    const [legacyOnly] = checker.checkMessage(
      '2026-07-28',
      'client',
      clientRequest('2026-07-28', 3, 'initialize'),
    );
    assert.match(legacyOnly!.reason, /method "initialize" does not exist in revision 2026-07-28/);
  });

  test('a method from the wrong side is a violation that says whose it is', () => {
    const checker = new MessageSchemaChecker(catalog);
    const [wrongSide] = checker.checkMessage('2025-06-18', 'server', request(1, 'tools/list'));
    assert.match(
      wrongSide!.reason,
      /"tools\/list" is a client request in revision 2025-06-18; a server does not send it/,
    );
    const [asNotification] = checker.checkMessage('2025-06-18', 'client', notification('ping'));
    assert.match(asNotification!.reason, /"ping" is a request in revision 2025-06-18, not a notification/);
    // 2026-07-28 servers send no requests: sampling travels inside an InputRequiredResult.
    const [modern] = checker.checkMessage(
      '2026-07-28',
      'server',
      request(2, 'sampling/createMessage', { messages: [], maxTokens: 1 }),
    );
    assert.match(modern!.reason, /travels inside an InputRequiredResult/);
  });

  test('a valid initialize exchange passes on every legacy revision', () => {
    for (const revision of LEGACY) {
      const checker = new MessageSchemaChecker(catalog);
      const found = [
        ...checker.checkMessage(revision, 'client', initialize(revision)),
        ...checker.checkMessage(revision, 'server', initializeResult(revision)),
        ...checker.checkMessage(revision, 'client', notification('notifications/initialized')),
      ];
      assert.deepEqual(reasons(found), [], revision);
    }
  });

  test('initialize carries only what each revision defines', () => {
    const checker = new MessageSchemaChecker(catalog);
    const init = initialize('2024-11-05');
    (init.params as { clientInfo: Record<string, unknown> }).clientInfo.title = 'Test Client';
    (init.params as { capabilities: Record<string, unknown> }).capabilities.elicitation = {};
    assert.deepEqual(reasons(checker.checkMessage('2024-11-05', 'client', init)), [
      '/params/capabilities/elicitation: property "elicitation" is not defined by ClientCapabilities in revision 2024-11-05',
      '/params/clientInfo/title: property "title" is not defined by Implementation in revision 2024-11-05',
    ]);
    const response = initializeResult('2024-11-05');
    (response.result as { capabilities: Record<string, unknown> }).capabilities.completions = {};
    assert.deepEqual(reasons(checker.checkMessage('2024-11-05', 'server', response)), [
      '/result/capabilities/completions: property "completions" is not defined by ServerCapabilities in revision 2024-11-05',
    ]);
  });

  test('progressToken in _meta is allowed on every legacy request, though concrete params omit _meta', () => {
    for (const revision of LEGACY) {
      const checker = new MessageSchemaChecker(catalog);
      const call = request(1, 'tools/call', {
        name: 'add',
        arguments: { a: 1 },
        _meta: { progressToken: 'p1' },
      });
      assert.deepEqual(reasons(checker.checkMessage(revision, 'client', call)), [], revision);
      const progress = notification('notifications/progress', { progressToken: 'p1', progress: 1, total: 2 });
      assert.deepEqual(reasons(checker.checkMessage(revision, 'server', progress)), [], revision);
    }
  });

  test('modern requests need protocolVersion and clientCapabilities in _meta', () => {
    const checker = new MessageSchemaChecker(catalog);
    const found = checker.checkMessage('2026-07-28', 'client', request(1, 'tools/list', { _meta: {} }));
    assert.deepEqual(reasons(found), [
      '/params/_meta/io.modelcontextprotocol~1clientCapabilities: required property "io.modelcontextprotocol/clientCapabilities" of RequestMetaObject is missing',
      '/params/_meta/io.modelcontextprotocol~1protocolVersion: required property "io.modelcontextprotocol/protocolVersion" of RequestMetaObject is missing',
    ]);
    const ok = checker.checkMessage(
      '2026-07-28',
      'client',
      request(2, 'server/discover', {
        _meta: modernMeta({ 'com.example/trace': { depth: 0.5, parent: null } }),
      }),
    );
    assert.deepEqual(reasons(ok), []);
  });

  test('per-request client capabilities carry only what 2026-07-28 defines', () => {
    const checker = new MessageSchemaChecker(catalog);
    const meta = modernMeta({
      'io.modelcontextprotocol/clientCapabilities': {
        roots: { listChanged: true },
        elicitation: { form: {} },
      },
    });
    assert.deepEqual(
      reasons(checker.checkMessage('2026-07-28', 'client', request(1, 'tools/list', { _meta: meta }))),
      [
        '/params/_meta/io.modelcontextprotocol~1clientCapabilities/roots/listChanged: property "listChanged" is not defined by ClientCapabilities in revision 2026-07-28',
      ],
    );
  });

  test('a reused request id is a violation while the first request is pending', () => {
    const checker = new MessageSchemaChecker(catalog);
    checker.checkMessage('2025-06-18', 'client', request(1, 'tools/list'));
    const [v] = checker.checkMessage('2025-06-18', 'client', request(1, 'prompts/list'));
    assert.equal(v?.keyword, 'id');
    assert.match(v!.reason, /still in use by a pending "tools\/list" request/);
    checker.checkMessage('2025-06-18', 'server', result(1, { prompts: [] }));
    assert.deepEqual(checker.checkMessage('2025-06-18', 'client', request(1, 'ping')), []);
  });

  test('unknown top-level members are violations (strict), whatever the revision', () => {
    for (const revision of ALL) {
      const checker = new MessageSchemaChecker(catalog);
      const message = { ...clientRequest(revision, 1, 'tools/list'), extra: true };
      const found = checker.checkMessage(revision, 'client', message);
      assert.deepEqual(
        found.map((v) => [v.pointer, v.keyword]),
        [['/extra', 'additionalProperties']],
        revision,
      );
    }
  });
});

describe('JSON Schema payloads stay open', () => {
  test('inputSchema keywords ($schema, additionalProperties, $defs) are never flagged', () => {
    for (const revision of ALL) {
      const checker = afterRequest(revision, 'tools/list');
      const found = checker.checkMessage(
        revision,
        'server',
        result(1, listBody(revision, { tools: [richTool] })),
      );
      assert.deepEqual(reasons(found), [], revision);
    }
  });

  test('outputSchema, arguments, structuredContent, experimental and _meta accept anything', () => {
    const checker = afterRequest('2025-06-18', 'tools/list');
    const tool = {
      ...richTool,
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, additionalProperties: false },
      _meta: { 'com.example/ui': { nested: { deep: true } } },
    };
    assert.deepEqual(reasons(checker.checkMessage('2025-06-18', 'server', result(1, { tools: [tool] }))), []);
    const init = initialize('2025-06-18', 2);
    (init.params as { capabilities: Record<string, unknown> }).capabilities.experimental = {
      'com.example/feature': { anything: [1, 'two', { three: 3.5 }] },
    };
    assert.deepEqual(reasons(checker.checkMessage('2025-06-18', 'client', init)), []);
  });

  test('elicitation property schemas are JSON Schema and stay open', () => {
    const checker = new MessageSchemaChecker(catalog);
    const elicit = request(1, 'elicitation/create', {
      message: 'Your name?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, 'x-ui': 'text-field' } },
        required: ['name'],
      },
    });
    assert.deepEqual(reasons(checker.checkMessage('2025-06-18', 'server', elicit)), []);
  });
});

describe('errors', () => {
  test('an error with id null is valid on every revision', () => {
    for (const revision of ALL) {
      const checker = new MessageSchemaChecker(catalog);
      assert.deepEqual(
        checker.checkMessage(revision, 'server', error(null, -32700, 'Parse error')),
        [],
        revision,
      );
    }
  });

  test('the error object is closed: code, message, data', () => {
    const checker = new MessageSchemaChecker(catalog);
    const message = { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'nope', hint: 'x' } };
    assert.deepEqual(reasons(checker.checkMessage('2025-06-18', 'server', message)), [
      '/error/hint: property "hint" is not defined by JSONRPCError in revision 2025-06-18',
    ]);
  });

  test('typed errors of 2026-07-28 are checked when the code matches', () => {
    const checker = new MessageSchemaChecker(catalog);
    const unsupported = error(1, -32022, 'Unsupported protocol version', {
      supported: ['2026-07-28'],
      requested: '2099-01-01',
    });
    assert.deepEqual(checker.checkMessage('2026-07-28', 'server', unsupported), []);
    const incomplete = error(2, -32022, 'Unsupported protocol version', { requested: '2099-01-01' });
    assert.deepEqual(reasons(checker.checkMessage('2026-07-28', 'server', incomplete)), [
      '/error/data/supported: required property "supported" of UnsupportedProtocolVersionError is missing',
    ]);
    const missingCapability = error(3, -32021, 'Needs elicitation', {
      requiredCapabilities: { elicitation: {} },
    });
    assert.deepEqual(checker.checkMessage('2026-07-28', 'server', missingCapability), []);
    assert.deepEqual(checker.checkMessage('2026-07-28', 'server', error(4, -32020, 'Header mismatch')), []);
    const extra = error(5, -32020, 'Header mismatch');
    (extra.error as Record<string, unknown>).header = 'Mcp-Method';
    assert.deepEqual(reasons(checker.checkMessage('2026-07-28', 'server', extra)), [
      '/error/header: property "header" is not defined by HeaderMismatchError in revision 2026-07-28',
    ]);
  });

  test('-32042 on 2025-11-25 is checked as URLElicitationRequiredError', () => {
    const checker = new MessageSchemaChecker(catalog);
    const ok = error(1, -32042, 'Authorization needed', {
      elicitations: [
        { mode: 'url', elicitationId: 'e1', message: 'Sign in', url: 'https://example.com/auth' },
      ],
    });
    assert.deepEqual(reasons(checker.checkMessage('2025-11-25', 'server', ok)), []);
    const bad = error(2, -32042, 'Authorization needed', {});
    assert.deepEqual(reasons(checker.checkMessage('2025-11-25', 'server', bad)), [
      '/error/data/elicitations: required property "elicitations" of URLElicitationRequiredError is missing',
    ]);
  });
});

describe('batches', () => {
  test('2025-03-26 batches are checked element by element', () => {
    const checker = new MessageSchemaChecker(catalog);
    const batch = [
      request(1, 'tools/list'),
      request(2, 'prompts/list'),
      notification('notifications/initialized'),
    ];
    assert.deepEqual(checker.checkMessage('2025-03-26', 'client', batch), []);
    const answers = [result(1, { tools: [{ ...richTool, title: 'Add' }] }), result(2, { prompts: [] })];
    assert.deepEqual(reasons(checker.checkMessage('2025-03-26', 'server', answers)), [
      '/0/result/tools/0/title: property "title" is not defined by Tool in revision 2025-03-26',
    ]);
  });

  test('batches are violations outside 2025-03-26, and mixed or empty batches everywhere', () => {
    const checker = new MessageSchemaChecker(catalog);
    const [late] = checker.checkMessage('2025-06-18', 'client', [request(1, 'ping')]);
    assert.equal(late?.keyword, 'batch');
    assert.match(late!.reason, /batches do not exist in revision 2025-06-18/);
    const [empty] = checker.checkMessage('2025-03-26', 'client', []);
    assert.match(empty!.reason, /empty batch/);
    checker.checkMessage('2025-03-26', 'server', request(5, 'ping'));
    const mixed = checker.checkMessage('2025-03-26', 'client', [request(6, 'ping'), result(5, {})]);
    assert.deepEqual(
      mixed.map((v) => v.keyword),
      ['batch'],
    );
  });
});

describe('modes and assertions', () => {
  test('strict: false checks the schemas as published', () => {
    const checker = new MessageSchemaChecker(catalog, { strict: false });
    checker.checkMessage('2024-11-05', 'client', request(1, 'tools/list'));
    const titled = result(1, { tools: [{ ...richTool, title: 'Add' }] });
    assert.deepEqual(checker.checkMessage('2024-11-05', 'server', titled), []);
    // Types and required members are still enforced.
    checker.checkMessage('2024-11-05', 'client', request(2, 'tools/list'));
    const [v] = checker.checkMessage(
      '2024-11-05',
      'server',
      result(2, { tools: [{ name: 1, inputSchema: { type: 'object' } }] }),
    );
    assert.equal(v?.pointer, '/result/tools/0/name');
  });

  test('assertValid throws an assertion-like error listing every violation; violations() accumulates', () => {
    const checker = new MessageSchemaChecker(catalog);
    checker.assertValid('2025-06-18', 'client', request(1, 'tools/list'));
    assert.throws(
      () =>
        checker.assertValid('2025-06-18', 'server', result(1, { tools: [{ name: 'x' }] }), {
          label: 'step 2',
        }),
      (e: unknown) =>
        e instanceof SchemaViolationError &&
        e.code === 'ERR_ASSERTION' &&
        e.violations.length === 1 &&
        /1 schema violation in step 2/.test(e.message) &&
        e.message.includes('/result/tools/0/inputSchema'),
    );
    checker.checkMessage('2025-06-18', 'client', notification('notifications/nope'));
    assert.equal(checker.violations().length, 2);
  });

  test('messages are checked as they would go on the wire (undefined members vanish)', () => {
    const checker = new MessageSchemaChecker(catalog);
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: undefined } };
    assert.deepEqual(checker.checkMessage('2025-06-18', 'client', message), []);
    const [v] = checker.checkMessage('2025-06-18', 'client', { jsonrpc: '2.0', id: 2n, method: 'ping' });
    assert.equal(v?.keyword, 'json');
  });

  test('non-objects and non-messages are violations, not crashes', () => {
    const checker = new MessageSchemaChecker(catalog);
    for (const value of [null, 42, 'text', { jsonrpc: '2.0', id: 1 }]) {
      const found = checker.checkMessage('2025-06-18', 'client', value);
      assert.equal(found.length, 1, JSON.stringify(value));
    }
  });
});

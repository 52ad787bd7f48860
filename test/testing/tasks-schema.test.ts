/**
 * The tasks extension's schema merged into 2026-07-28 (`withTasksExtension`): the checker knows the
 * extension's messages and checks them as strictly as the core's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { loadSchemaCatalog } from '../../src/testing/load-schemas.js';
import { MessageSchemaChecker } from '../../src/testing/message-schema-checker.js';
import type { SchemaCatalog } from '../../src/testing/schema-catalog.js';
import { withTasksExtension } from '../../src/testing/tasks-schema.js';
import { clientRequest, modernMeta, notification, request, result } from './wire-messages.js';

let catalog: SchemaCatalog;
before(async () => {
  catalog = await loadSchemaCatalog();
});

const TASK = {
  taskId: 'a1b2',
  status: 'working',
  createdAt: '2026-08-01T10:00:00.000Z',
  lastUpdatedAt: '2026-08-01T10:00:00.000Z',
  ttlMs: 60_000,
  pollIntervalMs: 1000,
};

const reasons = (found: readonly { pointer: string; reason: string }[]) =>
  found.map((v) => `${v.pointer}: ${v.reason}`);

/** A checker that saw the client send `method` (id 1). */
function afterRequest(method: string, params: Record<string, unknown>) {
  const checker = new MessageSchemaChecker(catalog);
  const sent = checker.checkMessage('2026-07-28', 'client', clientRequest('2026-07-28', 1, method, params));
  assert.deepEqual(reasons(sent), []);
  return checker;
}

const answer = (checker: MessageSchemaChecker, body: Record<string, unknown>) =>
  reasons(checker.checkMessage('2026-07-28', 'server', result(1, body)));

describe('the tasks extension in the 2026-07-28 schema', () => {
  test('a tool call may be answered with a CreateTaskResult, checked field by field', () => {
    assert.deepEqual(answer(afterRequest('tools/call', { name: 't' }), { resultType: 'task', ...TASK }), []);
    const missing = answer(afterRequest('tools/call', { name: 't' }), { resultType: 'task', taskId: 'x' });
    assert.ok(
      missing.some((r) => /ttlMs/.test(r)),
      missing.join('\n'),
    );
    const extra = answer(afterRequest('tools/call', { name: 't' }), {
      resultType: 'task',
      ...TASK,
      result: {},
    });
    assert.ok(
      extra.some((r) => r.startsWith('/result/result')),
      extra.join('\n'),
    );
  });

  test('only tools/call may be answered with a task', () => {
    const found = answer(afterRequest('prompts/get', { name: 'p' }), { resultType: 'task', ...TASK });
    assert.deepEqual(found, [
      '/result/resultType: "prompts/get" cannot be answered with a task: the tasks extension supports only tools/call',
    ]);
  });

  test('tasks/get, tasks/update, tasks/cancel are client requests with the modern _meta', () => {
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/cancel', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: { '0': { action: 'decline' } } }],
    ] as const) {
      afterRequest(method, params);
      const bare = new MessageSchemaChecker(catalog).checkMessage(
        '2026-07-28',
        'client',
        request(1, method, params),
      );
      assert.ok(
        reasons(bare).some((r) => /_meta/.test(r)),
        `${method}: ${reasons(bare).join('\n')}`,
      );
    }
  });

  test('tasks/get answers a detailed task: each status with its payload', () => {
    const get = (body: Record<string, unknown>) => answer(afterRequest('tasks/get', { taskId: 'x' }), body);
    assert.deepEqual(get({ resultType: 'complete', ...TASK }), []);
    assert.deepEqual(
      get({ resultType: 'complete', ...TASK, status: 'completed', result: { content: [] } }),
      [],
    );
    assert.deepEqual(
      get({
        resultType: 'complete',
        ...TASK,
        status: 'input_required',
        inputRequests: { '0': { method: 'roots/list' } },
      }),
      [],
    );
    assert.notDeepEqual(get({ resultType: 'complete', ...TASK, status: 'completed' }), []);
    assert.notDeepEqual(get({ resultType: 'complete', ...TASK, status: 'failed' }), []);
    assert.notDeepEqual(get({ resultType: 'task', ...TASK }), []);
  });

  test('notifications/tasks and the taskIds listen filter', () => {
    const checker = new MessageSchemaChecker(catalog);
    const sent = (message: Record<string, unknown>) =>
      reasons(checker.checkMessage('2026-07-28', 'server', message));
    assert.deepEqual(
      sent(
        notification('notifications/tasks', {
          ...TASK,
          _meta: { 'io.modelcontextprotocol/subscriptionId': 3 },
        }),
      ),
      [],
    );
    assert.notDeepEqual(sent(notification('notifications/tasks', { ...TASK, status: 'sleeping' })), []);
    assert.deepEqual(
      sent(
        notification('notifications/subscriptions/acknowledged', {
          notifications: { taskIds: ['a'] },
          _meta: { 'io.modelcontextprotocol/subscriptionId': 3 },
        }),
      ),
      [],
    );
    const listen = (taskIds: unknown) =>
      reasons(
        new MessageSchemaChecker(catalog).checkMessage(
          '2026-07-28',
          'client',
          request(1, 'subscriptions/listen', { notifications: { taskIds }, _meta: modernMeta() }),
        ),
      );
    assert.deepEqual(listen(['a', 'b']), []);
    assert.notDeepEqual(listen('a'), []);
  });

  test('the merge leaves the core schema untouched and names what it adds', () => {
    const core = JSON.parse(
      readFileSync(new URL('../../../spec/schema/2026-07-28/schema.json', import.meta.url), 'utf8'),
    );
    const ext = JSON.parse(
      readFileSync(new URL('../../../spec/extensions/tasks/schema.json', import.meta.url), 'utf8'),
    );
    const before = JSON.stringify(core);
    const merged = withTasksExtension(core, ext) as { $defs: Record<string, any> };
    assert.equal(JSON.stringify(core), before);
    const members = merged.$defs.ClientRequest.anyOf.map((m: { $ref: string }) => m.$ref.split('/').pop());
    assert.ok(['GetTaskRequest', 'UpdateTaskRequest', 'CancelTaskRequest'].every((r) => members.includes(r)));
    assert.deepEqual(merged.$defs.SubscriptionFilter.properties.taskIds, {
      type: 'array',
      items: { type: 'string' },
    });
    // Legacy revisions are not touched: 2025-11-25 has its own experimental tasks.
    const legacy = new MessageSchemaChecker(catalog).checkMessage(
      '2025-11-25',
      'client',
      request(1, 'tasks/update', { taskId: 'x', inputResponses: {} }),
    );
    assert.ok(reasons(legacy).some((r) => /does not exist in revision 2025-11-25/.test(r)));
  });
});

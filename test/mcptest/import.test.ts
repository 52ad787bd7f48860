/**
 * `--import mcp-jest.json`: an mcp-jest config becomes a test file that reads without problems; the
 * plain expectations map, `shouldThrow` becomes `outcome: error`, and what has no equivalent is
 * listed, not dropped in silence.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatProblem, importMcpJest, parseTestFile } from 'switchboard/mcptest';

test('an mcp-jest config converts into a valid test file, naming what it could not map', async () => {
  const { text, notes } = importMcpJest(
    {
      server: { command: 'node', args: ['server.js'], env: { MODE: 'test' } },
      tests: {
        tools: {
          add: { args: { a: 5, b: 3 }, expect: "content[0].text === '8'" },
          'add:bad': { args: { a: 'x' }, shouldThrow: true },
          search: { args: { q: 'x' }, expect: 'content && content.length > 0' },
        },
        resources: {
          'notes://a': { expect: 'contains:hello', snapshot: { exclude: ['contents[0].uri'] } },
          'greeting://*': {},
        },
        prompts: { review: { args: { code: 42 }, expect: 'messages' } },
        timeout: 5000,
        maxRetries: 3,
      },
    },
    'mcp-jest.json',
  );
  const parsed = await parseTestFile('imported.mcptest.yaml', text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.problems.map(formatProblem).join('\n'));
  const { file } = parsed;
  assert.deepEqual(file.server, {
    kind: 'stdio',
    command: 'node',
    args: ['server.js'],
    env: { MODE: 'test' },
  });
  assert.equal(file.timeoutMs, 5000);
  const byName = new Map(file.tests.map((t) => [t.name, t]));
  assert.deepEqual(
    byName.get('tool add')?.expect.json?.map((j) => [j.source, 'equals' in j ? j.equals : undefined]),
    [['$.content[0].text', '8']],
  );
  assert.equal(byName.get('tool add:bad')?.expect.outcome, 'error');
  assert.deepEqual(byName.get('tool add:bad')?.step, { kind: 'call', tool: 'add', args: { a: 'x' } });
  assert.deepEqual(byName.get('resource notes://a')?.expect.text, { contains: 'hello' });
  assert.deepEqual(byName.get('resource notes://a')?.snapshot?.ignoreSources, ['$.contents[0].uri']);
  assert.deepEqual(byName.get('prompt review')?.step, {
    kind: 'prompt',
    name: 'review',
    args: { code: '42' },
  });
  assert.ok(!byName.has('resource greeting://*'));
  const said = notes.join('\n');
  assert.match(said, /"content\.length > 0" is not mapped/);
  assert.match(said, /greeting:\/\/\*.*URI pattern/);
  assert.match(said, /shouldThrow became outcome: error/);
  assert.match(said, /tests\.maxRetries is not mapped/);
  assert.match(text, /^# Imported from mcp-jest\.json/);
});

/**
 * Prompts (declared arguments, argument schemas, required checks, return shapes) and
 * `completion/complete` for prompt arguments and template variables.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { Server } from '../../src/extensions/server.js';
import { ErrorCode, ProtocolError } from '../../src/protocol/errors.js';
import { featuresOf, REVISIONS } from '../../src/protocol/revisions.js';
import type { CompletionContext } from '../../src/server/completion.js';
import { connectPair } from '../helpers/pair.js';
import { trapUnhandledRejections } from '../helpers/trap.js';
import { openWire } from '../helpers/wire.js';

trapUnhandledRejections();

const LANGUAGES = ['go', 'javascript', 'python', 'rust', 'typescript'];
const MANY = Array.from({ length: 250 }, (_, i) => `v${String(i).padStart(3, '0')}`);

function makeServer(seen: CompletionContext[] = []) {
  const server = new Server({ name: 'prompts', version: '1.0.0' });
  server.registerPrompt(
    'review',
    {
      title: 'Review',
      description: 'Reviews code',
      arguments: [
        {
          name: 'language',
          description: 'the language',
          required: true,
          complete: (value, context) => {
            seen.push(context);
            return LANGUAGES.filter((l) => l.startsWith(value));
          },
        },
        { name: 'style', required: true },
        { name: 'focus', description: 'optional focus' },
      ],
      complete: {
        focus: (value, { arguments: args }) =>
          [`${args.language ?? '?'}-perf`, `${args.language ?? '?'}-safety`].filter((f) => f.includes(value)),
      },
    },
    ({ language, style, focus }) =>
      `Review this ${language} code in a ${style} style${focus ? `, focusing on ${focus}` : ''}.`,
  );
  server.registerPrompt(
    'schema',
    {
      argsSchema: z.object({
        topic: z.string().min(2).describe('what to write about'),
        tone: z.enum(['dry', 'warm']).optional(),
      }),
    },
    ({ topic, tone }) => [
      { role: 'user', content: { type: 'text', text: `Write about ${topic}` } },
      { role: 'assistant', content: { type: 'text', text: `In a ${tone ?? 'neutral'} tone.` } },
    ],
  );
  server.registerPrompt('full', { description: 'full result' }, () => ({
    description: 'from the handler',
    messages: [{ role: 'user', content: { type: 'text', text: 'full' } }],
  }));
  server.registerPrompt('many', { arguments: [{ name: 'v' }], complete: { v: () => MANY } }, () => 'x');
  server.registerPrompt(
    'hundred',
    { arguments: [{ name: 'v' }], complete: { v: () => MANY.slice(0, 100) } },
    () => 'x',
  );
  server.registerPrompt('throws', {}, () => {
    throw new Error('template missing');
  });
  server.registerPrompt('bad', {}, () => 42 as never);
  server.registerPrompt(
    'badComplete',
    {
      arguments: [
        {
          name: 'a',
          complete: () => {
            throw new Error('index offline');
          },
        },
      ],
    },
    () => 'x',
  );
  server.registerResourceTemplate(
    'repo',
    'github://{owner}/{repo}',
    {
      complete: {
        owner: (value) => ['anthropic', 'acme', 'apple'].filter((o) => o.startsWith(value)),
        repo: (value, { arguments: args }) =>
          (args.owner === 'acme' ? ['anvil', 'rocket'] : ['other']).filter((r) => r.startsWith(value)),
      },
    },
    () => 'repo',
  );
  return server;
}

const promptError = async (promise: Promise<unknown>, code: number, ...fragments: string[]) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, code, error.message);
    for (const f of fragments) assert.ok(error.message.includes(f), `"${f}" in ${error.message}`);
    return true;
  });

for (const revision of REVISIONS) {
  describe(`prompts on ${revision}`, () => {
    test('listed with their arguments (declared or derived from a schema)', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { prompts } = await pair.client.listPrompts();
      assert.deepEqual(
        prompts.map((p) => p.name),
        ['bad', 'badComplete', 'full', 'hundred', 'many', 'review', 'schema', 'throws'],
      );
      const review = prompts.find((p) => p.name === 'review')!;
      assert.deepEqual(review.arguments, [
        { name: 'language', description: 'the language', required: true },
        { name: 'style', required: true },
        { name: 'focus', description: 'optional focus' },
      ]);
      assert.equal(review.title, featuresOf(revision).structured ? 'Review' : undefined);
      const schema = prompts.find((p) => p.name === 'schema')!;
      assert.deepEqual(schema.arguments, [
        { name: 'topic', description: 'what to write about', required: true },
        { name: 'tone' },
      ]);
      assert.equal(prompts.find((p) => p.name === 'full')!.arguments, undefined);
      pair.assertClean();
      await pair.close();
    });

    test('required arguments are checked before the handler runs → -32602 naming them', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      await assert.rejects(pair.client.getPrompt('review', { language: 'go' }), (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.code, ErrorCode.InvalidParams);
        assert.equal(error.message, 'Missing required argument "style" for prompt "review".');
        assert.deepEqual(error.data, { missing: ['style'] });
        return true;
      });
      await promptError(
        pair.client.getPrompt('review'),
        ErrorCode.InvalidParams,
        'Missing required arguments "language", "style"',
      );
      const ok = await pair.client.getPrompt('review', { language: 'go', style: 'terse', focus: 'errors' });
      assert.deepEqual(ok.messages, [
        {
          role: 'user',
          content: { type: 'text', text: 'Review this go code in a terse style, focusing on errors.' },
        },
      ]);
      pair.assertClean();
      await pair.close();
    });

    test('an argument schema validates (→ -32602 naming the field) and shapes the arguments', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      await promptError(
        pair.client.getPrompt('schema', { topic: 'x' }),
        ErrorCode.InvalidParams,
        'Invalid arguments for prompt "schema"',
        '"topic"',
      );
      await promptError(
        pair.client.getPrompt('schema', { topic: 'cats', tone: 'loud' }),
        ErrorCode.InvalidParams,
        '"tone"',
      );
      await promptError(
        pair.client.getPrompt('schema', {}),
        ErrorCode.InvalidParams,
        'Missing required argument "topic"',
      );
      const ok = await pair.client.getPrompt('schema', { topic: 'cats', tone: 'warm' });
      assert.deepEqual(ok.messages, [
        { role: 'user', content: { type: 'text', text: 'Write about cats' } },
        { role: 'assistant', content: { type: 'text', text: 'In a warm tone.' } },
      ]);
      pair.assertClean();
      await pair.close();
    });

    test('return shapes: string, messages, full result; bad returns and throws → -32603', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const full = await pair.client.getPrompt('full');
      assert.equal(full.description, 'from the handler');
      assert.deepEqual(full.messages, [{ role: 'user', content: { type: 'text', text: 'full' } }]);
      await promptError(
        pair.client.getPrompt('bad'),
        ErrorCode.InternalError,
        'Prompt "bad" returned an unexpected value',
      );
      await promptError(pair.client.getPrompt('throws'), ErrorCode.InternalError, 'template missing');
      pair.assertClean();
      await pair.close();
    });

    test('an unknown prompt → -32602 naming it', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      await assert.rejects(pair.client.getPrompt('nope'), (error: unknown) => {
        assert.ok(error instanceof ProtocolError);
        assert.equal(error.code, ErrorCode.InvalidParams);
        assert.equal(error.message, 'Unknown prompt: "nope". Call prompts/list for the available prompts.');
        assert.deepEqual(error.data, { name: 'nope' });
        return true;
      });
      pair.assertClean();
      await pair.close();
    });

    test('completion of prompt arguments, with context.arguments where the revision has it', async () => {
      const seen: CompletionContext[] = [];
      const pair = await connectPair(makeServer(seen), { version: { pin: revision } });
      const { client } = pair;
      const result = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'language', value: 'ty' },
        context: { arguments: { style: 'terse' } },
      });
      assert.deepEqual(result.completion, { values: ['typescript'], total: 1, hasMore: false });
      const hasContext = featuresOf(revision).structured;
      assert.deepEqual(seen[0]?.arguments, hasContext ? { style: 'terse' } : {});
      assert.equal(seen[0]?.ctx.revision, revision);
      const focus = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'focus', value: '' },
        context: { arguments: { language: 'rust' } },
      });
      assert.deepEqual(
        focus.completion.values,
        hasContext ? ['rust-perf', 'rust-safety'] : ['?-perf', '?-safety'],
      );
      // No completer for the argument: an empty answer, not an error.
      const none = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'style', value: '' },
      });
      assert.deepEqual(none.completion, { values: [], hasMore: false });
      pair.assertClean();
      await pair.close();
    });

    test('completion of template variables, with context.arguments', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      const owners = await client.complete({
        ref: { type: 'ref/resource', uri: 'github://{owner}/{repo}' },
        argument: { name: 'owner', value: 'a' },
      });
      assert.deepEqual(owners.completion, {
        values: ['anthropic', 'acme', 'apple'],
        total: 3,
        hasMore: false,
      });
      const repos = await client.complete({
        ref: { type: 'ref/resource', uri: 'github://{owner}/{repo}' },
        argument: { name: 'repo', value: '' },
        context: { arguments: { owner: 'acme' } },
      });
      assert.deepEqual(
        repos.completion.values,
        featuresOf(revision).structured ? ['anvil', 'rocket'] : ['other'],
      );
      pair.assertClean();
      await pair.close();
    });

    test('more than 100 values: the first 100, with total and hasMore', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const many = await pair.client.complete({
        ref: { type: 'ref/prompt', name: 'many' },
        argument: { name: 'v', value: '' },
      });
      assert.deepEqual(many.completion, { values: MANY.slice(0, 100), total: 250, hasMore: true });
      const hundred = await pair.client.complete({
        ref: { type: 'ref/prompt', name: 'hundred' },
        argument: { name: 'v', value: '' },
      });
      assert.deepEqual(hundred.completion, { values: MANY.slice(0, 100), total: 100, hasMore: false });
      pair.assertClean();
      await pair.close();
    });

    test('unknown refs → -32602; a failing completer → -32603', async () => {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      const { client } = pair;
      await promptError(
        client.complete({ ref: { type: 'ref/prompt', name: 'ghost' }, argument: { name: 'a', value: '' } }),
        ErrorCode.InvalidParams,
        'Unknown prompt: "ghost"',
      );
      await promptError(
        client.complete({
          ref: { type: 'ref/resource', uri: 'nope://{x}' },
          argument: { name: 'x', value: '' },
        }),
        ErrorCode.InvalidParams,
        'Unknown resource template "nope://{x}"',
      );
      await promptError(
        client.complete({
          ref: { type: 'ref/prompt', name: 'badComplete' },
          argument: { name: 'a', value: '' },
        }),
        ErrorCode.InternalError,
        'index offline',
      );
      pair.assertClean();
      await pair.close();
    });
  });
}

describe('completion names that are Object.prototype members (finding 8)', () => {
  test('constructor, toString, __proto__, hasOwnProperty get the normal empty completion', async () => {
    const server = makeServer();
    server.registerPrompt(
      'proto',
      { arguments: [{ name: '__proto__', complete: () => ['own'] }, { name: 'constructor' }] },
      () => 'x',
    );
    const wire = await openWire(server, { check: true });
    await wire.initialize('2025-11-25');
    const refs = [
      { type: 'ref/prompt', name: 'review' },
      { type: 'ref/prompt', name: 'proto' },
      { type: 'ref/resource', uri: 'github://{owner}/{repo}' },
    ];
    for (const ref of refs) {
      for (const name of [
        'constructor',
        'toString',
        '__proto__',
        'hasOwnProperty',
        'valueOf',
        '__defineGetter__',
      ]) {
        const reply = await wire.request('completion/complete', { ref, argument: { name, value: '' } });
        const expected =
          ref.type === 'ref/prompt' && ref.name === 'proto' && name === '__proto__'
            ? { values: ['own'], total: 1, hasMore: false }
            : { values: [], hasMore: false };
        assert.deepEqual(
          reply.result?.completion,
          expected,
          `${JSON.stringify(ref)} ${name}: ${JSON.stringify(reply)}`,
        );
      }
    }
    // Nothing was polluted on the way.
    assert.equal(({} as Record<string, unknown>).own, undefined);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
    wire.assertClean();
    await wire.close();
  });
});

describe('params checks', () => {
  test('malformed prompts/get and completion/complete params → -32602', async () => {
    const wire = await openWire(makeServer());
    await wire.initialize('2025-11-25');
    const cases: [string, Record<string, unknown>, string][] = [
      ['prompts/get', {}, '"name" must be a string'],
      ['prompts/get', { name: 'full', arguments: [] }, '"arguments" must be an object'],
      ['prompts/get', { name: 'full', arguments: { a: 1 } }, '"arguments.a" must be a string'],
      ['completion/complete', { argument: { name: 'a', value: '' } }, '"ref" must be an object'],
      [
        'completion/complete',
        { ref: { type: 'ref/other' }, argument: { name: 'a', value: '' } },
        '"ref.type"',
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt' }, argument: { name: 'a', value: '' } },
        '"ref.name"',
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/resource' }, argument: { name: 'a', value: '' } },
        '"ref.uri"',
      ],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'review' } }, '"argument"'],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'a', value: 1 } },
        '"argument"',
      ],
      [
        'completion/complete',
        {
          ref: { type: 'ref/prompt', name: 'review' },
          argument: { name: 'a', value: '' },
          context: { arguments: { x: 2 } },
        },
        '"context.arguments.x" must be a string',
      ],
    ];
    for (const [method, params, fragment] of cases) {
      const response = await wire.request(method, params);
      assert.equal(response.error?.code, ErrorCode.InvalidParams, JSON.stringify(params));
      assert.ok(response.error.message.includes(fragment), `"${fragment}" in ${response.error.message}`);
    }
    await wire.close();
  });

  test('the completions capability is advertised wherever the revision has it, and served on 2024-11-05 too', async () => {
    for (const revision of REVISIONS) {
      const pair = await connectPair(makeServer(), { version: { pin: revision } });
      assert.equal(
        pair.client.serverCapabilities.completions !== undefined,
        featuresOf(revision).annotations,
        revision,
      );
      pair.assertClean();
      await pair.close();
    }
  });
});

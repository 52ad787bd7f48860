/**
 * What every server in the interop tests serves — the Switchboard example server and the official
 * SDK fixtures alike — and the exact results a client must see. Each test wraps its client (official
 * or ours) in a {@link ContractClient} and runs {@link CONTRACT}.
 *
 * What is on the wire depends on the server: ours fits each result to the negotiated revision
 * (structured output becomes text, resource links become text lines, audio becomes a note before
 * the revisions that have them); the official servers send the same thing on every revision. A
 * check is told which it faces through {@link Wire}.
 */
import assert from 'node:assert/strict';
import { beepWav, LOGO_PNG_BASE64, NOTES, README } from '../../examples/data.js';

type Obj = Record<string, any>;

/** The operations the contract needs, whoever the client is. */
export interface ContractClient {
  listTools(): Promise<Obj[]>;
  callTool(name: string, args: Obj): Promise<Obj>;
  listResources(): Promise<Obj[]>;
  listResourceTemplates(): Promise<Obj[]>;
  readResource(uri: string): Promise<Obj[]>;
  listPrompts(): Promise<Obj[]>;
  getPrompt(name: string, args: Record<string, string>): Promise<Obj>;
  complete(ref: Obj, argument: { name: string; value: string }): Promise<string[]>;
}

/** What the official clients (v1 `Client`, v2 `Client`) offer: the same call shapes in both. */
export interface OfficialClientLike {
  listTools(): Promise<{ tools: Obj[] }>;
  callTool(params: { name: string; arguments?: Obj }): Promise<Obj>;
  listResources(): Promise<{ resources: Obj[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Obj[] }>;
  readResource(params: { uri: string }): Promise<{ contents: Obj[] }>;
  listPrompts(): Promise<{ prompts: Obj[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<Obj>;
  complete(params: { ref: any; argument: { name: string; value: string } }): Promise<{
    completion: { values: string[] };
  }>;
}

export function officialContractClient(client: OfficialClientLike): ContractClient {
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    listResources: async () => (await client.listResources()).resources,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    readResource: async (uri) => (await client.readResource({ uri })).contents,
    listPrompts: async () => (await client.listPrompts()).prompts,
    getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
    complete: async (ref, argument) => (await client.complete({ ref, argument })).completion.values,
  };
}

export const TOOL_NAMES = ['add', 'beep', 'divide', 'echo', 'find_notes', 'logo', 'read_note', 'word_count'];

const textBlock = (text: string) => ({ type: 'text', text });
const noteText = (id: string) => NOTES.find((n) => n.id === id)!.text;
const link = (wire: Wire, id: string, title: string) =>
  wire.structured
    ? { type: 'resource_link', uri: `notes://${id}`, name: id, title, mimeType: 'text/plain' }
    : textBlock(`Resource: ${title} <notes://${id}>`);
const embeddedNote = (id: string) => ({
  type: 'resource',
  resource: { uri: `notes://${id}`, mimeType: 'text/plain', text: noteText(id) },
});

/** The parts of a tool result the contract fixes (results also carry `_meta`, `resultType`...). */
function outcome(result: Obj): Obj {
  const out: Obj = { content: result.content };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
  if (result.isError) out.isError = true;
  return out;
}

/** Resolves with the error a call failed with; fails the test if it succeeded. */
export async function failure(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return error as { code: number; message: string };
  }
  assert.fail('the call succeeded, but it should have failed');
}

/** What the server's results may carry: `FULL_WIRE`, or the revision's features for a server that fits results to it. */
export interface Wire {
  /** Title, `outputSchema`/`structuredContent`, resource links (2025-06-18+). */
  readonly structured: boolean;
  /** Audio content (2025-03-26+). */
  readonly annotations: boolean;
  /** The revision named in downgrade notes. */
  readonly revision: string;
}

export const FULL_WIRE: Wire = { structured: true, annotations: true, revision: 'any' };

export interface ContractCheck {
  readonly name: string;
  run(client: ContractClient, wire: Wire): Promise<void>;
}

/** A structured result as a revision without structured output sees it: the JSON text only. */
const structured = (wire: Wire, text: string, value: Obj): Obj =>
  wire.structured ? { content: [textBlock(text)], structuredContent: value } : { content: [textBlock(text)] };

export const CONTRACT: readonly ContractCheck[] = [
  {
    name: 'tools/list',
    async run(client, wire) {
      const tools = await client.listTools();
      // The example server also has `count` (progress and logging), `book_table` (elicitation) and
      // `wait` (a long, cancellable call), which the fixtures leave out.
      const exampleOnly = new Set(['count', 'book_table', 'wait']);
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(
        names.filter((name) => !exampleOnly.has(name)),
        TOOL_NAMES,
      );
      const byName = new Map(tools.map((t) => [t.name, t]));
      for (const name of TOOL_NAMES) assert.equal(byName.get(name)!.inputSchema.type, 'object', name);
      for (const name of ['add', 'word_count']) {
        assert.equal(byName.get(name)!.outputSchema?.type, wire.structured ? 'object' : undefined, name);
      }
    },
  },
  {
    name: 'tools/call: text',
    async run(client) {
      assert.deepEqual(outcome(await client.callTool('echo', { text: 'hello', shout: true })), {
        content: [textBlock('HELLO')],
      });
      assert.deepEqual(outcome(await client.callTool('divide', { a: 6, b: 3 })), {
        content: [textBlock('6 / 3 = 2')],
      });
    },
  },
  {
    name: 'tools/call: invalid arguments are a tool error',
    async run(client) {
      const result = await client.callTool('echo', { text: '' });
      assert.equal(result.isError, true);
      assert.equal(result.content.length, 1);
      assert.equal(result.content[0].type, 'text');
      assert.match(result.content[0].text, /text/);
    },
  },
  {
    name: 'tools/call: isError',
    async run(client) {
      assert.deepEqual(outcome(await client.callTool('divide', { a: 1, b: 0 })), {
        content: [textBlock('Cannot divide by zero: pass a non-zero b.')],
        isError: true,
      });
    },
  },
  {
    name: 'tools/call: structured output (zod schema)',
    async run(client, wire) {
      assert.deepEqual(
        outcome(await client.callTool('add', { a: 2, b: 40 })),
        structured(wire, '{"sum":42}', { sum: 42 }),
      );
    },
  },
  {
    name: 'tools/call: structured output (raw JSON Schema)',
    async run(client, wire) {
      assert.deepEqual(
        outcome(await client.callTool('word_count', { text: 'one two\nthree' })),
        structured(wire, '3 words, 13 characters, 2 lines', { words: 3, characters: 13, lines: 2 }),
      );
    },
  },
  {
    name: 'tools/call: image',
    async run(client) {
      assert.deepEqual(outcome(await client.callTool('logo', {})), {
        content: [
          textBlock('The Switchboard logo:'),
          {
            type: 'image',
            data: LOGO_PNG_BASE64,
            mimeType: 'image/png',
            annotations: { audience: ['user'] },
          },
        ],
      });
    },
  },
  {
    name: 'tools/call: audio',
    async run(client, wire) {
      const wav = Buffer.from(beepWav(880)).toString('base64');
      const note = `[audio content (audio/wav) omitted: protocol revision ${wire.revision} cannot carry audio]`;
      assert.deepEqual(outcome(await client.callTool('beep', { hz: 880 })), {
        content: [wire.annotations ? { type: 'audio', data: wav, mimeType: 'audio/wav' } : textBlock(note)],
      });
    },
  },
  {
    name: 'tools/call: resource links and embedded resources',
    async run(client, wire) {
      assert.deepEqual(outcome(await client.callTool('find_notes', { query: 'work' })), {
        content: [
          textBlock('2 notes match "work":'),
          link(wire, 'ideas', 'Ideas'),
          link(wire, 'meeting', 'Meeting notes'),
        ],
      });
      assert.deepEqual(outcome(await client.callTool('read_note', { id: 'groceries' })), {
        content: [embeddedNote('groceries')],
      });
    },
  },
  {
    name: 'resources/list and resources/templates/list',
    async run(client, wire) {
      // The example's Agent Skill (skill:// files, the Skills extension) is not part of the shared
      // content: the official fixtures serve no skills (see test/interop/skills-reference.test.ts).
      const resources = (await client.listResources()).filter((r) => !r.uri.startsWith('skill://'));
      assert.deepEqual(resources.map((r) => r.uri).sort(), [
        'docs://readme',
        'images://logo.png',
        'notes://groceries',
        'notes://ideas',
        'notes://meeting',
      ]);
      const note = resources.find((r) => r.uri === 'notes://ideas')!;
      assert.deepEqual(
        [note.name, note.title, note.mimeType],
        ['ideas', wire.structured ? 'Ideas' : undefined, 'text/plain'],
      );
      const templates = await client.listResourceTemplates();
      assert.deepEqual(templates.map((t) => t.uriTemplate).sort(), [
        'notes://tagged/{tag}{?limit}',
        'notes://{id}',
      ]);
    },
  },
  {
    name: 'resources/read: text, blob, templates',
    async run(client) {
      assert.deepEqual(await client.readResource('docs://readme'), [
        { uri: 'docs://readme', mimeType: 'text/markdown', text: README },
      ]);
      assert.deepEqual(await client.readResource('images://logo.png'), [
        { uri: 'images://logo.png', mimeType: 'image/png', blob: LOGO_PNG_BASE64 },
      ]);
      assert.deepEqual(await client.readResource('notes://ideas'), [
        { uri: 'notes://ideas', mimeType: 'text/plain', text: noteText('ideas') },
      ]);
      assert.deepEqual(await client.readResource('notes://tagged/work?limit=1'), [
        { uri: 'notes://tagged/work?limit=1', mimeType: 'application/json', text: '["ideas"]' },
      ]);
    },
  },
  {
    name: 'resources/read: not found',
    async run(client) {
      const error = await failure(client.readResource('notes://nope'));
      // -32002 until 2025-11-25, -32602 since 2026-07-28 (the official v2 server uses -32602 in both eras).
      assert.ok([-32002, -32602].includes(error.code), `code ${error.code}: ${error.message}`);
    },
  },
  {
    name: 'prompts/list and prompts/get',
    async run(client) {
      const prompts = await client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name).sort(), ['greet', 'summarize_note']);
      const summarize = prompts.find((p) => p.name === 'summarize_note')!;
      assert.deepEqual(
        summarize.arguments.map((a: Obj) => [a.name, a.required === true]),
        [
          ['id', true],
          ['style', false],
        ],
      );
      const got = await client.getPrompt('summarize_note', { id: 'ideas', style: 'detailed' });
      assert.deepEqual(got.messages, [
        { role: 'user', content: textBlock('Summarize this note in a detailed style.') },
        { role: 'user', content: embeddedNote('ideas') },
      ]);
      const greeting = await client.getPrompt('greet', { name: 'Ada', mood: 'formal' });
      assert.deepEqual(greeting.messages, [{ role: 'user', content: textBlock('Good day, Ada.') }]);
    },
  },
  {
    name: 'prompts/get: missing required argument',
    async run(client) {
      const error = await failure(client.getPrompt('summarize_note', { style: 'brief' }));
      assert.equal(error.code, -32602, error.message);
    },
  },
  {
    name: 'completion/complete: prompt arguments and template variables',
    async run(client) {
      const prompt = { type: 'ref/prompt', name: 'summarize_note' };
      assert.deepEqual(await client.complete(prompt, { name: 'id', value: 'm' }), ['meeting']);
      assert.deepEqual(await client.complete(prompt, { name: 'style', value: 'd' }), ['detailed']);
      assert.deepEqual(
        await client.complete({ type: 'ref/resource', uri: 'notes://{id}' }, { name: 'id', value: 'g' }),
        ['groceries'],
      );
      assert.deepEqual(
        await client.complete(
          { type: 'ref/resource', uri: 'notes://tagged/{tag}{?limit}' },
          { name: 'tag', value: 'w' },
        ),
        ['work'],
      );
    },
  },
];

/**
 * The Switchboard example server: one of everything the server framework offers, written to be read.
 *
 * - Tools that return text, an image, audio, structured output (zod, and raw JSON Schema), resource
 *   links and embedded resources; a tool error; input validation; progress and logging; a tool that
 *   asks the user (elicitation) and a slow one that can be cancelled.
 * - Static resources (text and binary) and RFC 6570 resource templates with completion and listing.
 * - Prompts with required and optional arguments, completed as the user types.
 * - An Agent Skill (examples/skills/notes-research) served as skill:// resources (Skills extension).
 * - Middleware around every request, and a tool only some clients can see.
 * - Titles, icons, annotations and `_meta` wherever the protocol has them, and `instructions`.
 *
 * One definition serves every protocol revision: 2026-07-28 clients and legacy (`initialize`) clients
 * alike. Fields an older revision cannot carry are dropped or downgraded on the way out.
 *
 * Run it over HTTP:   node build/examples/server.js --port 7420  (or: npm run --silent demo -- --port 7420)
 * Run it over stdio:  node build/examples/server.js --stdio      (or: npm run --silent demo -- --stdio)
 * Reuse it in-process: import { createExampleServer } from './server.js'
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import {
  audio,
  createHttpHandler,
  ErrorCode,
  embeddedResource,
  image,
  jsonSchema,
  ProtocolError,
  resourceLink,
  Server,
  type ServerOptions,
  text,
  toolError,
} from 'switchboard';
import { serve } from 'switchboard/node';
import { serveStdio } from 'switchboard/stdio';
import { z } from 'zod';
import { beepWav, countWords, findNote, LOGO_ICON, LOGO_PNG_BASE64, NOTES, README } from './data.js';

/** `_meta` keys outside the reserved `io.modelcontextprotocol/` prefix belong to whoever names them. */
const CATEGORY = 'com.example/category';
/** The experimental client capability that unlocks the `debug_stats` tool. */
export const DEBUG = 'com.example/debug';

const noteUri = (id: string) => `notes://${id}`;

/** Completion: the candidates that start with what the user typed so far. */
const startingWith = (candidates: readonly string[]) => (value: string) =>
  candidates.filter((candidate) => candidate.startsWith(value));

/** `options`: more server options (the cluster demo passes the Redis stores). */
export function createExampleServer(options: ServerOptions = {}): Server {
  const server = new Server(
    {
      name: 'switchboard-example',
      version: '1.0.0',
      title: 'Switchboard Example',
      description: 'Every feature of the Switchboard server framework, in one small server.',
      websiteUrl: 'https://example.com/switchboard',
      icons: [LOGO_ICON],
    },
    {
      instructions:
        'A demo server. Notes live under notes://{id}; find_notes searches them, read_note embeds one, ' +
        'and the summarize_note prompt asks for a summary.',
      ...options,
    },
  );

  // --- tools: text, validation, annotations -----------------------------------------------------
  // A handler returns a string (one text block), an array of content blocks, or a whole result.

  server.registerTool(
    'echo',
    {
      title: 'Echo',
      description: 'Repeats the text it is given, optionally in capitals.',
      icons: [LOGO_ICON],
      // Arguments are validated before the handler runs: `{ text: '' }` comes back as an isError
      // result that tells the model what to fix.
      inputSchema: z.object({
        text: z.string().min(1).describe('What to repeat'),
        shout: z.boolean().optional().describe('Repeat it in capitals'),
      }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      _meta: { [CATEGORY]: 'basics' },
    },
    ({ text: value, shout }) => (shout ? value.toUpperCase() : value),
  );

  // A tool error: a failure the model can read and act on, not a protocol error.
  server.registerTool(
    'divide',
    {
      title: 'Divide',
      description: 'Divides a by b.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) =>
      b === 0 ? toolError('Cannot divide by zero: pass a non-zero b.') : `${a} / ${b} = ${a / b}`,
  );

  // --- tools: structured output -------------------------------------------------------------------

  // With zod: the output schema is advertised as JSON Schema, and every result is checked against it.
  // Clients that only read text get the JSON of `structuredContent` as a text block.
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Adds two numbers and returns the sum as structured output.',
      inputSchema: z.object({
        a: z.number().describe('First addend'),
        b: z.number().describe('Second addend'),
      }),
      outputSchema: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    ({ a, b }) => ({ structuredContent: { sum: a + b } }),
  );

  // With raw JSON Schema: `jsonSchema<T>()` gives the handler its types; the schema goes out as written.
  server.registerTool(
    'word_count',
    {
      title: 'Word count',
      description: 'Counts the words, characters and lines of a text.',
      inputSchema: jsonSchema<{ text: string }>({
        type: 'object',
        properties: { text: { type: 'string', description: 'The text to count' } },
        required: ['text'],
        additionalProperties: false,
      }),
      outputSchema: jsonSchema<{ words: number; characters: number; lines: number }>({
        type: 'object',
        properties: {
          words: { type: 'integer', minimum: 0 },
          characters: { type: 'integer', minimum: 0 },
          lines: { type: 'integer', minimum: 0 },
        },
        required: ['words', 'characters', 'lines'],
        additionalProperties: false,
      }),
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    ({ text: value }) => {
      const counts = countWords(value);
      return {
        structuredContent: counts,
        content: [text(`${counts.words} words, ${counts.characters} characters, ${counts.lines} lines`)],
      };
    },
  );

  // --- tools: media ---------------------------------------------------------------------------------

  server.registerTool(
    'logo',
    { title: 'Logo', description: 'Shows the Switchboard logo (a 16×16 PNG).' },
    () => [
      text('The Switchboard logo:'),
      image(LOGO_PNG_BASE64, 'image/png', { annotations: { audience: ['user'] } }),
    ],
  );

  // Audio arrived in 2025-03-26; an older client gets a text note in its place.
  server.registerTool(
    'beep',
    {
      title: 'Beep',
      description: 'Returns a short sine beep as a WAV file.',
      inputSchema: z.object({
        hz: z.number().int().min(100).max(2000).optional().describe('Pitch in hertz'),
      }),
    },
    ({ hz }) => [audio(beepWav(hz ?? 440), 'audio/wav')],
  );

  // --- tools: resources in results -------------------------------------------------------------------

  // Resource links point at resources the client may read later (2025-06-18+; older clients get a
  // line of text per link).
  server.registerTool(
    'find_notes',
    {
      title: 'Find notes',
      description: 'Finds notes whose title, text or tags contain the query; returns links to them.',
      inputSchema: z.object({ query: z.string().describe('Case-insensitive search text') }),
      annotations: { readOnlyHint: true },
    },
    ({ query }) => {
      const q = query.toLowerCase();
      const found = NOTES.filter((note) =>
        [note.title, note.text, ...note.tags].some((field) => field.toLowerCase().includes(q)),
      );
      if (found.length === 0) return `No note matches "${query}".`;
      return [
        text(`${found.length} note${found.length === 1 ? '' : 's'} match "${query}":`),
        ...found.map((note) =>
          resourceLink({ uri: noteUri(note.id), name: note.id, title: note.title, mimeType: 'text/plain' }),
        ),
      ];
    },
  );

  // An embedded resource carries the contents themselves.
  server.registerTool(
    'read_note',
    {
      title: 'Read a note',
      description: 'Returns a note as an embedded resource.',
      inputSchema: z.object({ id: z.string().describe('The note id, e.g. "groceries"') }),
      annotations: { readOnlyHint: true },
    },
    ({ id }) => {
      const note = findNote(id);
      if (!note)
        return toolError(`There is no note "${id}"; known notes: ${NOTES.map((n) => n.id).join(', ')}.`);
      return [embeddedResource({ uri: noteUri(note.id), mimeType: 'text/plain', text: note.text })];
    },
  );

  // --- tools: progress and logging --------------------------------------------------------------------

  // `ctx.progress` reaches clients that sent a progressToken; `ctx.log` those whose log level lets it
  // through. Both are no-ops otherwise, so handlers never need to check.
  server.registerTool(
    'count',
    {
      title: 'Count',
      description: 'Counts from 1 to n, reporting progress and logging each step.',
      inputSchema: z.object({ n: z.number().int().min(1).max(10) }),
    },
    ({ n }, ctx) => {
      for (let i = 1; i <= n; i++) {
        ctx.progress(i, n, `step ${i} of ${n}`);
        ctx.log('info', { step: i }, 'count');
      }
      return `Counted to ${n}.`;
    },
  );

  // --- tools: asking the user, and long work that can be cancelled ----------------------------------

  // `ctx.elicit` asks the user through the client (a form it shows), in either era: a legacy client
  // gets an elicitation/create request, a 2026-07-28 client an input_required round.
  server.registerTool(
    'book_table',
    {
      title: 'Book a table',
      description: 'Asks who is coming (an elicitation form), then books a table.',
      inputSchema: z.object({ restaurant: z.string().default('Chez MCP').describe('Where to book') }),
    },
    async ({ restaurant }, ctx) => {
      const answer = await ctx.elicit({
        message: `Booking at ${restaurant}: who is coming?`,
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name', description: 'The booking is under this name' },
            guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
            seating: { type: 'string', title: 'Seating', enum: ['inside', 'terrace'] },
            vegetarian: { type: 'boolean', title: 'Vegetarian menu', default: false },
          },
          required: ['name', 'guests'],
        },
      });
      if (answer.action !== 'accept') return `No booking: the user chose ${answer.action}.`;
      const { name, guests, seating } = answer.content;
      return `Booked a table for ${guests} at ${restaurant} under ${name}${seating ? `, ${seating}` : ''}.`;
    },
  );

  // A slow tool: progress four times a second; `ctx.signal` fires when the client cancels.
  server.registerTool(
    'wait',
    {
      title: 'Wait',
      description: 'Waits for some seconds, reporting progress; stops when cancelled.',
      inputSchema: z.object({ seconds: z.number().min(0).max(600).describe('How long to wait') }),
      annotations: { readOnlyHint: true },
    },
    async ({ seconds }, ctx) => {
      const steps = Math.max(1, Math.round(seconds * 4));
      for (let step = 1; step <= steps; step++) {
        await sleep(250, undefined, { signal: ctx.signal });
        ctx.progress(step, steps, `${(step / 4).toFixed(2)} of ${seconds} s`);
      }
      return `Waited ${seconds} s.`;
    },
  );

  // --- middleware and per-client visibility ----------------------------------------------------------

  // Middleware wraps every request after the protocol checks (first added = outermost). This one
  // counts requests by method, for the debug tool below.
  const served = new Map<string, number>();
  server.use((next) => (method, params, ctx) => {
    served.set(method, (served.get(method) ?? 0) + 1);
    return next(method, params, ctx);
  });

  server.registerTool(
    'debug_stats',
    {
      title: 'Debug statistics',
      description: 'How many requests this server has served, by method.',
      outputSchema: z.object({ served: z.record(z.string(), z.number()) }),
      annotations: { readOnlyHint: true },
    },
    () => ({ structuredContent: { served: Object.fromEntries(served) } }),
  );

  // Only clients that declare the experimental `com.example/debug` capability see the debug tool, in
  // tools/list and in tools/call alike. (Lists then vary by caller: their cache scope becomes private.)
  server.filterList(
    'tools',
    (tool, ctx) => tool.name !== 'debug_stats' || ctx.client.capabilities.experimental?.[DEBUG] !== undefined,
  );

  // --- resources -------------------------------------------------------------------------------------

  server.registerResource(
    'readme',
    'docs://readme',
    {
      title: 'Read me',
      description: 'What this server offers.',
      mimeType: 'text/markdown',
      size: new TextEncoder().encode(README).length,
      icons: [LOGO_ICON],
      annotations: { audience: ['user', 'assistant'], priority: 0.9, lastModified: '2025-01-01T00:00:00Z' },
      _meta: { [CATEGORY]: 'docs' },
      // 2026-07-28 clients may cache reads of it for a minute.
      cache: { ttlMs: 60_000, cacheScope: 'public' },
    },
    () => README,
  );

  // Binary contents go out base64-encoded as `blob` (return bytes, or a ready `{ uri, blob }`).
  server.registerResource(
    'logo',
    'images://logo.png',
    { title: 'Logo', description: 'The Switchboard logo, 16×16.', mimeType: 'image/png' },
    (uri) => ({ uri, mimeType: 'image/png', blob: LOGO_PNG_BASE64 }),
  );

  // --- resource templates (RFC 6570) -----------------------------------------------------------------

  server.registerResourceTemplate(
    'note',
    'notes://{id}',
    {
      title: 'Note',
      description: 'One note, by id.',
      mimeType: 'text/plain',
      // Concrete notes appear in resources/list...
      list: () =>
        NOTES.map((note) => ({
          uri: noteUri(note.id),
          name: note.id,
          title: note.title,
          mimeType: 'text/plain',
        })),
      // ...and `id` completes in completion/complete.
      complete: { id: startingWith(NOTES.map((note) => note.id)) },
    },
    // Returning undefined means "no such resource": the client gets its era's not-found error.
    (_uri, { id }) => findNote(String(id))?.text,
  );

  // Level 3 expansion: query parameters, in any order, each optional.
  server.registerResourceTemplate(
    'notes by tag',
    'notes://tagged/{tag}{?limit}',
    {
      title: 'Notes by tag',
      description: 'The notes with a tag, as JSON; `limit` caps how many.',
      mimeType: 'application/json',
      complete: { tag: startingWith([...new Set(NOTES.flatMap((note) => note.tags))].sort()) },
    },
    (_uri, { tag, limit }) => {
      const tagged = NOTES.filter((note) => note.tags.includes(String(tag)));
      const max = limit === undefined ? tagged.length : Number(String(limit));
      return JSON.stringify(tagged.slice(0, max).map((note) => note.id));
    },
  );

  // --- skills (the io.modelcontextprotocol/skills extension) ----------------------------------------
  // An Agent Skill teaching a model how to use this server's notes: its SKILL.md and supporting file
  // become skill:// resources, listed by skills/list with their digests (see docs/skills.md).

  server.registerSkill(new URL('../../examples/skills/notes-research/', import.meta.url));

  // --- prompts ---------------------------------------------------------------------------------------

  server.registerPrompt(
    'summarize_note',
    {
      title: 'Summarize a note',
      description: 'Asks the model to summarize one note.',
      icons: [LOGO_ICON],
      _meta: { [CATEGORY]: 'notes' },
      arguments: [
        {
          name: 'id',
          title: 'Note',
          description: 'Which note',
          required: true,
          complete: startingWith(NOTES.map((note) => note.id)),
        },
        {
          name: 'style',
          title: 'Style',
          description: 'brief (default) or detailed',
          complete: startingWith(['brief', 'detailed']),
        },
      ],
    },
    ({ id, style }) => {
      const note = findNote(id ?? '');
      if (!note) {
        throw new ProtocolError(ErrorCode.InvalidParams, `Unknown note "${id}": complete the id argument.`);
      }
      return [
        { role: 'user', content: text(`Summarize this note in a ${style ?? 'brief'} style.`) },
        {
          role: 'user',
          content: embeddedResource({ uri: noteUri(note.id), mimeType: 'text/plain', text: note.text }),
        },
      ];
    },
  );

  // Arguments may also come from a schema of string fields: declared, required and validated by it.
  server.registerPrompt(
    'greet',
    {
      title: 'Greet',
      description: 'A greeting to start a conversation.',
      argsSchema: z.object({
        name: z.string().describe('Who to greet'),
        mood: z.enum(['cheerful', 'formal']).optional().describe('cheerful (default) or formal'),
      }),
      complete: { mood: startingWith(['cheerful', 'formal']) },
    },
    ({ name, mood }) => (mood === 'formal' ? `Good day, ${name}.` : `Hello, ${name}!`),
  );

  return server;
}

// --- as a program ----------------------------------------------------------------------------------

const USAGE = `usage: node build/examples/server.js --port <n> [--host <addr>]   serve over HTTP (both eras)
       node build/examples/server.js --stdio                      serve on stdin/stdout
`;

/**
 * Serves the example over HTTP until SIGINT/SIGTERM: Streamable HTTP at /mcp for 2026-07-28 and the
 * legacy revisions, and the 2024-11-05 HTTP+SSE transport at /sse. Resolves with the endpoint URL.
 */
export async function serveExampleOverHttp(
  port: number,
  host = '127.0.0.1',
): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createHttpHandler(createExampleServer());
  const running = await serve(handler, { port, host });
  const stop = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return running;
}

/** How to reach the server at `url`, for humans. */
export function howToConnect(url: string): string {
  return `Switchboard example server at ${url}
  2026-07-28 and legacy (2024-11-05 .. 2025-11-25) clients on this URL;
  2024-11-05 HTTP+SSE clients at ${new URL('/sse', url).href}

Try it:
  node build/dist/cli/main.js tools ${url}
  node build/dist/cli/main.js call ${url} add a=2 b=40
  node build/dist/cli/main.js read ${url} notes://ideas
or point any MCP client (Streamable HTTP) at ${url}. Ctrl-C stops the server.
`;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const port = arg('--port');
  if (process.argv.includes('--stdio')) {
    // Serves until the client closes stdin (or SIGINT/SIGTERM), then exits. stdout carries the
    // protocol, so anything human-readable goes to stderr.
    serveStdio(createExampleServer());
  } else if (port !== undefined && /^\d+$/.test(port) && Number(port) < 65536) {
    serveExampleOverHttp(Number(port), arg('--host')).then(
      ({ url }) => process.stdout.write(howToConnect(url)),
      (error: unknown) => {
        process.stderr.write(
          `${error instanceof Error ? error.message : String(error)}\nIs something else using port ${port}? Pick another with --port <n>.\n`,
        );
        process.exitCode = 1;
      },
    );
  } else {
    process.stderr.write(USAGE);
    process.exitCode = 2;
  }
}

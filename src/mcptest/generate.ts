/**
 * `switchboard test --generate`: a test suite made from what a server offers, with today's answers
 * recorded as snapshots, so the file is a regression suite from the start.
 *
 * - Each list (tools, resources, templates, prompts) snapshotted whole: a tool that goes away, or
 *   whose schema or annotations change, fails.
 * - One test per tool (only those annotated readOnlyHint: true unless `callTools`), arguments made
 *   up from the inputSchema by the checker's synthesizer; per resource; per template (a listed URI
 *   it matches, or completed values); per prompt (required arguments completed or made up).
 * - Negative cases that can fail: a tool call without a required argument must be refused as the
 *   revision prescribes (2025-11-25 on, input validation errors are tool execution errors,
 *   `isError`; before, JSON-RPC errors), a prompt without a required argument and an unknown tool
 *   must give JSON-RPC errors.
 *
 * Each test it writes carries `generated: <fingerprint of what was written>`: generating again
 * replaces those whose fingerprint still matches, and keeps hand-written tests and edited ones.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Document, isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';
import { compilePeerSchema } from '../check/peer-schema.js';
import { validInstance } from '../check/synthesize.js';
import type { Client } from '../extensions/client.js';
import { featuresOf, type Revision } from '../protocol/revisions.js';
import { isPlainObject } from '../util/guards.js';
import { ask } from './answer.js';
import { differingPaths, sortKeys } from './compare.js';
import type { Step } from './format.js';
import { parseJsonPath } from './json-path.js';
import { connect, type ResolvedServer } from './server.js';
import { SnapshotFile, snapshotValue } from './snapshots.js';

/** A test as the file holds it (plain data, the order of keys as written). */
export type WrittenTest = Record<string, unknown> & { name: string };

export interface GenerateOptions {
  /** What the file's `server:` says (the target as given). */
  readonly serverText: string;
  /** Call every tool, not only read-only ones. */
  readonly callTools?: boolean;
  readonly timeoutMs?: number;
  /** Told what is being asked. */
  readonly onProgress?: (line: string) => void;
}

export interface GenerateResult {
  readonly file: string;
  /** Generated tests written (new or replaced). */
  readonly written: number;
  /** Tests kept as they were: hand-written, or generated and edited since. */
  readonly kept: number;
  /** What was not generated, and why (a tool not called, no value for an argument). */
  readonly notes: readonly string[];
}

const NO_IGNORE = { ignore: [], ignoreSources: [] };
const UNKNOWN_TOOL = 'switchboard_test_no_such_tool';
const DEFAULT_TIMEOUT_MS = 30_000;

/** The fingerprint `generated:` holds: of the test as written, less that key. */
export function fingerprint(test: Record<string, unknown>): string {
  const { generated: _generated, ...rest } = test;
  return createHash('sha256')
    .update(JSON.stringify(sortKeys(rest)))
    .digest('hex')
    .slice(0, 12);
}

/** Generates (or regenerates, merging) the test file at `file` for `server`. */
export async function generateTests(
  server: ResolvedServer,
  file: string,
  options: GenerateOptions,
): Promise<GenerateResult> {
  const existing = existsSync(file) ? parseDocument(readFileSync(file, 'utf8')) : undefined;
  if (existing && existing.errors.length > 0) {
    throw new GenerateError(
      `${file} is not valid YAML (${existing.errors[0]!.message.split('\n')[0]}); fix it or give another -o file.`,
    );
  }
  const revisionsNode = existing?.get('revisions');
  const revisions = (isSeq(revisionsNode) ? (revisionsNode.toJSON() as Revision[]) : undefined) ?? [
    undefined,
  ];
  const snapshots = new SnapshotFile(file);
  const notes: string[] = [];
  let tests: WrittenTest[] | undefined;
  /** Each answer to record, and per test the paths that differed between two asks (a time, an id). */
  const answers: { key: string; name: string; value: unknown }[] = [];
  const volatile = new Map<string, Set<string>>();
  for (const revision of revisions) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const connection = await connect(server, { ...(revision ? { revision } : {}), timeoutMs });
    try {
      const made = await suiteFor(connection.client, options, notes, timeoutMs);
      tests ??= made.map((m) => m.test);
      for (const { test, step, snapshot } of made) {
        if (!snapshot) continue;
        options.onProgress?.(`recording ${test.name}${revision ? ` [${revision}]` : ''}`);
        const first = await ask(connection.client, step, timeoutMs);
        const second = await ask(connection.client, step, timeoutMs);
        const paths = volatile.get(test.name) ?? new Set();
        for (const path of differingPaths(
          snapshotValue(first.value, NO_IGNORE),
          snapshotValue(second.value, NO_IGNORE),
        ))
          paths.add(path);
        volatile.set(test.name, paths);
        answers.push({
          key: revision ? `${test.name} [${revision}]` : test.name,
          name: test.name,
          value: first.value,
        });
      }
    } finally {
      await connection.close().catch(() => undefined);
    }
  }
  const ignoreOf = (name: string) => [...(volatile.get(name) ?? [])].sort();
  // A value that changed between two asks is left out of the snapshot, so the suite does not flake.
  for (const test of tests ?? []) {
    const ignore = ignoreOf(test.name);
    if (test.snapshot === true && ignore.length > 0) test.snapshot = { ignore };
  }
  const generated = (tests ?? []).map((t) => ({ ...t, generated: fingerprint(t) }));
  const { text, written, kept } = merge(existing, generated, options.serverText);
  // Only the tests written get their answers recorded: a kept test of the same name has its own.
  for (const { key, name, value } of answers) {
    if (!written.has(name)) continue;
    const sources = ignoreOf(name);
    snapshots.set(key, snapshotValue(value, { ignore: sources.map(parseJsonPath), ignoreSources: sources }));
  }
  writeFileSync(file, text);
  snapshots.save(false);
  return { file, written: written.size, kept, notes: [...new Set(notes)] };
}

export class GenerateError extends Error {
  override readonly name = 'GenerateError';
}

interface Made {
  readonly test: WrittenTest;
  readonly step: Step;
  readonly snapshot: boolean;
}

async function suiteFor(
  client: Client,
  options: GenerateOptions,
  notes: string[],
  timeoutMs: number,
): Promise<Made[]> {
  const caps = client.serverCapabilities;
  const made: Made[] = [];
  const add = (test: WrittenTest, step: Step, snapshot: boolean) => made.push({ test, step, snapshot });
  const call = { timeoutMs };
  if (caps.tools) {
    add({ name: 'the tool list', list: 'tools', snapshot: true }, { kind: 'list', of: 'tools' }, true);
    const { tools } = await client.listTools(call);
    for (const tool of [...tools].sort((a, b) => a.name.localeCompare(b.name))) {
      const readOnly = tool.annotations?.readOnlyHint === true;
      if (!readOnly && !options.callTools) {
        notes.push(
          `tool ${tool.name} is not annotated readOnlyHint: true, so it was not called (its definition is in the tool list snapshot); --call-tools calls it`,
        );
        continue;
      }
      const args = validInstance(tool.inputSchema);
      const check = await compilePeerSchema(tool.inputSchema, `The inputSchema of tool "${tool.name}"`);
      const problem =
        typeof check === 'string'
          ? check
          : isPlainObject(args)
            ? await check(args)
            : 'no object could be made';
      if (!isPlainObject(args) || problem !== undefined) {
        notes.push(
          `tool ${tool.name}: no arguments its inputSchema accepts could be made up (${problem}); write its test by hand`,
        );
        continue;
      }
      const step: Step = { kind: 'call', tool: tool.name, args };
      const expect = await expectationOf(client, step, timeoutMs);
      if (!expect) {
        notes.push(
          `tool ${tool.name} gave no usable answer to ${JSON.stringify(args)}; write its test by hand`,
        );
        continue;
      }
      add({ name: `tool ${tool.name}`, call: tool.name, args, expect, snapshot: true }, step, true);
      const required = (tool.inputSchema as { required?: unknown }).required;
      const first = Array.isArray(required)
        ? required.find((k): k is string => typeof k === 'string')
        : undefined;
      if (first !== undefined) {
        const { [first]: _left, ...rest } = args;
        const prescribed = refusalOf(client.revision);
        add(
          {
            name: `tool ${tool.name} without ${first}`,
            call: tool.name,
            args: rest,
            expect: { outcome: prescribed },
          },
          { kind: 'call', tool: tool.name, args: rest },
          false,
        );
      }
    }
    if (!tools.some((t) => t.name === UNKNOWN_TOOL)) {
      add(
        { name: 'an unknown tool', call: UNKNOWN_TOOL, args: {}, expect: { outcome: 'error' } },
        { kind: 'call', tool: UNKNOWN_TOOL, args: {} },
        false,
      );
    }
  }
  let uris: string[] = [];
  if (caps.resources) {
    add(
      { name: 'the resource list', list: 'resources', snapshot: true },
      { kind: 'list', of: 'resources' },
      true,
    );
    const { resources } = await client.listResources(call);
    uris = resources.map((r) => r.uri).sort();
    for (const uri of uris)
      add({ name: `resource ${uri}`, read: uri, snapshot: true }, { kind: 'read', uri }, true);
    add(
      { name: 'the resource template list', list: 'resourceTemplates', snapshot: true },
      { kind: 'list', of: 'resourceTemplates' },
      true,
    );
    const { resourceTemplates } = await client
      .listResourceTemplates(call)
      .catch(() => ({ resourceTemplates: [] }));
    for (const template of [...resourceTemplates].sort((a, b) =>
      a.uriTemplate.localeCompare(b.uriTemplate),
    )) {
      const uri = await exampleUri(client, template.uriTemplate, uris, timeoutMs);
      const step: Step = { kind: 'read', uri };
      const expect = await expectationOf(client, step, timeoutMs);
      if (!expect) {
        notes.push(`template ${template.uriTemplate}: ${uri} gave no usable answer; write its test by hand`);
        continue;
      }
      add({ name: `template ${template.uriTemplate}`, read: uri, expect, snapshot: true }, step, true);
    }
  }
  if (caps.prompts) {
    add({ name: 'the prompt list', list: 'prompts', snapshot: true }, { kind: 'list', of: 'prompts' }, true);
    const { prompts } = await client.listPrompts(call);
    for (const prompt of [...prompts].sort((a, b) => a.name.localeCompare(b.name))) {
      const args: Record<string, string> = {};
      for (const argument of prompt.arguments ?? []) {
        if (argument.required)
          args[argument.name] = await completed(
            client,
            { type: 'ref/prompt', name: prompt.name },
            argument.name,
            args,
            timeoutMs,
          );
      }
      const step: Step = { kind: 'prompt', name: prompt.name, args };
      const expect = await expectationOf(client, step, timeoutMs);
      if (!expect) {
        notes.push(
          `prompt ${prompt.name} gave no usable answer to ${JSON.stringify(args)}; write its test by hand`,
        );
        continue;
      }
      add({ name: `prompt ${prompt.name}`, prompt: prompt.name, args, expect, snapshot: true }, step, true);
      const first = (prompt.arguments ?? []).find((a) => a.required);
      if (first) {
        const { [first.name]: _left, ...rest } = args;
        add(
          {
            name: `prompt ${prompt.name} without ${first.name}`,
            prompt: prompt.name,
            args: rest,
            expect: { outcome: 'error' },
          },
          { kind: 'prompt', name: prompt.name, args: rest },
          false,
        );
      }
    }
  }
  return made;
}

/** Today's outcome of a step as an `expect:` (a JSON-RPC error with its code), or undefined without a usable answer. */
async function expectationOf(
  client: Client,
  step: Step,
  timeoutMs: number,
): Promise<Record<string, unknown> | undefined> {
  const answer = await ask(client, step, timeoutMs).catch(() => undefined);
  if (!answer) return undefined;
  return answer.outcome === 'error'
    ? { outcome: 'error', error: { code: (answer.value as { code: number }).code } }
    : { outcome: answer.outcome };
}

/**
 * How a revision says a tool call with invalid arguments is refused: from 2025-11-25 on, input
 * validation errors are tool execution errors (`isError`, SEP-1303); before, the spec's example of
 * a protocol error is invalid arguments (a JSON-RPC error).
 */
export function refusalOf(revision: Revision): 'isError' | 'error' {
  return revision === '2025-11-25' || featuresOf(revision).modern ? 'isError' : 'error';
}

/** A URI for a template: a listed resource it matches, else its variables completed (or made up). */
async function exampleUri(
  client: Client,
  template: string,
  listed: readonly string[],
  timeoutMs: number,
): Promise<string> {
  const names = [...template.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) =>
    m[1]!.split(',').map((n) => n.replace(/[*]|:\d+$/g, '')),
  );
  const pattern = new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );
  const match = listed.find((uri) => pattern.test(uri));
  if (match) return match;
  const values: Record<string, string> = {};
  for (const name of names)
    values[name] = await completed(client, { type: 'ref/resource', uri: template }, name, values, timeoutMs);
  return template.replace(/\{[+#./;?&]?([^}]+)\}/g, (_m, inner: string) =>
    inner
      .split(',')
      .map((n) => encodeURIComponent(values[n.replace(/[*]|:\d+$/g, '')] ?? 'example'))
      .join(','),
  );
}

/** The server's first completion for an argument, or `example` when it offers none. */
async function completed(
  client: Client,
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
  name: string,
  known: Record<string, string>,
  timeoutMs: number,
): Promise<string> {
  if (!client.serverCapabilities.completions) return 'example';
  try {
    const result = await client.complete(
      {
        ref,
        argument: { name, value: '' },
        ...(Object.keys(known).length > 0 ? { context: { arguments: known } } : {}),
      },
      { timeoutMs },
    );
    return result.completion.values[0] ?? 'example';
  } catch {
    return 'example';
  }
}

const HEADER =
  ' Generated by `switchboard test --generate`. Tests marked generated: are replaced when you generate\n' +
  ' again, unless you edit them (then they are yours, like the tests you add). Format: docs/test.md';

/** The file's text: the existing document with its untouched generated tests replaced, or a new one. */
function merge(
  existing: Document | undefined,
  generated: readonly WrittenTest[],
  serverText: string,
): { text: string; written: ReadonlySet<string>; kept: number } {
  if (!existing || !isMap(existing.contents)) {
    const doc = new Document({ server: serverText, tests: generated });
    doc.commentBefore = HEADER;
    return { text: doc.toString({ lineWidth: 0 }), written: new Set(generated.map((t) => t.name)), kept: 0 };
  }
  const testsNode = existing.get('tests');
  const seq = isSeq(testsNode) ? testsNode : new YAMLSeq();
  const keptNames = new Set<string>();
  const keptItems = seq.items.filter((item) => {
    const value = isMap(item) ? (item.toJSON() as Record<string, unknown>) : undefined;
    if (value === undefined) return true;
    const untouched = typeof value.generated === 'string' && value.generated === fingerprint(value);
    if (!untouched && typeof value.name === 'string') keptNames.add(value.name);
    return !untouched;
  });
  const fresh = generated.filter((t) => !keptNames.has(t.name));
  seq.items = [...keptItems, ...fresh.map((t) => existing.createNode(t))];
  // A file started as `tests: []` is written out in block style like a generated one.
  seq.flow = false;
  existing.set('tests', seq);
  if (!existing.has('server')) existing.set('server', serverText);
  return {
    text: existing.toString({ lineWidth: 0 }),
    written: new Set(fresh.map((t) => t.name)),
    kept: keptItems.length,
  };
}

/**
 * Reads a test file (YAML, or JSON, which the same parser reads) into a checked `TestFile`, or
 * every problem in it, each with its line and column and what to write instead. Strict on purpose:
 * an unknown key is an error, since a typo (`expcet:`) would otherwise skip a check in silence.
 * YAML comes from the `yaml` package (the YAML 1.2 parser most of the ecosystem uses), which keeps
 * every node's place in the text.
 */
import { dirname, resolve } from 'node:path';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { closest } from '../gateway/config.js';
import { type ConfigProblem, formatProblem } from '../gateway/config-source.js';
import { isRevision, REVISIONS, type Revision } from '../protocol/revisions.js';
import { loadLinearPatterns } from '../schema/linear-pattern.js';
import { errorMessage, isPlainObject } from '../util/guards.js';
import {
  type Bound,
  type Expectations,
  type JsonExpectation,
  LIST_KINDS,
  type ListKind,
  OUTCOMES,
  type Outcome,
  type Position,
  type ServerSpec,
  type SnapshotOptions,
  type Step,
  type TestCase,
  type TestFile,
  type TextExpectation,
} from './format.js';
import { type JsonPath, parseJsonPath } from './json-path.js';
import { variablesIn } from './variables.js';

export type { ConfigProblem as TestFileProblem } from '../gateway/config-source.js';
export { formatProblem };

export type ReadResult =
  | { readonly ok: true; readonly file: TestFile }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

const FILE_KEYS = ['server', 'revisions', 'timeoutMs', 'tests'];
const STEP_KEYS = ['call', 'read', 'prompt', 'request', 'list'] as const;
const TEST_KEYS = ['name', ...STEP_KEYS, 'args', 'expect', 'snapshot', 'save', 'skip', 'generated'];
const EXPECT_KEYS = ['outcome', 'text', 'structuredContent', 'json', 'error', 'durationMs'];
const TEXT_KEYS = ['equals', 'contains', 'matches'];
const BOUND_KEYS = ['lt', 'lte', 'gt', 'gte'];
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses and checks test file text; `file` names it in problems and anchors relative paths. */
export async function parseTestFile(file: string, text: string): Promise<ReadResult> {
  const reader = new Reader(file, text);
  const result = await reader.read();
  return reader.problems.length > 0 || result === undefined
    ? { ok: false, problems: reader.problems }
    : { ok: true, file: result };
}

type Y = Node | null | undefined;

class Reader {
  readonly problems: ConfigProblem[] = [];
  readonly #lines = new LineCounter();
  readonly #doc;
  readonly #patterns: Promise<void>[] = [];

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.#doc = parseDocument(text, { lineCounter: this.#lines, prettyErrors: false, uniqueKeys: true });
    for (const error of [...this.#doc.errors, ...this.#doc.warnings]) {
      const pos = this.#lines.linePos(error.pos[0]);
      this.problems.push({
        file,
        line: pos.line,
        column: pos.col,
        message: `${error.message.replace(/\s+/g, ' ').trim()}.`,
        fix: syntaxFix(error.code, file),
      });
    }
  }

  async read(): Promise<TestFile | undefined> {
    if (this.problems.length > 0) return undefined;
    const root = this.#doc.contents;
    if (!isMap(root)) {
      this.report(
        root,
        'A test file is a mapping with server and tests.',
        'Start with "server: node server.js" and "tests:" followed by a list of tests.',
      );
      return undefined;
    }
    const keys = this.keys(root, FILE_KEYS, 'a test file');
    const server = keys.has('server') ? this.server(keys.get('server')) : undefined;
    const revisions = keys.has('revisions') ? this.revisions(keys.get('revisions')) : undefined;
    const timeoutMs = keys.has('timeoutMs')
      ? this.number(keys.get('timeoutMs'), 'timeoutMs', { integer: true, min: 1 })
      : undefined;
    const tests: TestCase[] = [];
    const testsNode = keys.get('tests');
    if (!keys.has('tests')) {
      this.report(
        root,
        'The file has no tests.',
        'Add "tests:" with a list of tests, each with a name and a call.',
      );
    } else if (!isSeq(testsNode)) {
      this.report(testsNode, 'tests must be a list.', 'Write each test as a list item: "- name: ...".');
    } else {
      const names = new Map<string, Position>();
      const saved = new Set<string>();
      for (const item of testsNode.items) {
        // Names are compared even for tests with other mistakes: each problem is reported once, now.
        const name = isMap(item) ? item.get('name', true) : undefined;
        if (isScalar(name) && typeof name.value === 'string') {
          const earlier = names.get(name.value);
          if (earlier) {
            this.report(
              item as Y,
              `A second test named ${JSON.stringify(name.value)} (the first is on line ${earlier.line}).`,
              'Give every test its own name: snapshots, --only and the reports find tests by name.',
            );
          } else names.set(name.value, this.position(item as Y));
        }
        const test = this.test(item as Y, saved);
        if (test) tests.push(test);
      }
    }
    for (const pending of this.#patterns) await pending;
    return {
      file: this.file,
      ...(server ? { server } : {}),
      ...(revisions ? { revisions } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      tests,
    };
  }

  // --- the file ----------------------------------------------------------------------------------

  private server(node: Y): ServerSpec | undefined {
    if (isScalar(node) && typeof node.value === 'string') {
      if (node.value.trim() === '') {
        this.report(node, 'server is empty.', 'Give the command line ("node server.js --stdio") or the URL.');
        return undefined;
      }
      return { kind: 'line', line: node.value };
    }
    if (!isMap(node)) {
      this.report(
        node,
        'server must be a command line or URL, or a mapping.',
        'Write server: "node server.js", or { command, args, env, cwd }, { url, headers }, or { config: mcp.json, server: name }.',
      );
      return undefined;
    }
    const names = node.items.map((p) => String(isScalar(p.key) ? p.key.value : ''));
    if (names.includes('config')) {
      const keys = this.keys(node, ['config', 'server'], 'a server from a config file');
      const config = this.string(keys.get('config'), 'config');
      const server = this.required(node, keys, 'server', 'the name of the server in that config file');
      const name = server === undefined ? undefined : this.string(server, 'server');
      if (config === undefined || name === undefined) return undefined;
      return { kind: 'config', config: resolve(dirname(this.file), config), server: name };
    }
    if (names.includes('url')) {
      const keys = this.keys(node, ['type', 'url', 'headers'], 'an HTTP server');
      const url = this.string(keys.get('url'), 'url');
      if (url !== undefined && !/^https?:\/\//i.test(url)) {
        this.report(
          keys.get('url'),
          `url ${JSON.stringify(url)} is not an http(s) URL.`,
          'Give the full endpoint, e.g. http://127.0.0.1:7420/mcp.',
        );
      }
      const headers = keys.has('headers') ? this.stringMap(keys.get('headers'), 'headers') : undefined;
      if (url === undefined) return undefined;
      return { kind: 'http', url, ...(headers ? { headers } : {}) };
    }
    const keys = this.keys(node, ['type', 'command', 'args', 'env', 'cwd'], 'a stdio server');
    const commandNode = this.required(node, keys, 'command', 'the program to run, e.g. command: node');
    const command = commandNode === undefined ? undefined : this.string(commandNode, 'command');
    const args = keys.has('args') ? this.stringList(keys.get('args'), 'args') : [];
    const env = keys.has('env') ? this.stringMap(keys.get('env'), 'env') : undefined;
    const cwd = keys.has('cwd') ? this.string(keys.get('cwd'), 'cwd') : undefined;
    if (command === undefined || args === undefined) return undefined;
    return {
      kind: 'stdio',
      command,
      args,
      ...(env ? { env } : {}),
      ...(cwd !== undefined ? { cwd: resolve(dirname(this.file), cwd) } : {}),
    };
  }

  private revisions(node: Y): Revision[] | undefined {
    const list = isSeq(node) ? node.items : [node];
    const found: Revision[] = [];
    for (const item of list as Y[]) {
      const value = isScalar(item) ? String(item.value) : undefined;
      if (value !== undefined && isRevision(value)) found.push(value);
      else {
        this.report(
          item,
          `${value === undefined ? 'This' : JSON.stringify(value)} is not a protocol revision.`,
          `Use some of ${REVISIONS.join(', ')}.`,
        );
      }
    }
    return found;
  }

  // --- a test ------------------------------------------------------------------------------------

  private test(node: Y, saved: Set<string>): TestCase | undefined {
    if (!isMap(node)) {
      this.report(
        node,
        'A test must be a mapping.',
        'Write "- name: ..." followed by call, read, prompt, request or list.',
      );
      return undefined;
    }
    const at = this.position(node);
    const keys = this.keys(node, TEST_KEYS, 'a test');
    const nameNode = this.required(node, keys, 'name', 'a name for the test, e.g. name: adds two numbers');
    const name = nameNode === undefined ? undefined : this.string(nameNode, 'name');
    const present = STEP_KEYS.filter((k) => keys.has(k));
    let step: Step | undefined;
    if (present.length === 0) {
      this.report(
        node,
        `The test ${JSON.stringify(name ?? '')} does nothing.`,
        'Give it one of call: <tool>, read: <uri>, prompt: <name>, request: { method, params } or list: tools.',
      );
    } else if (present.length > 1) {
      this.report(
        this.keyOf(node, present[1]!),
        `A test makes one request, but this one has both ${present[0]} and ${present[1]}.`,
        'Split it into two tests.',
      );
    } else {
      step = this.step(present[0]!, keys);
    }
    if (keys.has('args') && step && step.kind !== 'call' && step.kind !== 'prompt') {
      this.report(
        this.keyOf(node, 'args'),
        `args goes with call or prompt, not with ${step.kind}.`,
        step.kind === 'request' ? 'Put the arguments in request.params.' : 'Remove args.',
      );
    }
    const expect = this.expectations(keys.get('expect'), keys.has('expect'));
    const snapshot = keys.has('snapshot') ? this.snapshot(keys.get('snapshot')) : undefined;
    const save = keys.has('save') ? this.save(keys.get('save')) : undefined;
    let skip: string | undefined;
    if (keys.has('skip')) {
      const value = keys.get('skip');
      if (isScalar(value) && value.value === true) skip = 'skip: true';
      else if (isScalar(value) && typeof value.value === 'string' && value.value !== '') skip = value.value;
      else if (!(isScalar(value) && value.value === false))
        this.report(value, 'skip must be true or a reason.', 'Write skip: true, or skip: "the reason".');
    }
    const generated = keys.has('generated') ? this.string(keys.get('generated'), 'generated') : undefined;
    if (step) this.checkVariables(step, saved, keys);
    for (const variable of Object.keys(save ?? {})) saved.add(variable);
    if (name === undefined || step === undefined || expect === undefined) return undefined;
    return {
      name,
      step,
      expect,
      ...(snapshot ? { snapshot } : {}),
      ...(save ? { save } : {}),
      ...(skip !== undefined ? { skip } : {}),
      ...(generated !== undefined ? { generated } : {}),
      at,
    };
  }

  private step(kind: (typeof STEP_KEYS)[number], keys: Map<string, Y>): Step | undefined {
    const node = keys.get(kind);
    const args = keys.get('args');
    switch (kind) {
      case 'call': {
        const tool = this.string(node, 'call');
        const value = keys.has('args') ? this.object(args, 'args') : undefined;
        if (tool === undefined || (keys.has('args') && value === undefined)) return undefined;
        return { kind: 'call', tool, ...(value ? { args: value } : {}) };
      }
      case 'read': {
        const uri = this.string(node, 'read');
        return uri === undefined ? undefined : { kind: 'read', uri };
      }
      case 'prompt': {
        const name = this.string(node, 'prompt');
        const value = keys.has('args')
          ? this.stringMap(args, 'args', 'Prompt arguments are strings: quote them, e.g. count: "3".')
          : undefined;
        if (name === undefined || (keys.has('args') && value === undefined)) return undefined;
        return { kind: 'prompt', name, ...(value ? { args: value } : {}) };
      }
      case 'request': {
        if (!isMap(node)) {
          this.report(
            node,
            'request must be a mapping.',
            'Write request: { method: tools/list, params: {} }.',
          );
          return undefined;
        }
        const fields = this.keys(node, ['method', 'params'], 'a request');
        const methodNode = this.required(
          node,
          fields,
          'method',
          'the JSON-RPC method, e.g. method: tools/list',
        );
        const method = methodNode === undefined ? undefined : this.string(methodNode, 'method');
        const params = fields.has('params') ? this.object(fields.get('params'), 'params') : undefined;
        if (method === undefined || (fields.has('params') && params === undefined)) return undefined;
        return { kind: 'request', method, ...(params ? { params } : {}) };
      }
      case 'list': {
        const of = isScalar(node) ? String(node.value) : undefined;
        if (of !== undefined && (LIST_KINDS as readonly string[]).includes(of))
          return { kind: 'list', of: of as ListKind };
        this.report(
          node,
          `list: ${of ?? '?'} is not something a server lists.`,
          `Write list: followed by one of ${LIST_KINDS.join(', ')}.`,
        );
        return undefined;
      }
    }
  }

  private expectations(node: Y, given: boolean): Expectations | undefined {
    if (!given) return { outcome: 'ok' };
    if (!isMap(node)) {
      this.report(node, 'expect must be a mapping.', 'Write expect: { outcome: ok, text: { equals: "5" } }.');
      return undefined;
    }
    const keys = this.keys(node, EXPECT_KEYS, 'expect');
    let outcome: Outcome | undefined;
    if (keys.has('outcome')) {
      const value = keys.get('outcome');
      const word = isScalar(value) ? String(value.value) : undefined;
      if (word !== undefined && (OUTCOMES as readonly string[]).includes(word)) outcome = word as Outcome;
      else
        this.report(
          value,
          `outcome ${JSON.stringify(word ?? '')} is not one of ${OUTCOMES.join(', ')}.`,
          'ok: a result; isError: a tool result with isError: true; error: a JSON-RPC error.',
        );
    }
    let error: Expectations['error'];
    if (keys.has('error')) {
      const value = keys.get('error');
      if (!isMap(value))
        this.report(
          value,
          'error must be a mapping.',
          'Write error: { code: -32602 }, optionally with message: { contains: "..." }.',
        );
      else {
        const fields = this.keys(value, ['code', 'message'], 'error');
        const code = fields.has('code')
          ? this.number(fields.get('code'), 'code', { integer: true })
          : undefined;
        const message = fields.has('message') ? this.text(fields.get('message'), 'message') : undefined;
        error = { ...(code !== undefined ? { code } : {}), ...(message ? { message } : {}) };
      }
      if (outcome !== undefined && outcome !== 'error') {
        this.report(
          keys.get('error'),
          `expect.error describes a JSON-RPC error, but outcome is ${outcome}.`,
          'Write outcome: error, or remove error.',
        );
      }
    }
    const text = keys.has('text') ? this.text(keys.get('text'), 'text') : undefined;
    const structured = keys.get('structuredContent');
    const structuredContent = keys.has('structuredContent') ? this.json(structured) : undefined;
    const json = keys.has('json') ? this.jsonExpectations(keys.get('json')) : undefined;
    const durationMs = keys.has('durationMs') ? this.bound(keys.get('durationMs')) : undefined;
    return {
      outcome: outcome ?? (error ? 'error' : 'ok'),
      ...(text ? { text } : {}),
      ...(keys.has('structuredContent') ? { structuredContent } : {}),
      ...(json ? { json } : {}),
      ...(error ? { error } : {}),
      ...(durationMs ? { durationMs } : {}),
    };
  }

  private text(node: Y, field: string): TextExpectation | undefined {
    if (!isMap(node)) {
      const shown = isScalar(node) ? JSON.stringify(String(node.value)) : '"..."';
      this.report(
        node,
        `${field} must say how to compare.`,
        `Write ${field}: { equals: ${shown} } (or contains:, or matches: a regular expression).`,
      );
      return undefined;
    }
    const keys = this.keys(node, TEXT_KEYS, field);
    const given = TEXT_KEYS.filter((k) => keys.has(k));
    if (given.length !== 1) {
      this.report(
        node,
        `${field} needs exactly one of equals, contains, matches (it has ${given.length}).`,
        'Keep one; write a second test (or a json check) for another condition.',
      );
      return undefined;
    }
    const how = given[0] as 'equals' | 'contains' | 'matches';
    const value = this.string(keys.get(how), `${field}.${how}`);
    if (value === undefined) return undefined;
    if (how === 'matches') this.pattern(keys.get(how), value);
    return { [how]: value } as TextExpectation;
  }

  /** Compiles `source` with RE2 now, so a pattern that cannot run in linear time is a file error. */
  private pattern(node: Y, source: string): void {
    const at = this.position(node);
    this.#patterns.push(
      loadLinearPatterns().then((patterns) => {
        try {
          patterns.compile(source, 'matches');
        } catch {
          this.reportAtPosition(
            at,
            `The regular expression ${JSON.stringify(source)} cannot be run in linear time (RE2 refuses it).`,
            'Write it without lookaround or backreferences (RE2 syntax): a backtracking pattern can hang a run.',
          );
        }
      }),
    );
  }

  private jsonExpectations(node: Y): JsonExpectation[] | undefined {
    const items = isSeq(node) ? (node.items as Y[]) : [node];
    const found: JsonExpectation[] = [];
    for (const item of items) {
      if (!isMap(item)) {
        this.report(
          item,
          'A json check must be a mapping.',
          'Write json: { path: "$.content[0].text", equals: "5" }.',
        );
        continue;
      }
      const keys = this.keys(item, ['path', 'equals', 'contains', 'matches', 'exists'], 'json');
      const pathNode = this.required(
        item,
        keys,
        'path',
        'where to look, e.g. path: "$.structuredContent.sum"',
      );
      const source = pathNode === undefined ? undefined : this.string(pathNode, 'path');
      const path = source === undefined ? undefined : this.path(pathNode, source);
      const how = ['equals', 'contains', 'matches', 'exists'].filter((k) => keys.has(k));
      if (how.length !== 1) {
        this.report(
          item,
          `A json check needs exactly one of equals, contains, matches, exists (it has ${how.length}).`,
          'Keep one per check; a list of checks may look at the same path.',
        );
        continue;
      }
      const kind = how[0]!;
      const valueNode = keys.get(kind);
      if (path === undefined || source === undefined) continue;
      if (kind === 'equals') {
        found.push({ path, source, equals: this.json(valueNode) });
      } else if (kind === 'exists') {
        const value = isScalar(valueNode) ? valueNode.value : undefined;
        if (typeof value !== 'boolean')
          this.report(valueNode, 'exists must be true or false.', 'Write exists: true.');
        else found.push({ path, source, exists: value });
      } else {
        const text = this.string(valueNode, kind);
        if (text === undefined) continue;
        if (kind === 'matches') this.pattern(valueNode, text);
        found.push(kind === 'matches' ? { path, source, matches: text } : { path, source, contains: text });
      }
    }
    return found;
  }

  private bound(node: Y): Bound | undefined {
    if (!isMap(node)) {
      this.report(node, 'durationMs must be a mapping of bounds.', 'Write durationMs: { lt: 500 }.');
      return undefined;
    }
    const keys = this.keys(node, BOUND_KEYS, 'durationMs');
    const bound: Record<string, number> = {};
    for (const key of BOUND_KEYS) {
      if (!keys.has(key)) continue;
      const value = this.number(keys.get(key), `durationMs.${key}`, { min: 0 });
      if (value !== undefined) bound[key] = value;
    }
    if (keys.size === 0) this.report(node, 'durationMs has no bound.', 'Write durationMs: { lt: 500 }.');
    return bound;
  }

  private snapshot(node: Y): SnapshotOptions | undefined {
    if (isScalar(node) && typeof node.value === 'boolean')
      return node.value ? { ignore: [], ignoreSources: [] } : undefined;
    if (!isMap(node)) {
      this.report(
        node,
        'snapshot must be true, false or { ignore: [paths] }.',
        'Write snapshot: true, or snapshot: { ignore: ["$.content[0].text"] }.',
      );
      return undefined;
    }
    const keys = this.keys(node, ['ignore'], 'snapshot');
    const sources = keys.has('ignore') ? (this.stringList(keys.get('ignore'), 'ignore') ?? []) : [];
    const items = isSeq(keys.get('ignore')) ? (keys.get('ignore') as { items: Y[] }).items : [];
    const ignore = sources
      .map((s, i) => this.path(items[i] ?? node, s))
      .filter((p): p is JsonPath => p !== undefined);
    return { ignore, ignoreSources: sources };
  }

  private save(node: Y): Record<string, JsonPath> | undefined {
    if (!isMap(node)) {
      this.report(
        node,
        'save must be a mapping of variable names to paths.',
        'Write save: { id: "$.structuredContent.id" }.',
      );
      return undefined;
    }
    const saved: Record<string, JsonPath> = {};
    for (const pair of node.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!VARIABLE_NAME.test(name)) {
        this.report(
          pair.key as Y,
          `${JSON.stringify(name)} cannot be a variable name.`,
          'Use letters, digits and _ (not first a digit), e.g. note_id.',
        );
        continue;
      }
      const source = this.string(pair.value as Y, `save.${name}`);
      const path = source === undefined ? undefined : this.path(pair.value as Y, source);
      if (path) saved[name] = path;
    }
    return saved;
  }

  /** Every `${name}` a step uses must be saved by an earlier test. */
  private checkVariables(step: Step, saved: Set<string>, keys: Map<string, Y>): void {
    const node = keys.get(
      step.kind === 'call' || step.kind === 'prompt' ? (keys.has('args') ? 'args' : step.kind) : step.kind,
    );
    for (const name of variablesIn(step)) {
      if (saved.has(name)) continue;
      this.report(
        node,
        `\${${name}} is used but no earlier test saves ${name}.`,
        saved.size > 0
          ? `Saved so far: ${[...saved].join(', ')}. Add save: { ${name}: "$.path" } to an earlier test, or write $\${${name}} for the text itself.`
          : `Add save: { ${name}: "$.path" } to an earlier test, or write $\${${name}} for the text itself.`,
      );
    }
  }

  // --- values ------------------------------------------------------------------------------------

  private path(node: Y, source: string): JsonPath | undefined {
    try {
      return parseJsonPath(source);
    } catch (error) {
      this.report(node, `${errorMessage(error).replace(/^the/, 'The')}`);
      return undefined;
    }
  }

  private json(node: Y): unknown {
    if (node === null || node === undefined) return null;
    return node.toJS(this.#doc);
  }

  private object(node: Y, field: string): Record<string, unknown> | undefined {
    const value = this.json(node);
    if (isMap(node) && isPlainObject(value)) return value;
    this.report(node, `${field} must be a mapping of names to values.`, `Write ${field}: { a: 2, b: 3 }.`);
    return undefined;
  }

  private string(node: Y, field: string): string | undefined {
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    const shown = isScalar(node) ? String(node.value) : undefined;
    this.report(
      node,
      `${field} must be a string.`,
      shown !== undefined ? `Quote it: ${field}: ${JSON.stringify(shown)}.` : undefined,
    );
    return undefined;
  }

  private number(node: Y, field: string, rule: { integer?: boolean; min?: number }): number | undefined {
    const value = isScalar(node) ? node.value : undefined;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      (rule.integer && !Number.isInteger(value)) ||
      (rule.min !== undefined && value < rule.min)
    ) {
      this.report(
        node,
        `${field} must be ${rule.integer ? 'an integer' : 'a number'}${rule.min !== undefined ? ` of at least ${rule.min}` : ''}.`,
        isScalar(node) && typeof node.value === 'string' && Number.isFinite(Number(node.value))
          ? `Write it without quotes: ${node.value}.`
          : undefined,
      );
      return undefined;
    }
    return value;
  }

  private stringList(node: Y, field: string): string[] | undefined {
    if (!isSeq(node)) {
      this.report(node, `${field} must be a list of strings.`, `Write ${field}: ["first", "second"].`);
      return undefined;
    }
    const out: string[] = [];
    for (const item of node.items as Y[]) {
      const value = this.string(item, `every item of ${field}`);
      if (value === undefined) return undefined;
      out.push(value);
    }
    return out;
  }

  private stringMap(node: Y, field: string, fix?: string): Record<string, string> | undefined {
    if (!isMap(node)) {
      this.report(
        node,
        `${field} must be a mapping of names to strings.`,
        fix ?? `Write ${field}: { NAME: "value" }.`,
      );
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const value = pair.value as Y;
      if (isScalar(value) && typeof value.value === 'string') out[key] = value.value;
      else {
        this.report(
          value ?? (pair.key as Y),
          `${field}.${key} must be a string.`,
          fix ?? (isScalar(value) ? `Quote it: ${key}: ${JSON.stringify(String(value.value))}.` : undefined),
        );
        return undefined;
      }
    }
    return out;
  }

  // --- keys and places ---------------------------------------------------------------------------

  /** The map's values by key; an unknown key is a problem naming the keys that are allowed. */
  private keys(node: Node & { items: unknown[] }, allowed: readonly string[], what: string): Map<string, Y> {
    const found = new Map<string, Y>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined || !allowed.includes(key)) {
        const near = key === undefined ? undefined : closest(key, new Set(allowed));
        this.report(
          pair.key as Y,
          `Unknown key ${JSON.stringify(key ?? '?')} in ${what}.`,
          near
            ? `Did you mean ${near}? (${what} takes ${allowed.join(', ')}.)`
            : `${what[0]!.toUpperCase()}${what.slice(1)} takes ${allowed.join(', ')}.`,
        );
        continue;
      }
      found.set(key, (isAlias(pair.value) ? pair.value.resolve(this.#doc) : pair.value) as Y);
    }
    return found;
  }

  private required(node: Node, keys: Map<string, Y>, key: string, what: string): Y | undefined {
    if (keys.has(key)) return keys.get(key);
    this.report(node, `Missing ${key}.`, `Add ${key}: ${what}.`);
    return undefined;
  }

  private keyOf(node: Node & { items: unknown[] }, key: string): Y {
    for (const pair of node.items)
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === key) return pair.key;
    return node;
  }

  private position(node: Y): Position {
    const offset = node?.range?.[0] ?? 0;
    const pos = this.#lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  }

  private report(node: Y, message: string, fix?: string): void {
    this.reportAtPosition(this.position(node), message, fix);
  }

  private reportAtPosition(at: Position, message: string, fix?: string): void {
    this.problems.push({
      file: this.file,
      line: at.line,
      column: at.column,
      message,
      ...(fix ? { fix } : {}),
    });
  }
}

function syntaxFix(code: string, file: string): string | undefined {
  if (code === 'DUPLICATE_KEY') return 'Keep one of the two.';
  if (file.endsWith('.json')) return 'Check the JSON near here (a missing comma, quote or bracket).';
  if (code === 'TAB_AS_INDENT') return 'Indent with spaces.';
  if (code === 'BAD_INDENT') return 'Line up the keys of one mapping under each other, with spaces.';
  return undefined;
}

/**
 * `switchboard test --import mcp-jest.json`: an mcp-jest config (`server`, `tests.tools`,
 * `tests.resources`, `tests.prompts`) as a test file. mcp-jest's `expect` is a string of JavaScript-like
 * conditions; the plain ones map (`path === value`, `contains:text`, `exists`, a bare path, joined
 * by `&&`), the rest are listed as not mapped rather than dropped in silence. `shouldThrow` becomes
 * `outcome: error`, which, unlike in mcp-jest, fails when the call succeeds.
 */
import { Document } from 'yaml';
import { isPlainObject } from '../util/guards.js';

export interface ImportResult {
  readonly text: string;
  /** What could not be mapped, one sentence each. */
  readonly notes: readonly string[];
}

export function importMcpJest(config: unknown, source: string): ImportResult {
  const notes: string[] = [];
  if (!isPlainObject(config)) throw new ImportError(`${source} is not a JSON object with server and tests.`);
  const server = mapServer(config.server, notes);
  const suite = isPlainObject(config.tests) ? config.tests : {};
  const tests: Record<string, unknown>[] = [];
  for (const [kind, step] of [
    ['tools', 'call'],
    ['resources', 'read'],
    ['prompts', 'prompt'],
  ] as const) {
    const section = suite[kind];
    if (Array.isArray(section)) {
      notes.push(
        `tests.${kind} lists names only (${section.join(', ')}): existence checks are not mapped; switchboard test --generate snapshots the ${kind === 'resources' ? 'resource' : kind.slice(0, -1)} list instead`,
      );
      continue;
    }
    if (!isPlainObject(section)) continue;
    for (const [key, raw] of Object.entries(section)) {
      const entry = isPlainObject(raw) ? raw : {};
      const name = kind === 'tools' ? key.split(':')[0]! : key;
      const where = `tests.${kind}["${key}"]`;
      if (kind === 'resources' && name.includes('*')) {
        notes.push(`${where}: a URI pattern cannot be read as one resource; write a read: test per URI`);
        continue;
      }
      const test: Record<string, unknown> = { name: `${kind.slice(0, -1)} ${key}`, [step]: name };
      if (entry.args !== undefined && kind !== 'resources') {
        test.args =
          kind === 'prompts' && isPlainObject(entry.args)
            ? Object.fromEntries(
                Object.entries(entry.args).map(([k, v]) => [
                  k,
                  typeof v === 'string' ? v : JSON.stringify(v),
                ]),
              )
            : entry.args;
      }
      const expect: Record<string, unknown> = {};
      if (entry.shouldThrow === true || entry.shouldExist === false) {
        expect.outcome = 'error';
        notes.push(
          `${where}: ${entry.shouldThrow === true ? 'shouldThrow' : 'shouldExist: false'} became outcome: error (a JSON-RPC error); if the server answers with a tool result marked isError, write outcome: isError`,
        );
      }
      if (typeof entry.expect === 'string') mapExpect(entry.expect, expect, notes, where);
      else if (entry.expect !== undefined)
        notes.push(`${where}: an expect function cannot be read from JSON`);
      if (Object.keys(expect).length > 0) test.expect = expect;
      if (entry.snapshot) {
        const options = isPlainObject(entry.snapshot) ? entry.snapshot : {};
        const exclude = Array.isArray(options.exclude)
          ? options.exclude.filter((p): p is string => typeof p === 'string')
          : [];
        test.snapshot = exclude.length > 0 ? { ignore: exclude.map(toPath) } : true;
        if (Array.isArray(options.properties))
          notes.push(
            `${where}: snapshot.properties (recording only some members) is not mapped; the whole answer is recorded`,
          );
      }
      tests.push(test);
    }
  }
  for (const key of ['filter', 'skip', 'maxRetries']) {
    if (suite[key] !== undefined)
      notes.push(`tests.${key} is not mapped (use --only, skip: on a test; a test is never retried)`);
  }
  const doc = new Document({
    server,
    ...(typeof suite.timeout === 'number' ? { timeoutMs: suite.timeout } : {}),
    tests,
  });
  doc.commentBefore = ` Imported from ${source} by switchboard test --import.${notes.length > 0 ? `\n Not mapped:\n${notes.map((n) => ` - ${n}`).join('\n')}` : ''}`;
  return { text: doc.toString({ lineWidth: 0 }), notes };
}

export class ImportError extends Error {
  override readonly name = 'ImportError';
}

function mapServer(server: unknown, notes: string[]): unknown {
  if (!isPlainObject(server)) {
    notes.push('the config names no server; write server: yourself');
    return 'node server.js';
  }
  if (typeof server.url === 'string' && server.transport !== 'stdio') return { url: server.url };
  const mapped: Record<string, unknown> = { command: String(server.command ?? 'node') };
  if (Array.isArray(server.args)) mapped.args = server.args.map(String);
  if (isPlainObject(server.env)) mapped.env = server.env;
  return mapped;
}

/** `content[0].text` → `$.content[0].text`. */
const toPath = (path: string) => (path.startsWith('$') ? path : `$.${path.replace(/^\./, '')}`);

const PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*|\[\d+\])*$/;

function mapExpect(
  expression: string,
  expect: Record<string, unknown>,
  notes: string[],
  where: string,
): void {
  const json: Record<string, unknown>[] = [];
  for (const raw of expression.split('&&')) {
    const part = raw.trim();
    const equality = /^(.+?)\s*===?\s*(.+)$/.exec(part);
    if (part === 'exists') {
    } else if (part.startsWith('contains:')) {
      expect.text = { contains: part.slice('contains:'.length) };
    } else if (equality && PATH.test(equality[1]!.trim())) {
      const value = literal(equality[2]!.trim());
      if (value === undefined)
        notes.push(
          `${where}: ${JSON.stringify(part)} compares with something that is not a literal; not mapped`,
        );
      else json.push({ path: toPath(equality[1]!.trim()), equals: value.value });
    } else if (PATH.test(part)) {
      json.push({ path: toPath(part), exists: true });
    } else {
      notes.push(
        `${where}: ${JSON.stringify(part)} is not mapped (lengths, counts and other comparisons have no equivalent); write a json: or text: check`,
      );
    }
  }
  if (json.length > 0) expect.json = json;
}

function literal(text: string): { value: unknown } | undefined {
  const quoted = /^'(.*)'$/.exec(text);
  if (quoted) return { value: quoted[1] };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * A client's config file edited in place: only the one server entry changes; comments, formatting,
 * key order and every other entry stay as they were. JSON and JSONC go through jsonc-parser's
 * edits (text ranges, not a re-serialization); TOML through toml-patch, which keeps comments and
 * layout. A file that does not parse is refused with its file:line:column and never written.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml, patch as patchToml, stringify as stringifyToml } from '@decimalturn/toml-patch';
import { applyEdits, type FormattingOptions, modify, type Node } from 'jsonc-parser';
import { ConfigSource, formatProblem, jsonValue, member } from '../gateway/config-source.js';
import { isPlainObject } from '../util/guards.js';
import type { ClientInfo } from './clients.js';
import type { VsCodeInput } from './entries.js';
import { FleetError } from './errors.js';

export interface ConfigDocument {
  readonly file: string;
  /** The file as read ('' when it does not exist yet). */
  readonly original: string;
  readonly exists: boolean;
  /** The entries under the client's server key, in the file's order. */
  servers(): ReadonlyMap<string, unknown>;
  /** Adds or replaces one entry (and, for VS Code, the inputs it refers to). */
  set(name: string, entry: Record<string, unknown>, inputs?: readonly VsCodeInput[]): void;
  /** Removes one entry; false when there was none. */
  remove(name: string): boolean;
  /** The file's new text. */
  text(): string;
}

/** Opens `file` for `client`; throws a FleetError naming file:line:column when it does not parse. */
export function openConfig(file: string, client: ClientInfo): ConfigDocument {
  let original = '';
  let exists = true;
  try {
    original = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new FleetError(`${file}: cannot be read (${(error as Error).message}).`);
    exists = false;
  }
  return client.format === 'toml'
    ? new TomlDocument(file, original, exists, client.key)
    : new JsonDocument(file, original, exists, client.key);
}

const notTouched = 'The file was not changed: fix it (or move it away) and run the command again.';

class JsonDocument implements ConfigDocument {
  #text: string;
  readonly #format: FormattingOptions;

  constructor(
    readonly file: string,
    readonly original: string,
    readonly exists: boolean,
    private readonly key: string,
  ) {
    this.#text = original;
    if (original.trim() === '') {
      this.#text = '{}\n';
    } else {
      const source = new ConfigSource(file, original);
      const [problem] = source.problems;
      if (problem) throw new FleetError(`${formatProblem(problem)} ${notTouched}`);
      const root = source.root!;
      if (root.type !== 'object') {
        const { line, column } = source.position(root.offset);
        throw new FleetError(
          `${file}:${line}:${column}: the file holds ${root.type}, not an object. ${notTouched}`,
        );
      }
      const servers = member(root, key);
      if (servers !== undefined && servers.type !== 'object') {
        const { line, column } = source.position(servers.offset);
        throw new FleetError(
          `${file}:${line}:${column}: "${key}" is ${servers.type}, not an object of servers. ${notTouched}`,
        );
      }
    }
    this.#format = detectFormat(this.#text);
  }

  servers(): ReadonlyMap<string, unknown> {
    const root = new ConfigSource(this.file, this.#text).root;
    const servers = root && member(root, this.key);
    const value = servers ? jsonValue(servers) : {};
    return new Map(isPlainObject(value) ? Object.entries(value) : []);
  }

  set(name: string, entry: Record<string, unknown>, inputs: readonly VsCodeInput[] = []): void {
    const root = new ConfigSource(this.file, this.#text).root!;
    const servers = member(root, this.key);
    const added =
      servers === undefined
        ? insertProperty(this.#text, root, this.key, { [name]: entry }, this.#format)
        : member(servers, name) === undefined
          ? insertProperty(this.#text, servers, name, entry, this.#format)
          : undefined;
    if (added !== undefined) this.#text = added;
    else this.#edit([this.key, name], entry);
    if (inputs.length === 0) return;
    const existing = member(new ConfigSource(this.file, this.#text).root!, 'inputs');
    const list = existing ? jsonValue(existing) : undefined;
    if (existing && !Array.isArray(list)) {
      throw new FleetError(
        `${this.file}: "inputs" is not an array, so the secrets' inputs cannot be added. ${notTouched}`,
      );
    }
    const ids = new Set(
      (Array.isArray(list) ? list : []).map((i: unknown) => (isPlainObject(i) ? i.id : undefined)),
    );
    for (const input of inputs) {
      if (!ids.has(input.id)) this.#edit(['inputs', -1], input, true);
    }
  }

  remove(name: string): boolean {
    if (!this.servers().has(name)) return false;
    const servers = member(new ConfigSource(this.file, this.#text).root!, this.key)!;
    const removed = removeProperty(this.#text, servers, name);
    if (removed !== undefined) this.#text = removed;
    else this.#edit([this.key, name], undefined);
    return true;
  }

  text(): string {
    return this.#text;
  }

  #edit(path: (string | number)[], value: unknown, isArrayInsertion = false): void {
    const edits = modify(this.#text, path, value, { formattingOptions: this.#format, isArrayInsertion });
    this.#text = applyEdits(this.#text, edits);
  }
}

/**
 * `text` with `"key": value` added after the last property of `object`, on a line of its own
 * indented like that property, leaving every other line as it was (jsonc-parser's own insertion
 * reformats the line before it). Undefined when the layout is not that simple (an empty or one-line
 * object, a trailing comma): then jsonc-parser's edit is used.
 */
function insertProperty(
  text: string,
  object: Node,
  key: string,
  value: unknown,
  format: FormattingOptions,
): string | undefined {
  const last = object.children?.at(-1);
  if (last === undefined) return undefined;
  const lastEnd = last.offset + last.length;
  if (/^\s*,/.test(text.slice(lastEnd))) return undefined;
  const lineStart = text.lastIndexOf('\n', last.offset) + 1;
  if (text.slice(lineStart, last.offset).trim() !== '') return undefined;
  const newline = text.indexOf('\n', lastEnd);
  const lineEnd = newline === -1 ? text.length : text[newline - 1] === '\r' ? newline - 1 : newline;
  // The object must close on a later line.
  if (lineEnd > object.offset + object.length - 1) return undefined;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const unit = format.insertSpaces ? ' '.repeat(format.tabSize ?? 2) : '\t';
  const eol = format.eol ?? '\n';
  const body = JSON.stringify(value, null, unit)
    .split('\n')
    .join(eol + indent);
  const property = `${eol}${indent}${JSON.stringify(key)}: ${body}`;
  return `${text.slice(0, lastEnd)},${text.slice(lastEnd, lineEnd)}${property}${text.slice(lineEnd)}`;
}

/**
 * `text` without the property `key` of `object`, its whole lines taken out (a comment on its last
 * line goes with it) and the comma before it when it was the last; every other line as it was.
 * Undefined when it shares a line with another property: then jsonc-parser's edit is used.
 */
function removeProperty(text: string, object: Node, key: string): string | undefined {
  const props = object.children ?? [];
  const index = props.findIndex((p) => p.children?.[0]?.value === key);
  const property = props[index];
  if (property === undefined) return undefined;
  const lineStart = text.lastIndexOf('\n', property.offset) + 1;
  if (text.slice(lineStart, property.offset).trim() !== '') return undefined;
  const after = /^[ \t]*(,)?[ \t]*(\/\/[^\n]*)?(\r?\n|$)/.exec(text.slice(property.offset + property.length));
  if (!after) return undefined;
  const end = property.offset + property.length + after[0].length;
  const previous = props[index - 1];
  if (after[1] === undefined && previous !== undefined) {
    // The last property: the comma after the one before it goes too.
    const previousEnd = previous.offset + previous.length;
    const comma = /^[ \t]*,/.exec(text.slice(previousEnd));
    if (!comma) return undefined;
    return (
      text.slice(0, previousEnd) + text.slice(previousEnd + comma[0].length, lineStart) + text.slice(end)
    );
  }
  return text.slice(0, lineStart) + text.slice(end);
}

/** The file's own indentation and line ends, so an added entry looks like its neighbours. */
function detectFormat(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? indent.length : 2, eol };
}

class TomlDocument implements ConfigDocument {
  #text: string;
  #value: Record<string, unknown>;

  constructor(
    readonly file: string,
    readonly original: string,
    readonly exists: boolean,
    private readonly key: string,
  ) {
    this.#text = original;
    try {
      this.#value = parseToml(original, { integersAsBigInt: 'asNeeded' }) as Record<string, unknown>;
    } catch (error) {
      const { line, column } = error as { line?: number; column?: number };
      const reason = (error as Error).message.split('\n').at(-1)?.trim() || 'not valid TOML';
      throw new FleetError(
        `${file}:${line ?? 1}:${(column ?? 0) + 1}: not valid TOML here: ${reason}. ${notTouched}`,
      );
    }
    const servers = this.#value[key];
    if (servers !== undefined && !isPlainObject(servers)) {
      throw new FleetError(`${file}: "${key}" is not a table of servers. ${notTouched}`);
    }
  }

  servers(): ReadonlyMap<string, unknown> {
    const servers = this.#value[this.key];
    return new Map(isPlainObject(servers) ? Object.entries(servers) : []);
  }

  set(name: string, entry: Record<string, unknown>): void {
    const servers = { ...((this.#value[this.key] as Record<string, unknown> | undefined) ?? {}) };
    const isNew = !(name in servers);
    servers[name] = entry;
    const next = { ...this.#value, [this.key]: servers };
    // A new server goes at the end as its own [mcp_servers.NAME] table, as Codex's docs write it;
    // toml-patch would add it as a dotted key. Kept only when the result reads back as intended.
    const section = stringifyToml({ [this.key]: { [name]: entry } }, { inlineTableStart: 2 }).replace(
      new RegExp(`^\\[${this.key}\\]\\r?\\n\\r?\\n`),
      '',
    );
    const appended = `${this.#text}${this.#text === '' || this.#text.endsWith('\n\n') ? '' : this.#text.endsWith('\n') ? '\n' : '\n\n'}${section}`;
    this.#replace(
      isNew && readsAs(appended, next) ? appended : patchToml(this.#text, next, { inlineTableStart: 2 }),
      next,
    );
  }

  remove(name: string): boolean {
    const servers = { ...((this.#value[this.key] as Record<string, unknown> | undefined) ?? {}) };
    if (!(name in servers)) return false;
    delete servers[name];
    const next = { ...this.#value, [this.key]: servers };
    let text = patchToml(this.#text, next);
    // toml-patch leaves an empty [mcp_servers] header where the file had only [mcp_servers.NAME] tables.
    const header = new RegExp(`^\\[${this.key}\\][ \\t]*\\r?\\n(\\r?\\n)?`, 'm');
    if (!header.test(this.#text) && header.test(text)) {
      const stripped = text.replace(header, '');
      const nextWithoutEmpty = { ...next };
      if (Object.keys(servers).length === 0) delete nextWithoutEmpty[this.key];
      if (readsAs(stripped, nextWithoutEmpty)) text = stripped;
    }
    this.#replace(text, next);
    return true;
  }

  text(): string {
    return this.#text;
  }

  #replace(text: string, expected: Record<string, unknown>): void {
    const back = parseToml(text, { integersAsBigInt: 'asNeeded' }) as Record<string, unknown>;
    const servers = (v: Record<string, unknown>) => v[this.key] ?? {};
    if (!sameValue(servers(back), servers(expected)))
      throw new FleetError(
        `${this.file}: the edited TOML would not read back as intended; nothing was written.`,
      );
    this.#text = text;
    this.#value = back;
  }
}

function readsAs(text: string, expected: Record<string, unknown>): boolean {
  try {
    return sameValue(parseToml(text, { integersAsBigInt: 'asNeeded' }), expected);
  } catch {
    return false;
  }
}

/** Equal as data: the same keys and values, whatever their order and the objects' prototypes. */
function sameValue(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (typeof v === 'bigint') return `${v}n`;
    if (v instanceof Date) return v.toISOString();
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

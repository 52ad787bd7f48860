/**
 * A config file as text with positions: parses JSON or JSONC (comments, trailing commas) with
 * `jsonc-parser`, which keeps every value's offset, so each problem found later can name the file,
 * line and column it is about.
 */
import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';

/** One thing wrong with a config: where, what, and what to write instead. */
export interface ConfigProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** What to write instead (or do), when there is one thing to suggest. */
  readonly fix?: string;
}

/** `file:line:column: message Write instead: fix` — one line per problem. */
export function formatProblem(problem: ConfigProblem): string {
  const where = `${problem.file}:${problem.line}:${problem.column}`;
  return `${where}: ${problem.message}${problem.fix ? ` ${problem.fix}` : ''}`;
}

/** Levels of arrays and objects a config may nest (a real one uses five or six). */
export const MAX_DEPTH = 64;

/**
 * The offset of the first `[` or `{` that opens level `max + 1`, outside strings and comments
 * (JSONC), or undefined when the text nests no deeper than `max`. A scan without recursion.
 */
function nestingPast(text: string, max: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: up to its closing quote, escapes skipped.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
      while (i < text.length && text.charCodeAt(i) !== 10) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return undefined;
}

export class ConfigSource {
  /** Offsets where each line starts. */
  private readonly lineStarts: number[] = [0];
  readonly root: Node | undefined;
  readonly problems: ConfigProblem[] = [];

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    const tooDeep = nestingPast(text, MAX_DEPTH);
    if (tooDeep !== undefined) {
      // The parser and the checks after it recurse once per level: a hostile depth would overflow.
      this.root = undefined;
      this.report(
        tooDeep,
        `The config nests arrays and objects more than ${MAX_DEPTH} levels deep here; nothing in a gateway config needs that.`,
        'Remove the extra nesting.',
      );
      return;
    }
    const errors: ParseError[] = [];
    this.root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
    for (const error of errors) {
      this.report(
        error.offset,
        `${describeParseError(printParseErrorCode(error.error))}.`,
        parseFix(error.error),
      );
    }
  }

  /** Records a problem at `offset` (a node's offset, or an offset inside a string). */
  report(offset: number, message: string, fix?: string): void {
    const { line, column } = this.position(offset);
    this.problems.push({ file: this.file, line, column, message, ...(fix ? { fix } : {}) });
  }

  /** Records a problem about a node, or about the file as a whole when there is no node. */
  reportAt(node: Node | undefined, message: string, fix?: string): void {
    this.report(node?.offset ?? 0, message, fix);
  }

  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - this.lineStarts[low]! + 1 };
  }
}

/** The property nodes of an object node: [key node, value node, key]. */
export function properties(node: Node): Array<{ key: string; keyNode: Node; value: Node }> {
  const out: Array<{ key: string; keyNode: Node; value: Node }> = [];
  for (const property of node.children ?? []) {
    const [keyNode, value] = property.children ?? [];
    if (keyNode?.type === 'string' && value !== undefined) {
      out.push({ key: keyNode.value as string, keyNode, value });
    }
  }
  return out;
}

/** The value node of `key` in an object node. */
export function member(node: Node, key: string): Node | undefined {
  return properties(node).find((p) => p.key === key)?.value;
}

/** The JSON value of a node (jsonc-parser's nodes keep values only at the leaves). */
export function jsonValue(node: Node): unknown {
  switch (node.type) {
    case 'object':
      return Object.fromEntries(properties(node).map((p) => [p.key, jsonValue(p.value)]));
    case 'array':
      return (node.children ?? []).map(jsonValue);
    default:
      return node.value;
  }
}

export function jsonType(node: Node): string {
  return node.type === 'null' ? 'null' : node.type;
}

function describeParseError(code: string): string {
  // printParseErrorCode gives 'CommaExpected'; say it as a sentence.
  const words = code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `Not valid JSON here: ${words}`;
}

function parseFix(code: number): string | undefined {
  switch (code) {
    case 6: // CommaExpected
      return 'Put a comma between two entries.';
    case 5: // ColonExpected
      return 'Write "key": value.';
    case 3: // PropertyNameExpected
      return 'Property names are double-quoted strings ("name": ...); remove a stray comma.';
    case 7: // CloseBraceExpected
      return 'Close the object with }.';
    case 8: // CloseBracketExpected
      return 'Close the array with ].';
    default:
      return undefined;
  }
}

/**
 * Matching a concrete URI against a parsed RFC 6570 template, in time linear in the URI.
 *
 * The template is compiled once into a small automaton (literals, runs of value characters, forks for
 * optional parts, capture marks). Matching is a backtracking search over it that remembers every
 * (branch node, position) it has already explored: a state that failed once fails again, so it is
 * never explored twice. The work is therefore bounded by branch nodes × URI length, whatever the URI,
 * which is what a regular expression cannot promise: `{a}-{b}-{c}` compiled to
 * `([^/]*?)-([^/]*?)-([^/]*)` backtracks in O(n³) on a long run of dashes, and exploded lists built
 * from nested quantifiers are exponential (CVE-2026-0621 in the official TypeScript SDK).
 *
 * Which match is chosen when several exist (the documented ambiguity rule):
 * 1. Parts are filled left to right; an optional part (a variable of a multi-variable expression, an
 *    expression that may expand to nothing, one more item of an exploded list) is taken whenever the
 *    rest of the URI can still match.
 * 2. A variable's text is the shortest that lets the rest of the URI match.
 * So `{a}-{b}` on `x-y-z` gives a=`x`, b=`y-z`; `{+dir}/{name}` on `p/q/r` gives dir=`p/q`, name=`r`;
 * `{/a,b}` on `/x` gives a=`x`.
 */
import type { Expression, Operator, TemplatePart } from './uri-template-syntax.js';
import { isTripletAt, pctEncodeUtf8, percentDecode } from './uri-template-syntax.js';

/** URIs longer than this never match: the bound keeps the search's memory small and fixed. */
export const MAX_MATCH_URI_LENGTH = 8192;

/** Variables extracted by a match, percent-decoded; exploded variables are arrays. */
export type MatchedVariables = Record<string, string | string[]>;

// Node kinds.
const LIT = 0; // match `text` (see matchLiteral), go to `next`
const RUN = 1; // zero or more characters not in `stop`, shortest first (see `pause`), then `next`
const FORK = 2; // try `next`, then `alt`
const OPEN = 3; // a value of `slot` starts here
const CLOSE = 4; // a value of `slot` ends here
const END = 5; // accept at the end of the URI
const QUERY = 6; // accept if the rest is the query tail (see QueryTail)

interface Node {
  readonly kind: number;
  next: number;
  alt: number;
  readonly text: string;
  readonly stop: Uint8Array | undefined;
  /**
   * RUN: where the run pauses to try what follows it: its stop characters plus every character the
   * continuation can start with (index 128 stands for all non-ASCII characters). Trying the
   * continuation anywhere else is bound to fail, so the run skips those positions in one step.
   */
  pause: Uint8Array | undefined;
  /** RUN: `pause` is empty, so the run always takes the rest of the URI. */
  runsToEnd: boolean;
  readonly slot: number;
  /** Row in the memo for branch nodes (RUN, FORK); -1 for nodes that cannot branch. */
  readonly memo: number;
}

interface Slot {
  readonly name: string;
  readonly exploded: boolean;
}

/**
 * Characters a value cannot contain unencoded, per operator. `/`, `?` and `#` end a path segment,
 * label or parameter; `+` and `#` values may hold any reserved character (RFC 6570 §3.2.3), so only the
 * literal that follows them bounds them; named parameters end at their separator.
 */
const VALUE_STOP: Readonly<Record<Operator['char'], string>> = {
  '': '/?#',
  '+': '',
  '#': '',
  '.': '/?#',
  '/': '/?#',
  ';': '/?#;',
  '?': '&#',
  '&': '&#',
};

const stopTables = new Map<string, Uint8Array>();
function stopTable(chars: string): Uint8Array {
  let table = stopTables.get(chars);
  if (!table) {
    table = new Uint8Array(128);
    for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
    stopTables.set(chars, table);
  }
  return table;
}

/** `a` and `b` hold the same hex digits (in either case) after a `%` at `i` and `j`. */
const sameTriplet = (a: string, i: number, b: string, j: number): boolean =>
  a.slice(i + 1, i + 3).toUpperCase() === b.slice(j + 1, j + 3).toUpperCase();

/**
 * Matches literal `lit` (in expanded form) at `uri[pos]`; returns the position after it, or -1.
 * Lenient in the two ways URIs legitimately differ: `%xx` hex digits in either case, and a non-ASCII
 * character written raw (an IRI) where the template has its `%XX` encoding.
 */
function matchLiteral(uri: string, pos: number, lit: string): number {
  let i = pos;
  let j = 0;
  while (j < lit.length) {
    const code = lit.charCodeAt(j);
    if (code !== 0x25 /* % */) {
      if (uri.charCodeAt(i) !== code) return -1;
      i++;
      j++;
    } else if (isTripletAt(uri, i)) {
      if (!sameTriplet(uri, i, lit, j)) return -1;
      i += 3;
      j += 3;
    } else {
      const point = uri.codePointAt(i);
      if (point === undefined || point < 0x80) return -1;
      const width = point > 0xffff ? 2 : 1;
      const encoded = pctEncodeUtf8(uri.slice(i, i + width));
      if (lit.slice(j, j + encoded.length).toUpperCase() !== encoded) return -1;
      i += width;
      j += encoded.length;
    }
  }
  return i;
}

// Search scratch, shared by all matchers: matching is synchronous and calls no user code, so one
// search never interleaves with another. The memo is stamped with a generation so it is never cleared
// between searches (only when the 8-bit generation wraps).
let memo = new Uint8Array(0);
let memoGeneration = 0;
const stackNode: number[] = [];
const stackPos: number[] = [];
const stackChoice: number[] = [];

function startMemo(size: number): void {
  if (memo.length < size) {
    memo = new Uint8Array(size);
    memoGeneration = 0;
  }
  if (++memoGeneration === 256) {
    memo.fill(0);
    memoGeneration = 1;
  }
}

/**
 * The query tail: the template's trailing `{?...}`/`{&...}` expressions. They are matched as a set of
 * `name=value` parameters rather than in order, because clients and proxies reorder query strings.
 * Every parameter is optional; parameters the template does not name are ignored; for a name given
 * twice the first value wins unless the variable is exploded (`{?tag*}`), which collects them all.
 */
interface QueryTail {
  /** `?` or `&`: the character the query part must start with. */
  readonly first: string;
  /** Slot of each parameter, keyed by its percent-decoded name. */
  readonly vars: ReadonlyMap<string, number>;
}

/**
 * The work of the last search: stack steps plus characters scanned by runs. Tests hold it against the
 * bound (nodes × URI length), which a passing-but-slow search would not show.
 */
let searchWork = 0;
/** @internal See {@link searchWork}. */
export const lastSearchWork = (): number => searchWork;

export class TemplateMatcher {
  readonly #nodes: Node[] = [];
  readonly #slots: Slot[] = [];
  readonly #start: number;
  readonly #query: QueryTail | undefined;
  /** A plain-ASCII prefix every matching URI starts with: a cheap first test. */
  readonly quickPrefix: string;
  #memoRows = 0;
  /** Whether some variable occurs twice, so a match must check that its values agree. */
  readonly #repeatsNames: boolean;

  constructor(parts: readonly TemplatePart[]) {
    // One slot per variable occurrence, in template order (the order of the match result's keys).
    const firstSlot = new Map<Expression, number>();
    for (const part of parts) {
      if (part.kind !== 'expression') continue;
      firstSlot.set(part, this.#slots.length);
      for (const v of part.vars) this.#slots.push({ name: v.name, exploded: v.explode });
    }
    const names = this.#slots.map((slot) => slot.name);
    this.#repeatsNames = new Set(names).size < names.length;
    let tailStart = parts.length;
    while (tailStart > 0) {
      const part = parts[tailStart - 1]!;
      if (part.kind !== 'expression' || (part.operator.char !== '?' && part.operator.char !== '&')) break;
      tailStart--;
    }
    let next: number;
    if (tailStart < parts.length) {
      const vars = new Map<string, number>();
      for (const part of parts.slice(tailStart) as Expression[]) {
        part.vars.forEach((v, i) => {
          const key = percentDecode(v.name);
          if (!vars.has(key)) vars.set(key, firstSlot.get(part)! + i);
        });
      }
      this.#query = { first: (parts[tailStart] as Expression).operator.first, vars };
      next = this.#add(QUERY);
    } else {
      this.#query = undefined;
      next = this.#add(END);
    }
    for (let i = tailStart - 1; i >= 0; i--) {
      const part = parts[i]!;
      next =
        part.kind === 'literal'
          ? this.#literal(part.text, next)
          : this.#expression(part, firstSlot.get(part)!, next);
    }
    this.#start = next;
    const firsts = new Map<number, Uint8Array>();
    for (const node of this.#nodes) {
      if (node.kind !== RUN) continue;
      const pause = this.#firstChars(node.next, firsts).slice();
      for (let c = 0; c < 128; c++) pause[c] ||= node.stop![c]!;
      node.pause = pause;
      node.runsToEnd = !pause.includes(1);
    }
    const head = parts[0];
    this.quickPrefix = head?.kind === 'literal' ? head.text.split('%', 1)[0]! : '';
  }

  /**
   * The characters a match can start with from node `id` (index 128: any non-ASCII character). The
   * automaton has no cycle that consumes nothing, so the recursion ends.
   */
  #firstChars(id: number, cache: Map<number, Uint8Array>): Uint8Array {
    let set = cache.get(id);
    if (set) return set;
    const node = this.#nodes[id]!;
    set = new Uint8Array(129);
    const add = (other: Uint8Array) => {
      for (let c = 0; c < 129; c++) set![c] ||= other[c]!;
    };
    switch (node.kind) {
      case LIT:
        // A literal %XX may match a raw non-ASCII character (see matchLiteral).
        if (node.text[0] === '%') set[128] = 1;
        set[node.text.charCodeAt(0)] = 1;
        break;
      case RUN:
        for (let c = 0; c < 128; c++) set[c] = node.stop![c]! ^ 1;
        set[128] = 1;
        add(this.#firstChars(node.next, cache));
        break;
      case FORK:
        add(this.#firstChars(node.next, cache));
        add(this.#firstChars(node.alt, cache));
        break;
      case OPEN:
      case CLOSE:
        add(this.#firstChars(node.next, cache));
        break;
      case QUERY:
        set[this.#query!.first.charCodeAt(0)] = 1;
        break;
    }
    cache.set(id, set);
    return set;
  }

  #add(kind: number, fields: Partial<Pick<Node, 'next' | 'alt' | 'text' | 'stop' | 'slot'>> = {}): number {
    const branches = kind === RUN || kind === FORK;
    this.#nodes.push({
      kind,
      next: fields.next ?? -1,
      alt: fields.alt ?? -1,
      text: fields.text ?? '',
      stop: fields.stop,
      pause: undefined,
      runsToEnd: false,
      slot: fields.slot ?? -1,
      memo: branches ? this.#memoRows++ : -1,
    });
    return this.#nodes.length - 1;
  }

  #literal(text: string, next: number): number {
    return text === '' ? next : this.#add(LIT, { text, next });
  }

  /**
   * An expression writes `first` before its first defined variable and `sep` before each later one,
   * and skips undefined variables; so each variable is a fork (present or absent) in one of two
   * states: nothing written yet, or something written.
   */
  #expression(expr: Expression, firstSlot: number, next: number): number {
    const op = expr.operator;
    let afterSome = next; // state "something written" before variable i
    let afterNone = next; // state "nothing written yet" before variable i
    for (let i = expr.vars.length - 1; i >= 0; i--) {
      const v = expr.vars[i]!;
      const slot = firstSlot + i;
      const body = v.explode
        ? this.#explodedValue(op, v.name, slot, afterSome)
        : this.#value(op, v.name, slot, afterSome);
      const none = this.#add(FORK, { next: this.#literal(op.first, body), alt: afterNone });
      if (i > 0) afterSome = this.#add(FORK, { next: this.#literal(op.sep, body), alt: afterSome });
      afterNone = none;
    }
    return afterNone;
  }

  /** A captured run of value characters, then `next`. */
  #capture(slot: number, stop: string, next: number): number {
    const close = this.#add(CLOSE, { slot, next });
    const run = this.#add(RUN, { stop: stopTable(stop), next: close });
    return this.#add(OPEN, { slot, next: run });
  }

  /** A named value: `name`, then `=value` or nothing (an empty value: `;x`, and leniently `?x`). */
  #named(name: string, slot: number, stop: string, next: number): number {
    const withValue = this.#literal('=', this.#capture(slot, stop, next));
    const empty = this.#add(OPEN, { slot, next: this.#add(CLOSE, { slot, next }) });
    return this.#literal(name, this.#add(FORK, { next: withValue, alt: empty }));
  }

  #value(op: Operator, name: string, slot: number, next: number): number {
    const stop = VALUE_STOP[op.char];
    return op.named ? this.#named(name, slot, stop, next) : this.#capture(slot, stop, next);
  }

  /** One or more items separated by `sep`; the items of an exploded value cannot contain `sep`. */
  #explodedValue(op: Operator, name: string, slot: number, next: number): number {
    const stop = VALUE_STOP[op.char].includes(op.sep) ? VALUE_STOP[op.char] : VALUE_STOP[op.char] + op.sep;
    const more = this.#add(FORK, { alt: next }); // `next` patched below: the loop back to the item
    const item = op.named ? this.#named(name, slot, stop, more) : this.#capture(slot, stop, more);
    this.#nodes[more]!.next = this.#literal(op.sep, item);
    return item;
  }

  /** Nodes of the compiled automaton (what the search's work is bounded by, times the URI length). */
  get size(): number {
    return this.#nodes.length;
  }

  /** The variables of `uri`, or undefined when it does not match the template. */
  match(uri: string): MatchedVariables | undefined {
    if (uri.length > MAX_MATCH_URI_LENGTH || !uri.startsWith(this.quickPrefix)) return undefined;
    const depth = this.#search(uri);
    if (depth < 0) return undefined;
    return this.#collect(uri, depth);
  }

  /** Depth of the accepting path left on the scratch stack, or -1. */
  #search(uri: string): number {
    const nodes = this.#nodes;
    const n = uri.length;
    const width = n + 1;
    const query = this.#query;
    const lastHash = query ? uri.lastIndexOf('#') : -1;
    startMemo(this.#memoRows * width);
    stackNode[0] = this.#start;
    stackPos[0] = 0;
    stackChoice[0] = 0;
    let sp = 1;
    let work = 0;
    while (sp > 0) {
      work++;
      const top = sp - 1;
      const node = nodes[stackNode[top]!]!;
      const pos = stackPos[top]!;
      const choice = stackChoice[top]!;
      stackChoice[top] = choice + 1;
      let to = -1;
      let at = pos;
      switch (node.kind) {
        case LIT:
          if (choice === 0) {
            at = matchLiteral(uri, pos, node.text);
            if (at >= 0) to = node.next;
          }
          break;
        case RUN: {
          const pause = node.pause!;
          // Choice 0: end the value here and try the continuation, unless it cannot start with this
          // character; then choice 1 at once.
          if (choice === 0) {
            if (pos === n || pause[Math.min(uri.charCodeAt(pos), 128)] === 1) {
              to = node.next;
              break;
            }
            stackChoice[top] = 2;
          }
          if (choice > 1 || pos === n) break;
          let code = uri.charCodeAt(pos);
          if (code < 128 && node.stop![code] === 1) break;
          // Choice 1: consume up to the next position where the continuation could start. The
          // positions passed over are states of this run too: mark them, so that no later path scans
          // them again (that would be quadratic), and give up where an earlier path already has.
          const row = node.memo * width;
          to = stackNode[top]!;
          // Nothing to pause at (`{+path}` at the end): every entry runs to the end, no marks needed.
          at = node.runsToEnd ? n : pos + 1;
          while (at < n) {
            code = uri.charCodeAt(at);
            if (pause[Math.min(code, 128)] === 1) break;
            if (memo[row + at] === memoGeneration) {
              to = -1;
              break;
            }
            memo[row + at] = memoGeneration;
            at++;
          }
          work += at - pos;
          break;
        }
        case FORK:
          to = choice === 0 ? node.next : choice === 1 ? node.alt : -1;
          break;
        case OPEN:
        case CLOSE:
          if (choice === 0) to = node.next;
          break;
        case END:
          if (pos === n) {
            searchWork = work;
            return sp;
          }
          break;
        case QUERY:
          // The query part starts with its operator character and runs to the end (no fragment).
          if (pos === n || (uri[pos] === query!.first && lastHash < pos)) {
            searchWork = work;
            return sp;
          }
          break;
      }
      if (to < 0) {
        sp--;
        continue;
      }
      const target = nodes[to]!;
      if (target.memo >= 0) {
        const key = target.memo * width + at;
        if (memo[key] === memoGeneration) continue; // explored before from here, and it failed
        memo[key] = memoGeneration;
      }
      stackNode[sp] = to;
      stackPos[sp] = at;
      stackChoice[sp] = 0;
      sp++;
    }
    searchWork = work;
    return -1;
  }

  /** Reads the captures off the accepting path; a variable used twice must have one value. */
  #collect(uri: string, depth: number): MatchedVariables | undefined {
    const values: (string | string[] | undefined)[] = new Array(this.#slots.length);
    let open = 0;
    for (let f = 0; f < depth; f++) {
      const node = this.#nodes[stackNode[f]!]!;
      if (node.kind === OPEN) {
        open = stackPos[f]!;
      } else if (node.kind === CLOSE) {
        const value = percentDecode(uri.slice(open, stackPos[f]));
        const items = values[node.slot];
        if (!this.#slots[node.slot]!.exploded) values[node.slot] = value;
        else if (items === undefined) values[node.slot] = [value];
        else (items as string[]).push(value);
      } else if (node.kind === QUERY) {
        this.#collectQuery(uri, stackPos[f]!, values);
      }
    }
    const out: MatchedVariables = {};
    for (let slot = 0; slot < values.length; slot++) {
      const value = values[slot];
      if (value === undefined) continue;
      const name = this.#slots[slot]!.name;
      if (this.#repeatsNames && Object.hasOwn(out, name)) {
        if (!sameValue(out[name]!, value)) return undefined;
      } else if (name === '__proto__') {
        Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      } else {
        out[name] = value;
      }
    }
    return out;
  }

  /** Stores the declared parameters of the query part that starts at `pos` into their slots. */
  #collectQuery(uri: string, pos: number, values: (string | string[] | undefined)[]): void {
    const vars = this.#query!.vars;
    for (const pair of uri.slice(pos + 1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const slot = vars.get(percentDecode(eq < 0 ? pair : pair.slice(0, eq)));
      if (slot === undefined) continue;
      const value = eq < 0 ? '' : percentDecode(pair.slice(eq + 1));
      const seen = values[slot];
      if (this.#slots[slot]!.exploded) {
        if (seen === undefined) values[slot] = [value];
        else (seen as string[]).push(value);
      } else if (seen === undefined) {
        values[slot] = value;
      }
    }
  }
}

function sameValue(a: string | string[], b: string | string[]): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

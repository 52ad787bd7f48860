/**
 * RFC 6570 URI Templates for MCP resource templates: expansion (all four levels) and matching a
 * concrete URI back to its variables. Runtime-neutral, no dependencies.
 *
 * Matching rules, beyond what the RFC defines (it only specifies expansion):
 * - The whole URI must match (anchored). Literals compare exactly (no case folding, not even of the
 *   scheme), except `%xx` hex case and non-ASCII characters written raw where the template has their
 *   `%XX` form.
 * - Values are percent-decoded, so they may contain anything, `/` and `..` included (from `%2F`): a
 *   handler that maps them to files must validate them.
 * - Which characters a value may hold unencoded: `{var}`, `{.var}`, `{/var}`: not `/ ? #`; `{;var}`:
 *   not `/ ? # ;`; `{+var}`, `{#var}`: anything; query values: not `& #`. Items of an exploded value
 *   also exclude the operator's separator, and come back as an array (`{/path*}` on `/a/b` → `['a','b']`).
 *   A non-exploded list (`{list}` expanded to `a,b`) comes back as the string `a,b`.
 * - Ambiguity: parts fill left to right, optional parts are taken when possible, and each value is the
 *   shortest that lets the rest match (`{a}-{b}` on `x-y-z` → a=`x`, b=`y-z`). See the matcher.
 * - Trailing `{?...}`/`{&...}` expressions match the query as a set: order-insensitive, every parameter
 *   optional (absent ones are left out of the result), undeclared parameters ignored, first value wins
 *   for a repeated non-exploded name, `+` is not a space. The query must start with the first of those
 *   expressions' operator (`?`, or `&` after a literal query), and no fragment may follow it.
 * - Variables that expanded to nothing are absent from the result; a variable present with an empty
 *   value is `''` (`users://{id}` matches `users://` with id `''`).
 * - Exploded named variables (`{;x*}`, `{?x*}`) match the list form `x=a&x=b`, not associative arrays.
 * - Prefix modifiers (`{var:3}`) do not limit the length a client may send; they shape expansion only.
 * - A variable used twice must match the same value, otherwise there is no match.
 * - URIs longer than {@link MAX_MATCH_URI_LENGTH} never match. Matching takes time linear in the URI.
 */
import { SwitchboardError } from '../protocol/errors.js';
import { type MatchedVariables, TemplateMatcher } from './uri-template-matcher.js';
import {
  type Expression,
  encodeValue,
  parseTemplate,
  type TemplatePart,
  type VarSpec,
} from './uri-template-syntax.js';

export { MAX_MATCH_URI_LENGTH, type MatchedVariables } from './uri-template-matcher.js';
export { MAX_TEMPLATE_LENGTH } from './uri-template-syntax.js';

/**
 * A value to expand: a string (numbers are written in decimal), a list, or an associative array.
 * `undefined`, `null`, an empty list and an empty object are "undefined" in RFC 6570 terms: the
 * variable is skipped.
 */
export type UriTemplateValue =
  | string
  | number
  | readonly (string | number)[]
  | Readonly<Record<string, string | number>>
  | null
  | undefined;

export class UriTemplate {
  /** The template as given. */
  readonly template: string;
  /** Each variable once, in order of first appearance. */
  readonly variableNames: readonly string[];
  /** Characters of literal text: the more, the more specific the template ({@link matchAny}). */
  readonly literalLength: number;
  readonly #parts: readonly TemplatePart[];
  readonly #matcher: TemplateMatcher;

  /** Parses and compiles `template`; throws a `CONFIG` {@link SwitchboardError} if it is malformed. */
  constructor(template: string) {
    this.template = template;
    this.#parts = parseTemplate(template);
    const names = new Set<string>();
    let literalLength = 0;
    for (const part of this.#parts) {
      if (part.kind === 'literal') literalLength += part.text.length;
      else for (const v of part.vars) names.add(v.name);
    }
    this.variableNames = Object.freeze([...names]);
    this.literalLength = literalLength;
    this.#matcher = new TemplateMatcher(this.#parts);
  }

  /** Whether `s` contains an expression (`{...}`): a template rather than a plain URI. */
  static isTemplate(s: string): boolean {
    return /\{[^{}]+\}/.test(s);
  }

  /**
   * Expands the template (RFC 6570 §3). Throws a `CONFIG` {@link SwitchboardError} for a value of the
   * wrong kind: an object or function where a string is expected, or a list with a prefix modifier.
   */
  expand(variables: Readonly<Record<string, UriTemplateValue>>): string {
    let out = '';
    for (const part of this.#parts) {
      out += part.kind === 'literal' ? part.text : this.#expandExpression(part, variables);
    }
    return out;
  }

  /** The variables of `uri`, percent-decoded, or undefined when it does not match (see module doc). */
  match(uri: string): MatchedVariables | undefined {
    return this.#matcher.match(uri);
  }

  #expandExpression(expr: Expression, variables: Readonly<Record<string, UriTemplateValue>>): string {
    const op = expr.operator;
    let out = '';
    let first = true;
    for (const spec of expr.vars) {
      // Own properties only: a variable named `constructor` must not find Object.prototype's.
      const raw = Object.hasOwn(variables, spec.name) ? variables[spec.name] : undefined;
      const piece = this.#expandValue(op, spec, raw);
      if (piece === undefined) continue;
      out += (first ? op.first : op.sep) + piece;
      first = false;
    }
    return out;
  }

  /** One variable's expansion without its leading `first`/`sep`, or undefined to skip it. */
  #expandValue(op: Expression['operator'], spec: VarSpec, raw: UriTemplateValue): string | undefined {
    const enc = (s: string) => encodeValue(s, op.allowReserved);
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw === 'string' || typeof raw === 'number') {
      let value = String(raw);
      if (spec.prefix > 0) value = Array.from(value).slice(0, spec.prefix).join('');
      if (!op.named) return enc(value);
      return value === '' ? spec.name + op.ifemp : `${spec.name}=${enc(value)}`;
    }
    if (typeof raw !== 'object') {
      throw new SwitchboardError(
        'CONFIG',
        `URI template ${JSON.stringify(this.template)}: variable "${spec.name}" is a ${typeof raw}. ` +
          'Pass a string, a number, a list of strings, or an object of strings.',
      );
    }
    const pairs: [string, string][] = Array.isArray(raw)
      ? raw.map((item): [string, string] => ['', String(item)])
      : Object.entries(raw as Record<string, string | number>).map(([k, v]): [string, string] => [
          k,
          String(v),
        ]);
    if (pairs.length === 0) return undefined;
    if (spec.prefix > 0) {
      throw new SwitchboardError(
        'CONFIG',
        `URI template ${JSON.stringify(this.template)}: variable "${spec.name}" has a prefix modifier ` +
          `(:${spec.prefix}) but its value is a ${Array.isArray(raw) ? 'list' : 'object'}. A prefix applies ` +
          'to strings only (RFC 6570 §2.4.1): pass a string or remove the modifier.',
      );
    }
    const isList = Array.isArray(raw);
    if (!spec.explode) {
      const joined = pairs.map(([k, v]) => (isList ? enc(v) : `${enc(k)},${enc(v)}`)).join(',');
      return op.named ? `${spec.name}=${joined}` : joined;
    }
    return pairs
      .map(([k, v]) => {
        const key = isList ? (op.named ? spec.name : '') : enc(k);
        if (key === '') return enc(v);
        return op.named && v === '' ? key + op.ifemp : `${key}=${enc(v)}`;
      })
      .join(op.sep);
  }
}

/**
 * The first variable whose decoded value has a `..` path segment (`..`, `../x`, `a/..`, with `/` or
 * `\` as separator), or undefined. Matching decodes `%2e%2e%2f` into `../`, which a handler that
 * builds a file path from the value would follow out of its directory: the server refuses such URIs.
 */
export function climbingVariable(variables: MatchedVariables): string | undefined {
  for (const [name, value] of Object.entries(variables)) {
    for (const item of typeof value === 'string' ? [value] : value) {
      if (item.split(/[/\\]/).includes('..')) return name;
    }
  }
  return undefined;
}

/** The template that matched a URI, and the variables it extracted. */
export interface TemplateMatch {
  readonly template: UriTemplate;
  readonly variables: MatchedVariables;
}

/**
 * The best template for `uri`: the matching one with the most literal characters, and among equals
 * the earliest. Templates that cannot beat the best so far, or whose leading literal the URI does not
 * start with, are skipped without running their matcher. For many templates matched many times, a
 * {@link UriTemplateIndex} does less work per URI.
 */
export function matchAny(
  templates: readonly UriTemplate[],
  uri: string,
): (TemplateMatch & { readonly index: number }) | undefined {
  let best: (TemplateMatch & { readonly index: number }) | undefined;
  for (let index = 0; index < templates.length; index++) {
    const template = templates[index]!;
    if (best && template.literalLength <= best.template.literalLength) continue;
    const variables = template.match(uri);
    if (variables) best = { template, index, variables };
  }
  return best;
}

interface IndexEntry<V> {
  readonly template: UriTemplate;
  readonly value: V;
  readonly order: number;
}

/** Earlier in the list means preferred: more literal characters first, then registration order. */
const preferred = <V>(a: IndexEntry<V>, b: IndexEntry<V>): boolean =>
  a.template.literalLength > b.template.literalLength ||
  (a.template.literalLength === b.template.literalLength && a.order < b.order);

/**
 * Templates grouped by the URI scheme their leading literal fixes (`users://{id}` → `users`), each
 * group kept in preference order, so a lookup only tries the templates of the URI's scheme (plus those
 * whose scheme is itself a variable) and stops at the first match, which is the best one — the same
 * choice {@link matchAny} makes.
 */
export class UriTemplateIndex<V> {
  readonly #byScheme = new Map<string, IndexEntry<V>[]>();
  /** Templates that do not start with a literal `scheme:`. */
  readonly #anyScheme: IndexEntry<V>[] = [];
  #order = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `template` with a value (a handler, say) returned when it matches. */
  add(template: UriTemplate, value: V): void {
    const scheme = schemeOfTemplate(template.template);
    let group = this.#anyScheme;
    if (scheme !== undefined) {
      group = this.#byScheme.get(scheme) ?? [];
      this.#byScheme.set(scheme, group);
    }
    const entry: IndexEntry<V> = { template, value, order: this.#order++ };
    let at = group.length;
    while (at > 0 && preferred(entry, group[at - 1]!)) at--;
    group.splice(at, 0, entry);
    this.#size++;
  }

  /** Removes every entry for `template` (by identity); returns whether there was one. */
  delete(template: UriTemplate): boolean {
    const scheme = schemeOfTemplate(template.template);
    const group = scheme === undefined ? this.#anyScheme : this.#byScheme.get(scheme);
    if (!group) return false;
    const kept = group.filter((entry) => entry.template !== template);
    const removed = group.length - kept.length;
    if (removed === 0) return false;
    group.splice(0, group.length, ...kept);
    if (scheme !== undefined && kept.length === 0) this.#byScheme.delete(scheme);
    this.#size -= removed;
    return true;
  }

  /** The best matching entry for `uri`, or undefined. */
  match(uri: string): (TemplateMatch & { readonly value: V }) | undefined {
    const colon = uri.indexOf(':');
    const scoped = (colon > 0 && this.#byScheme.get(uri.slice(0, colon))) || [];
    const wild = this.#anyScheme;
    // Walk both groups in preference order, merged.
    let i = 0;
    let j = 0;
    while (i < scoped.length || j < wild.length) {
      const fromScoped = j >= wild.length || (i < scoped.length && preferred(scoped[i]!, wild[j]!));
      const entry = fromScoped ? scoped[i++]! : wild[j++]!;
      const variables = entry.template.match(uri);
      if (variables) return { template: entry.template, value: entry.value, variables };
    }
    return undefined;
  }
}

/** The scheme a template's leading literal fixes, if it is a valid scheme followed by `:`. */
function schemeOfTemplate(template: string): string | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(template);
  return match?.[1];
}

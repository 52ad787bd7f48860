/**
 * Turns the validator's flat error list into findings a person can act on: the JSON pointer of the
 * offending value, the value, and a sentence naming the definition that rejects it.
 *
 * `@cfworker/json-schema` reports every failed branch of an `anyOf`, so a single bad content block
 * yields a dozen errors about the wrong branches. Before reporting, each failed `anyOf`/`oneOf` keeps
 * only the branch the value was evidently meant for (the one branch with no `const` mismatch on a
 * direct member, e.g. `type: "text"` for `TextContent`). When no branch or several fit, the value is
 * reported once as matching none of them, naming the discriminator when all branches use one, and
 * otherwise each branch (by its `$ref`, title, discriminator or required members) with why it
 * failed: a reader sees every reading of the value, not the one the validator tried last.
 */
import type { OutputUnit } from '@cfworker/json-schema';
import type { Revision } from '../protocol/revisions.js';
import { isPlainObject } from '../util/guards.js';
import { onlyWrapsSubschema } from '../util/schema-errors.js';

/** One reason a value does not match its definition. */
export interface Finding {
  /** RFC 6901 pointer into the checked value. */
  readonly pointer: string;
  /** The offending value; undefined for a missing required member. */
  readonly value: unknown;
  /** The failing keyword: `additionalProperties`, `required`, `type`, `const`, `anyOf`... */
  readonly keyword: string;
  /** The innermost definition that rejects the value, e.g. `Tool` inside `ListToolsResult`. */
  readonly definition: string;
  /** What is wrong, in words. */
  readonly reason: string;
  /** Where in the schema, relative to `definition`, e.g. `additionalProperties`; empty for the definition itself. */
  readonly schemaPath: string;
}

type SchemaNode = Record<string, unknown>;

export interface ExplainInput {
  readonly root: unknown;
  readonly rootName: string;
  readonly instance: unknown;
  readonly revision: Revision;
  /** Resolves a node carrying `$ref` to its target, and the target's definition name when it has one. */
  readonly resolve: (node: SchemaNode) => { schema: unknown; name?: string | undefined };
}

interface ParsedError {
  readonly keyword: string;
  /** Keyword location segments (decoded), relative to the checked definition. */
  kw: string[];
  readonly inst: string[];
  readonly text: string;
  /** For a closed object: the property that is not allowed. */
  closedProperty?: string;
}

/**
 * Errors whose detail is in the errors after them. Besides the wrappers, `contains` and
 * `propertyNames` sum up their subschemas' errors, but the errors under them name the item or the
 * name that failed, which is what a reader of a frame wants.
 */
const carriesNoDetail = (error: ParsedError): boolean =>
  onlyWrapsSubschema(error.keyword, error.text) ||
  error.keyword === 'contains' ||
  error.keyword === 'propertyNames';

export function explainErrors(errors: readonly OutputUnit[], input: ExplainInput): Finding[] {
  const parsed = errors.map(parse);
  // cfworker reports a rejected property as a `false` schema error whose keyword location is the
  // instance location; give it the location of the `additionalProperties` keyword that rejected it.
  for (let i = 1; i < parsed.length; i++) {
    const error = parsed[i]!;
    const wrapper = parsed[i - 1]!;
    if (error.keyword !== 'false') continue;
    if (wrapper.keyword === 'additionalProperties' || wrapper.keyword === 'unevaluatedProperties') {
      error.kw = wrapper.kw;
      error.closedProperty = error.inst[error.inst.length - 1];
    }
  }
  return findingsOf(parsed, input);
}

/** The findings of a list of errors (the whole list, or one branch's part of it). */
function findingsOf(parsed: ParsedError[], input: ExplainInput): Finding[] {
  const { kept, summaries } = pruneAlternatives(parsed, input);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const error of kept) {
    if (carriesNoDetail(error)) continue;
    const summary = summaries.get(error);
    for (const finding of summary ? [summary] : describe(error, input)) {
      const key = `${finding.pointer}\u0000${finding.keyword}\u0000${finding.reason}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push(finding);
    }
  }
  return findings;
}

function parse(unit: OutputUnit): ParsedError {
  return {
    keyword: unit.keyword,
    kw: segments(unit.keywordLocation),
    inst: segments(unit.instanceLocation),
    text: unit.error,
  };
}

function segments(location: string): string[] {
  const path = location.startsWith('#') ? location.slice(1) : location;
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

const startsWith = (path: readonly string[], prefix: readonly string[]) =>
  path.length > prefix.length && prefix.every((s, i) => path[i] === s);

/**
 * Keeps, for every failed `anyOf`/`oneOf`, the errors of the branch the value was meant for.
 * A marker whose branches all mismatch is kept alone, as a leaf (`summary`).
 */
function pruneAlternatives(
  errors: ParsedError[],
  input: ExplainInput,
): { kept: ParsedError[]; summaries: Map<ParsedError, Finding> } {
  const summaries = new Map<ParsedError, Finding>();
  let live = errors;
  const markers = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .sort((a, b) => a.kw.length - b.kw.length);
  for (const marker of markers) {
    if (!live.includes(marker)) continue;
    const branches = new Map<string, ParsedError[]>();
    for (const error of live) {
      if (!startsWith(error.kw, marker.kw)) continue;
      const index = error.kw[marker.kw.length]!;
      branches.set(index, [...(branches.get(index) ?? []), error]);
    }
    if (branches.size === 0) continue; // oneOf matched more than one branch: the marker is the finding.
    const fitting = [...branches.entries()].filter(([, list]) => !mismatchesDiscriminator(list, marker));
    const chosen = fitting.length === 1 ? fitting[0]![0] : undefined;
    live = live.filter((error) => {
      if (error === marker) return chosen === undefined;
      if (!startsWith(error.kw, marker.kw)) return true;
      return chosen !== undefined && error.kw[marker.kw.length] === chosen;
    });
    if (chosen === undefined) summaries.set(marker, summarize(marker, branches, new Map(fitting), input));
  }
  return { kept: live, summaries };
}

/** A branch is not meant for the value when a direct member's `const` (or the value's type) disagrees. */
function mismatchesDiscriminator(branch: readonly ParsedError[], marker: ParsedError): boolean {
  return branch.some(
    (e) =>
      (e.keyword === 'const' &&
        e.inst.length === marker.inst.length + 1 &&
        startsWith(e.inst, marker.inst)) ||
      (e.keyword === 'type' && e.inst.length === marker.inst.length),
  );
}

const leafCount = (list: readonly ParsedError[]) => list.filter((e) => !carriesNoDetail(e)).length;

/**
 * One finding for a failed `anyOf`/`oneOf` no single branch fits. `fitting` are the branches whose
 * discriminator agrees with the value (several), or none: then every branch is explained.
 */
function summarize(
  marker: ParsedError,
  branches: Map<string, ParsedError[]>,
  fitting: Map<string, ParsedError[]>,
  input: ExplainInput,
): Finding {
  const at = walkSchema(input, marker.kw);
  const alternatives = isPlainObject(at.parent) && Array.isArray(at.node) ? at.node : [];
  const names = alternatives.map((alt, i) => branchName(alt, i));
  // When every branch rejects the same direct member by `const` (`type`, `method`, `mode`...), name it.
  const discriminators = [...branches.values()].map((list) =>
    list.find((e) => e.keyword === 'const' && e.inst.length === marker.inst.length + 1),
  );
  const member = discriminators[0]?.inst[marker.inst.length];
  const base = toPointer(marker.inst);
  if (
    fitting.size === 0 &&
    member !== undefined &&
    discriminators.every((d) => d?.inst[marker.inst.length] === member)
  ) {
    const expected = discriminators.map((d) => JSON.stringify(constAt(input, d!.kw)));
    const value = valueAt(input.instance, [...marker.inst, member]);
    return {
      pointer: `${base}/${escapeSegment(member)}`,
      value,
      keyword: marker.keyword,
      definition: at.name,
      schemaPath: at.path,
      reason: `"${member}" ${JSON.stringify(value)} matches none of ${names.join(', ')} (expected one of ${[...new Set(expected)].join(', ')}) in revision ${input.revision}`,
    };
  }
  const explained = [...(fitting.size > 0 ? fitting : branches)]
    .map(([index, list]) => ({
      name: names[Number(index)] ?? `alternative #${index}`,
      why: branchReason(findingsOf(list, input), marker.inst),
      leaves: leafCount(list),
    }))
    .sort((a, b) => a.leaves - b.leaves);
  const same = explained.length > 1 && new Set(explained.map((b) => b.why)).size === 1;
  const shown = same ? [] : explained.slice(0, SHOWN_BRANCHES);
  const more = same ? 0 : explained.length - shown.length;
  const why = same ? `each: ${explained[0]!.why}` : shown.map((b) => `${b.name}: ${b.why}`).join('; ');
  return {
    pointer: base,
    value: valueAt(input.instance, marker.inst),
    keyword: marker.keyword,
    definition: at.name,
    schemaPath: at.path,
    reason:
      `value matches none of ${names.join(', ')} in revision ${input.revision} ` +
      `(${why}${more > 0 ? `; ${more} more` : ''})`,
  };
}

/** How many branches a summary explains (those closest to matching first), to keep it on a line or two. */
const SHOWN_BRANCHES = 3;
/** How many of a branch's findings its explanation names. */
const SHOWN_REASONS = 2;

/** Why one branch rejects the value, in a few words: its findings, relative to where the branches meet. */
function branchReason(findings: readonly Finding[], at: readonly string[]): string {
  const base = toPointer(at);
  const missing = findings.filter((f) => f.keyword === 'required' && f.pointer.startsWith(base));
  const parts: string[] = [];
  if (missing.length > 0) {
    const names = missing.map((f) => {
      const relative = f.pointer.slice(base.length);
      return JSON.stringify(relative.slice(1).replace(/~1/g, '/').replace(/~0/g, '~'));
    });
    parts.push(`missing ${names.join(', ')}`);
  }
  for (const finding of findings) {
    if (missing.includes(finding)) continue;
    const relative = finding.pointer.startsWith(base) ? finding.pointer.slice(base.length) : finding.pointer;
    const reason = finding.reason.replace(/ in revision \S+$/, '');
    parts.push(relative === '' ? reason : `${relative}: ${reason}`);
  }
  const more = parts.length - SHOWN_REASONS;
  return `${parts.slice(0, SHOWN_REASONS).join(', ')}${more > 0 ? ` (+${more})` : ''}`;
}

/** A branch as a reader knows it: its definition's name, its title, its discriminator or its members. */
function branchName(alternative: unknown, index: number): string {
  if (!isPlainObject(alternative)) return `alternative #${index}`;
  if (typeof alternative.$ref === 'string')
    return alternative.$ref.slice(alternative.$ref.lastIndexOf('/') + 1);
  if (typeof alternative.title === 'string') return JSON.stringify(alternative.title);
  const properties = isPlainObject(alternative.properties) ? alternative.properties : {};
  for (const [member, schema] of Object.entries(properties)) {
    if (isPlainObject(schema) && schema.const !== undefined)
      return `${member} ${JSON.stringify(schema.const)}`;
  }
  if (Array.isArray(alternative.required) && alternative.required.length > 0)
    return `the one with ${alternative.required.map((name) => JSON.stringify(name)).join(', ')}`;
  if (alternative.type !== undefined) return `${JSON.stringify(alternative.type)} value`;
  return `alternative #${index}`;
}

function describe(error: ParsedError, input: ExplainInput): Finding[] {
  const at = walkSchema(input, error.kw);
  const pointer = toPointer(error.inst);
  const value = valueAt(input.instance, error.inst);
  const base = { keyword: error.keyword, definition: at.name, schemaPath: at.path };
  switch (error.keyword) {
    case 'false':
      if (error.closedProperty !== undefined) {
        return [
          {
            ...base,
            keyword: 'additionalProperties',
            pointer,
            value,
            reason: `property "${error.closedProperty}" is not defined by ${at.name} in revision ${input.revision}`,
          },
        ];
      }
      return [{ ...base, pointer, value, reason: 'no value is allowed here' }];
    case 'required': {
      const required =
        isPlainObject(at.parent) && Array.isArray(at.parent.required) ? at.parent.required : [];
      const missing = required.filter(
        (name): name is string =>
          typeof name === 'string' && !(isPlainObject(value) && Object.hasOwn(value, name)),
      );
      return missing.map((name) => ({
        ...base,
        pointer: `${pointer}/${escapeSegment(name)}`,
        value: undefined,
        reason: `required property "${name}" of ${at.name} is missing`,
      }));
    }
    case 'const':
      return [{ ...base, pointer, value, reason: `expected ${JSON.stringify(at.node)}` }];
    case 'enum': {
      const options = Array.isArray(at.node) ? at.node.map((o) => JSON.stringify(o)).join(', ') : '?';
      return [{ ...base, pointer, value, reason: `expected one of ${options}` }];
    }
    case 'type': {
      const expected = Array.isArray(at.node) ? at.node.join(' or ') : String(at.node);
      return [{ ...base, pointer, value, reason: `expected ${expected}, got ${typeName(value)}` }];
    }
    default:
      return [{ ...base, pointer, value, reason: lowerFirst(error.text.replace(/\.$/, '')) }];
  }
}

interface SchemaPosition {
  /** The schema value at the location (for `const`, the constant itself). */
  readonly node: unknown;
  /** The schema object holding the final keyword. */
  readonly parent: unknown;
  /** The innermost definition crossed. */
  readonly name: string;
  /** The location relative to that definition. */
  readonly path: string;
}

/** Follows a keyword location through the schema, crossing `$ref`s, to name the innermost definition. */
function walkSchema(input: ExplainInput, kw: readonly string[]): SchemaPosition {
  let node: unknown = input.root;
  let parent: unknown;
  let name = input.rootName;
  let relative: string[] = [];
  for (const segment of kw) {
    if (segment === '$ref' && isPlainObject(node)) {
      const target = input.resolve(node);
      node = target.schema;
      if (target.name !== undefined) {
        name = target.name;
        relative = [];
      }
      continue;
    }
    parent = node;
    node =
      isPlainObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
    relative.push(segment);
  }
  return { node, parent, name, path: relative.join('/') };
}

function constAt(input: ExplainInput, kw: readonly string[]): unknown {
  return walkSchema(input, kw).node;
}

function valueAt(instance: unknown, path: readonly string[]): unknown {
  let value = instance;
  for (const segment of path) {
    if (Array.isArray(value)) value = value[Number(segment)];
    else if (isPlainObject(value)) value = Object.hasOwn(value, segment) ? value[segment] : undefined;
    else return undefined;
  }
  return value;
}

const escapeSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const toPointer = (path: readonly string[]) => path.map((s) => `/${escapeSegment(s)}`).join('');
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

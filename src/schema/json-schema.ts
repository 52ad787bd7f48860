/**
 * Raw JSON Schema: dialect detection, registration-time checks ($ref must stay inside the document —
 * SEP-2106 forbids dereferencing network `$ref`s — and regexes must compile), and validation with
 * `@cfworker/json-schema` (no code generation, so it runs on every runtime), or with the fast path
 * when the schema is simple enough.
 */
import {
  format as cfworkerFormats,
  dereference,
  type OutputUnit,
  type Schema,
  type SchemaDraft,
  ucs2length,
  validate,
} from '@cfworker/json-schema';
import { SwitchboardError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/types.js';
import { deepFreeze } from '../util/freeze.js';
import { errorMessage } from '../util/guards.js';
import {
  ITEM_WRAPPERS,
  onlyWrapsSubschema,
  PROPERTY_WRAPPERS,
  SUMMING_KEYWORDS,
} from '../util/schema-errors.js';
import { compileFastPath } from './fast-path.js';
import { childPath, issueText } from './issues.js';
import type { LinearPatterns, PatternTest } from './linear-pattern.js';
import type {
  Issue,
  JsonSchemaDialect,
  JsonSchemaDocument,
  TypedJsonSchema,
  ValidationResult,
  ValidationStrategy,
} from './types.js';

/**
 * Brands a raw JSON Schema with the TypeScript type of the values it accepts, so handlers get typed
 * arguments: `inputSchema: jsonSchema<{ a: number }>({ type: 'object', properties: { a: { type:
 * 'number' } }, required: ['a'] })`. Returns the same object; nothing checks that `T` matches.
 */
export function jsonSchema<T = Record<string, unknown>>(schema: JsonSchemaDocument): TypedJsonSchema<T> {
  return schema as TypedJsonSchema<T>;
}

export interface CompiledJsonSchema {
  jsonSchema: JsonObject;
  dialect: JsonSchemaDialect;
  strategy: ValidationStrategy;
  validate(value: unknown): ValidationResult<unknown>;
}

/** Dialect URIs, compared without a trailing `#` and with `http:` read as `https:`. */
const DIALECTS: Readonly<Record<string, JsonSchemaDialect>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft-07/schema': 'draft-07',
};

/** The dialect named by `$schema` (2020-12 when absent), or a CONFIG error naming `where`. */
export function dialectOf(schema: Record<string, unknown>, where: string): JsonSchemaDialect {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  const normalized =
    typeof declared === 'string' ? declared.replace(/#$/, '').replace(/^http:/, 'https:') : '';
  const dialect = Object.hasOwn(DIALECTS, normalized) ? DIALECTS[normalized] : undefined;
  if (dialect) return dialect;
  throw new SwitchboardError(
    'CONFIG',
    `${where} declares "$schema": ${JSON.stringify(declared)}, a JSON Schema dialect MCP does not use. ` +
      'Omit "$schema" (JSON Schema 2020-12, the MCP default) or set it to ' +
      '"https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#".',
  );
}

export interface CompileJsonSchemaOptions {
  /** `false` forces the generic validator (parity tests and benchmarks compare the two). */
  fastPath?: boolean;
  /**
   * The schema came from a peer (a server's outputSchema, checked by the client): its patterns are
   * matched in linear time by these (see linear-pattern.ts), never by V8's backtracking engine.
   */
  peerPatterns?: LinearPatterns;
}

/**
 * Prepares a raw JSON Schema. `where` names it in errors, e.g. `The inputSchema of tool "add"`.
 * Throws `SwitchboardError('CONFIG')` for anything that would fail later at validation time.
 */
export function compileJsonSchema(
  schema: JsonSchemaDocument,
  where: string,
  { fastPath = true, peerPatterns }: CompileJsonSchemaOptions = {},
): CompiledJsonSchema {
  // A JSON round trip is exactly what a client will see, detaches us from later mutation of the
  // caller's object, and rejects cycles and values JSON cannot carry up front.
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch (error) {
    throw new SwitchboardError('CONFIG', `${where} is not JSON-serializable: ${errorMessage(error)}.`, {
      cause: error,
    });
  }
  if (text === undefined || text[0] !== '{') {
    throw new SwitchboardError('CONFIG', `${where} must be a JSON Schema object, got ${typeof schema}.`);
  }
  const wire = JSON.parse(text) as JsonObject;
  const dialect = dialectOf(wire, where);
  // cfworker annotates the schema it is given (non-enumerable URIs), so it gets its own copy.
  const working = JSON.parse(text) as Schema;
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(working);
  } catch (error) {
    throw new SwitchboardError('CONFIG', `${where} has an invalid "$id": ${errorMessage(error)}.`, {
      cause: error,
    });
  }
  checkReferencesAndPatterns(lookup, where);
  const linear = peerPatterns ? linearFormats(lookup, peerPatterns, where) : undefined;

  const fast = fastPath
    ? compileFastPath(wire, peerPatterns ? (source) => peerPatterns.compile(source, where) : undefined)
    : undefined;
  deepFreeze(wire);
  if (fast) return { jsonSchema: wire, dialect, strategy: 'fast-path', validate: fast };

  const draft: SchemaDraft = dialect === '2020-12' ? '2020-12' : '7';
  return {
    jsonSchema: wire,
    dialect,
    strategy: 'json-schema',
    validate(value) {
      try {
        if (linear) for (const [name, test] of linear) registerPatternFormat(name, test);
        const result = validate(value, working, draft, lookup, false);
        if (result.valid) return { ok: true, value };
        return { ok: false, issues: translateErrors(result.errors, value, working, lookup) };
      } catch (error) {
        return { ok: false, issues: [{ path: '$', message: thrownMessage(error) }] };
      }
    },
  };
}

/**
 * Every `$ref` must resolve inside the document (to a JSON Pointer, an anchor or an embedded `$id`):
 * we never fetch, so an unresolved one would only fail later, on the first call. Walks exactly the
 * subschemas cfworker registered, i.e. the ones it would follow.
 */
function checkReferencesAndPatterns(lookup: Record<string, Schema | boolean>, where: string): void {
  const seen = new Set<Schema>();
  for (const node of Object.values(lookup)) {
    if (typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (node.$ref !== undefined) {
      if (typeof node.$ref !== 'string') {
        throw new SwitchboardError(
          'CONFIG',
          `${where} has a "$ref" that is not a string: ${JSON.stringify(node.$ref)}.`,
        );
      }
      if (lookup[node.__absolute_ref__ ?? node.$ref] === undefined) throw unresolvedRef(node.$ref, where);
    }
    if (node.$dynamicRef !== undefined) {
      throw new SwitchboardError(
        'CONFIG',
        `${where} uses "$dynamicRef", which the JSON Schema validator does not support. ` +
          'Use "$ref" to a definition under "$defs", or pass a Standard Schema (zod, valibot, arktype) ' +
          'instead.',
      );
    }
    const patterns = [
      ...(typeof node.pattern === 'string' ? [node.pattern] : []),
      ...(typeof node.patternProperties === 'object' && node.patternProperties !== null
        ? Object.keys(node.patternProperties)
        : []),
    ];
    for (const pattern of patterns) {
      try {
        new RegExp(pattern, 'u');
      } catch (error) {
        throw new SwitchboardError(
          'CONFIG',
          `${where} has the pattern ${JSON.stringify(pattern)}, which is not a valid regular expression ` +
            `(JSON Schema patterns are ECMA-262 regexes with the "u" flag): ${errorMessage(error)}.`,
          { cause: error },
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A peer's patterns under cfworker

/**
 * cfworker runs `pattern` with V8's `RegExp`. In a peer's schema, each `pattern` is replaced by a
 * `format` whose name stands for it and whose check is the linear-time test (in a new `allOf` branch
 * when the node has a format already, which keeps the meaning: both apply to strings only). Returns
 * the formats the validator needs registered. `patternProperties` keys cannot be moved out of
 * cfworker's hands: a peer's are accepted only when free of quantifiers and alternation (then a
 * backtracking engine is linear on them too).
 */
function linearFormats(
  lookup: Record<string, Schema | boolean>,
  patterns: LinearPatterns,
  where: string,
): Map<string, PatternTest> | undefined {
  let formats: Map<string, PatternTest> | undefined;
  const seen = new Set<Schema>();
  for (const node of Object.values(lookup)) {
    if (typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const properties = node.patternProperties;
    if (typeof properties === 'object' && properties !== null) {
      for (const key of Object.keys(properties)) {
        if (/[*+?{|]/.test(key)) {
          throw new SwitchboardError(
            'CONFIG',
            `${where} has the patternProperties pattern ${JSON.stringify(key)}, which cannot be matched in linear time (quantifiers and alternation in property-name patterns are not run): values are not checked against this schema.`,
          );
        }
      }
    }
    if (typeof node.pattern !== 'string') continue;
    const name = PATTERN_FORMAT + node.pattern;
    formats ??= new Map();
    formats.set(name, patterns.compile(node.pattern, where));
    delete node.pattern;
    if (node.format === undefined) node.format = name;
    else node.allOf = [...(Array.isArray(node.allOf) ? node.allOf : []), { format: name }];
  }
  return formats;
}

/** The prefix of the format names that stand for a peer's patterns. */
const PATTERN_FORMAT = 'x-switchboard-linear-pattern:';

/** Our entries in cfworker's format table, least recently registered first. */
const patternFormats = new Map<string, PatternTest>();

/**
 * Puts a pattern's format in cfworker's table. Every validation registers its formats right before
 * it runs (synchronously), so the table can stay bounded: past 1000 entries, the oldest go.
 */
function registerPatternFormat(name: string, test: PatternTest): void {
  patternFormats.delete(name);
  patternFormats.set(name, test);
  cfworkerFormats[name] = test;
  if (patternFormats.size > 1000) {
    const oldest = patternFormats.keys().next().value!;
    patternFormats.delete(oldest);
    delete cfworkerFormats[oldest];
  }
}

function unresolvedRef(ref: string, where: string): SwitchboardError {
  if (ref.startsWith('#')) {
    return new SwitchboardError(
      'CONFIG',
      `${where} has "$ref": ${JSON.stringify(ref)}, which points nowhere inside the schema. ` +
        'Fix the pointer (e.g. "#/$defs/<name>") or add the missing definition under "$defs".',
    );
  }
  return new SwitchboardError(
    'CONFIG',
    `${where} has "$ref": ${JSON.stringify(ref)}, which points outside the schema. Switchboard never ` +
      'fetches network $refs (MCP SEP-2106). Copy the referenced schema under "$defs" and refer to it as ' +
      '"#/$defs/<name>".',
  );
}

// ---------------------------------------------------------------------------------------------
// cfworker output → issues

const DEPENDENCY = /^Instance has "(.*)" but does not have "(.*)"\.$/;
const UNEVALUATED = new Set(['unevaluatedProperties', 'unevaluatedItems']);

/**
 * Turns cfworker's output units into issues with readable paths and the same message texts the fast
 * path produces. Keyword values are read from the schema (following `$ref`s the way cfworker did);
 * when that fails, cfworker's own sentence is kept.
 */
function translateErrors(
  errors: readonly OutputUnit[],
  instance: unknown,
  root: Schema,
  lookup: Record<string, Schema | boolean>,
): Issue[] {
  const issues: Issue[] = [];
  const located = new Map<string, { path: string; value: unknown }>();
  const locate = (pointer: string) => {
    let found = located.get(pointer);
    if (!found) {
      found = locateInstance(instance, pointer);
      located.set(pointer, found);
    }
    return found;
  };
  const doneRequired = new Set<string>();
  // Instance locations at or above an issue, to drop cfworker's redundant unevaluated* reports.
  const flagged = new Set<string>();
  const flag = (pointer: string) => {
    while (!flagged.has(pointer)) {
      flagged.add(pointer);
      const cut = pointer.lastIndexOf('/');
      if (cut < 0) break;
      pointer = pointer.slice(0, cut);
    }
  };
  let skipUnder: string | undefined;

  for (let i = 0; i < errors.length; i++) {
    const error = errors[i]!;
    if (skipUnder !== undefined) {
      // cfworker reports a `false` subschema with its instance location as keyword location.
      if (error.keywordLocation.startsWith(skipUnder) || error.keyword === 'false') continue;
      skipUnder = undefined;
    }
    const { keyword } = error;
    if (onlyWrapsSubschema(keyword, error.error)) continue;
    if (SUMMING_KEYWORDS.has(keyword)) skipUnder = `${error.keywordLocation}/`;

    const { path, value } = locate(error.instanceLocation);
    const limit = keyword === 'false' ? undefined : resolveKeyword(root, lookup, error.keywordLocation);

    if (keyword === 'required') {
      const key = `${error.keywordLocation} ${error.instanceLocation}`;
      if (doneRequired.has(key)) continue;
      doneRequired.add(key);
      if (Array.isArray(limit) && typeof value === 'object' && value !== null) {
        flag(error.instanceLocation);
        for (const name of limit as unknown[]) {
          if (typeof name === 'string' && !Object.hasOwn(value, name)) {
            issues.push({ path: childPath(path, name), message: issueText.required });
          }
        }
        continue;
      }
    }
    // dependentRequired / draft-07 array dependencies: cfworker names both keys only in its sentence.
    const dependency = keyword.startsWith('depend') ? DEPENDENCY.exec(error.error) : null;
    if (dependency) {
      issues.push({ path: childPath(path, dependency[2]!), message: issueText.requiredWith(dependency[1]!) });
      flag(error.instanceLocation);
      continue;
    }
    // cfworker counts a property that failed its own schema as unevaluated too; that is noise.
    if (
      keyword === 'false' &&
      UNEVALUATED.has(errors[i - 1]?.keyword ?? '') &&
      flagged.has(error.instanceLocation)
    ) {
      continue;
    }
    const message =
      keyword === 'false'
        ? falseSchemaMessage(errors[i - 1])
        : keyword === 'anyOf' || keyword === 'oneOf'
          ? alternativesMessage(errors, i, { instance, root, lookup }, value, limit)
          : keywordMessage(keyword, limit, value);
    issues.push({ path, message: message ?? error.error });
    flag(error.instanceLocation);
  }
  return issues;
}

function keywordMessage(keyword: string, limit: unknown, value: unknown): string | undefined {
  const n = limit as number;
  switch (keyword) {
    case 'type':
      if (typeof limit === 'string') return issueText.type([limit], value);
      return Array.isArray(limit) ? issueText.type(limit.map(String), value) : undefined;
    case 'enum':
      return Array.isArray(limit) ? issueText.enum(limit, value) : undefined;
    case 'const':
      return limit === undefined ? undefined : issueText.const(limit, value);
    case 'not':
      return issueText.not;
    case 'contains':
      return issueText.contains;
    case 'uniqueItems':
      return issueText.uniqueItems;
  }
  if (typeof limit === 'number') {
    if (typeof value === 'number') {
      switch (keyword) {
        case 'minimum':
          return issueText.minimum(n, value);
        case 'maximum':
          return issueText.maximum(n, value);
        case 'exclusiveMinimum':
          return issueText.exclusiveMinimum(n, value);
        case 'exclusiveMaximum':
          return issueText.exclusiveMaximum(n, value);
        case 'multipleOf':
          return issueText.multipleOf(n, value);
      }
    }
    if (typeof value === 'string') {
      if (keyword === 'minLength') return issueText.minLength(n, ucs2length(value));
      if (keyword === 'maxLength') return issueText.maxLength(n, ucs2length(value));
    }
    if (Array.isArray(value)) {
      if (keyword === 'minItems') return issueText.minItems(n, value.length);
      if (keyword === 'maxItems') return issueText.maxItems(n, value.length);
    }
    if (typeof value === 'object' && value !== null) {
      if (keyword === 'minProperties') return issueText.minProperties(n, Object.keys(value).length);
      if (keyword === 'maxProperties') return issueText.maxProperties(n, Object.keys(value).length);
    }
  }
  if (typeof limit === 'string') {
    if (keyword === 'pattern') return issueText.pattern(limit, value);
    if (keyword === 'format' && limit.startsWith(PATTERN_FORMAT)) {
      return issueText.pattern(limit.slice(PATTERN_FORMAT.length), value);
    }
    if (keyword === 'format') return issueText.format(limit, value);
  }
  return undefined;
}

/** A `false` schema failed: what it forbade depends on the keyword that led to it. */
function falseSchemaMessage(wrapper: OutputUnit | undefined): string {
  if (wrapper && PROPERTY_WRAPPERS.has(wrapper.keyword)) return issueText.unexpectedProperty;
  if (wrapper && ITEM_WRAPPERS.has(wrapper.keyword)) return issueText.unexpectedItem;
  return issueText.forbidden;
}

interface Translation {
  readonly instance: unknown;
  readonly root: Schema;
  readonly lookup: Record<string, Schema | boolean>;
}

/**
 * anyOf / oneOf. When every alternative failed only on `type` (the common `["string", "null"]`-style
 * union), say which types were allowed; otherwise say how many alternatives there were and why each
 * failed (not only the last one tried).
 */
function alternativesMessage(
  errors: readonly OutputUnit[],
  index: number,
  translation: Translation,
  value: unknown,
  alternatives: unknown,
): string | undefined {
  const { root, lookup } = translation;
  const error = errors[index]!;
  const count = Array.isArray(alternatives) ? alternatives.length : 0;
  const matches = /\((\d+) matches\)/.exec(error.error);
  if (matches && Number(matches[1]) > 1) return issueText.manyAlternatives(Number(matches[1]));
  const prefix = `${error.keywordLocation}/`;
  const types: string[] = [];
  let failures = 0;
  for (let i = index + 1; i < errors.length; i++) {
    const sub = errors[i]!;
    if (!sub.keywordLocation.startsWith(prefix) && sub.keyword !== 'false') break;
    failures++;
    const typeValue = sub.keyword === 'type' ? resolveKeyword(root, lookup, sub.keywordLocation) : undefined;
    if (sub.instanceLocation !== error.instanceLocation || typeValue === undefined) return fallback();
    for (const t of Array.isArray(typeValue) ? typeValue : [typeValue]) {
      const name = String(t);
      if (!types.includes(name)) types.push(name);
    }
  }
  if (failures === count && count > 0) return issueText.type(types, value);
  return fallback();

  function fallback() {
    if (count === 0) return undefined;
    const why = branchReasons(errors, index, translation, Array.isArray(alternatives) ? alternatives : []);
    return `${issueText.noAlternative(count)}${why ? ` (${why})` : ''}`;
  }
}

/** How many of a branch's issues a message names. */
const BRANCH_ISSUES = 2;

/** Why each alternative of the anyOf/oneOf at `errors[index]` failed: `#1: ...; #2: ...`. */
function branchReasons(
  errors: readonly OutputUnit[],
  index: number,
  translation: Translation,
  alternatives: readonly unknown[],
): string {
  const marker = errors[index]!;
  const prefix = `${marker.keywordLocation}/`;
  const branches = new Map<string, OutputUnit[]>();
  let current: OutputUnit[] | undefined;
  for (let i = index + 1; i < errors.length; i++) {
    const sub = errors[i]!;
    if (sub.keywordLocation.startsWith(prefix)) {
      const branch = sub.keywordLocation.slice(prefix.length).split('/')[0]!;
      current = branches.get(branch) ?? [];
      branches.set(branch, current);
    } else if (sub.keyword !== 'false' || current === undefined) break;
    current.push(sub);
  }
  const at = locateInstance(translation.instance, marker.instanceLocation).path;
  return [...branches]
    .map(([branch, list]) => {
      const issues = translateErrors(list, translation.instance, translation.root, translation.lookup);
      const shown = issues.slice(0, BRANCH_ISSUES).map((issue) => {
        const relative =
          issue.path === at
            ? ''
            : issue.path.startsWith(at) && at !== '$'
              ? issue.path.slice(at.length)
              : issue.path;
        return relative === '' ? issue.message : `${relative.replace(/^\./, '')}: ${issue.message}`;
      });
      const more = issues.length - shown.length;
      return `${branchLabel(alternatives[Number(branch)], Number(branch))}: ${shown.join(', ')}${more > 0 ? ` (+${more})` : ''}`;
    })
    .join('; ');
}

/** An alternative by its number, and its title or `$ref` name when it has one: `#2 "Square"`. */
function branchLabel(alternative: unknown, index: number): string {
  const schema = typeof alternative === 'object' && alternative !== null ? (alternative as Schema) : {};
  const name =
    typeof schema.title === 'string'
      ? schema.title
      : typeof schema.$ref === 'string'
        ? schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1)
        : undefined;
  return name === undefined ? `#${index + 1}` : `#${index + 1} ${JSON.stringify(name)}`;
}

/** Reads the keyword value at a cfworker keyword location, following `$ref`s as cfworker did. */
function resolveKeyword(root: Schema, lookup: Record<string, Schema | boolean>, location: string): unknown {
  if (!location.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of location.slice(1).split('/').slice(1)) {
    const segment = decodeSegment(raw);
    if (segment === undefined || typeof node !== 'object' || node === null) return undefined;
    if (segment === '$ref') {
      const target = (node as Schema).__absolute_ref__ ?? (node as Schema).$ref;
      node = typeof target === 'string' ? lookup[target] : undefined;
    } else if (segment === '$recursiveRef') {
      return undefined;
    } else {
      node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return node;
}

/** Turns an instance location (`#/items/2/name`) into a readable path and the value found there. */
function locateInstance(instance: unknown, pointer: string): { path: string; value: unknown } {
  let path = '$';
  let value: unknown = instance;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const segment = decodeSegment(raw) ?? raw;
    if (Array.isArray(value)) {
      const index = Number(segment);
      path = childPath(path, index);
      value = value[index];
    } else {
      path = childPath(path, segment);
      value =
        typeof value === 'object' && value !== null && Object.hasOwn(value, segment)
          ? (value as Record<string, unknown>)[segment]
          : undefined;
    }
  }
  return { path, value };
}

/** Undoes cfworker's `encodePointer` (JSON Pointer escaping, then URI encoding). */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
}

/** cfworker throws, rather than reporting, on some inputs; the whole value is then rejected. */
function thrownMessage(error: unknown): string {
  if (error instanceof RangeError) return issueText.tooDeep;
  if (error instanceof URIError) return issueText.malformedKey;
  const message = errorMessage(error);
  const notJson = /^Instances of "(\w+)" type are not supported/.exec(message);
  if (notJson) return issueText.notJson(notJson[1]!);
  return `could not be validated: ${message}`;
}

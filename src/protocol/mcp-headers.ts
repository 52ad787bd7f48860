/**
 * The 2026-07-28 HTTP headers that mirror the JSON-RPC body (SEP-2243), shared by the HTTP client
 * (which sends them) and the HTTP server (which checks them):
 * - value encoding: a value that is not plain visible ASCII (non-ASCII, control characters, leading
 *   or trailing whitespace), or that already looks like the sentinel, travels as
 *   `=?base64?<base64 of UTF-8>?=`;
 * - `x-mcp-header`: a tool's inputSchema may mark arguments to be mirrored into `Mcp-Param-{Name}`.
 *   The rules: the value is a non-empty RFC 9110 token, unique ignoring case within the schema; the
 *   annotated property is typed `string`, `integer` or `boolean`; and it is reachable from the root
 *   through `properties` keys alone. An annotation anywhere else (under `items`, a composition or
 *   conditional keyword, a definition, on the root itself) makes the tool invalid: a client drops it
 *   from the tools it exposes, and a Switchboard server refuses to register it.
 */
import { base64ToBytes, bytesToBase64 } from '../util/base64.js';
import { isPlainObject } from '../util/guards.js';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Space and visible ASCII only; tabs and every other control character need the encoding. */
const PLAIN = /^[\x20-\x7e]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** RFC 9110 field value as received: visible ASCII, space and tab. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;
const encoder = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true });

type Json = Record<string, unknown>;

/** The header form of a value: itself when safe, else the Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  if (
    PLAIN.test(value) &&
    !value.startsWith(' ') &&
    !value.endsWith(' ') &&
    !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))
  ) {
    return value;
  }
  return `${SENTINEL_PREFIX}${bytesToBase64(encoder.encode(value))}${SENTINEL_SUFFIX}`;
}

/**
 * The header form of a tool argument: strings as they are, integers in decimal, booleans as
 * `true`/`false`. Anything else (null, objects, fractions) yields undefined: no header, and the
 * server's own validation reports the bad argument.
 */
export function headerValueOf(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return encodeHeaderValue(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isSafeInteger(value) ? String(value) : undefined;
    default:
      return undefined;
  }
}

/**
 * Decodes a header value that may use the `=?base64?…?=` sentinel (UTF-8 inside). Returns
 * undefined when the value is malformed: bad base64, invalid UTF-8, or characters a plain value
 * may not contain.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (raw.startsWith(SENTINEL_PREFIX) && raw.endsWith(SENTINEL_SUFFIX) && raw.length >= 11) {
    const encoded = raw.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
    if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
    try {
      return utf8.decode(base64ToBytes(encoded));
    } catch {
      return undefined;
    }
  }
  return PLAIN_VALUE.test(raw) ? raw : undefined;
}

const ANNOTATION = 'x-mcp-header';
const HEADER_PREFIX = 'mcp-param-';
/** RFC 9110 §5.6.2 `token`: `1*tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/** Keywords holding subschemas the `properties`-only chain must not pass through. */
const SCHEMA_KEYWORDS = [
  'items',
  'contains',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
const SCHEMA_MAP_KEYWORDS = [
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
] as const;

/** One mirrored argument: where it sits in `arguments`, and the (lower-case) header carrying it. */
export interface HeaderParam {
  readonly path: readonly string[];
  /** The header's lower-case name, `mcp-param-{name}`, as HTTP libraries key it. */
  readonly header: string;
  /** The header as declared, `Mcp-Param-{Name}`, for messages. */
  readonly name: string;
}

export type ToolHeaderScan =
  | { readonly ok: true; readonly params: readonly HeaderParam[] }
  | { readonly ok: false; readonly reason: string };

const where = (path: readonly string[]) => (path.length === 0 ? 'the schema root' : `"${path.join('.')}"`);

/** Checks a tool's `inputSchema` against the `x-mcp-header` rules and collects its mirrored arguments. */
export function scanToolHeaders(inputSchema: unknown): ToolHeaderScan {
  const params: HeaderParam[] = [];
  const seen = new Map<string, string>();

  const visit = (schema: unknown, path: string[], reachable: boolean): string | undefined => {
    if (!isPlainObject(schema)) return undefined;
    if (ANNOTATION in schema) {
      const fault = annotationFault(schema, path, reachable, seen);
      if (fault) return fault;
      const declared = schema[ANNOTATION] as string;
      params.push({ path, header: HEADER_PREFIX + declared.toLowerCase(), name: `Mcp-Param-${declared}` });
    }
    const properties = schema.properties;
    if (isPlainObject(properties)) {
      for (const key of Object.keys(properties)) {
        const fault = visit(properties[key], [...path, key], reachable);
        if (fault) return fault;
      }
    }
    // Everything below is off the `properties` chain: an annotation found there is a fault.
    for (const keyword of SCHEMA_KEYWORDS) {
      if (isPlainObject(schema[keyword])) {
        const fault = visit(schema[keyword], [...path, keyword], false);
        if (fault) return fault;
      }
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      for (const [i, item] of list.entries()) {
        const fault = visit(item, [...path, `${keyword}[${i}]`], false);
        if (fault) return fault;
      }
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = schema[keyword];
      if (!isPlainObject(map)) continue;
      for (const key of Object.keys(map)) {
        const fault = visit(map[key], [...path, keyword, key], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };

  const fault = visit(inputSchema, [], true);
  return fault ? { ok: false, reason: fault } : { ok: true, params };
}

function annotationFault(
  schema: Json,
  path: string[],
  reachable: boolean,
  seen: Map<string, string>,
): string | undefined {
  const name = schema[ANNOTATION];
  if (!reachable || path.length === 0) {
    return `x-mcp-header at ${where(path)} is not on a property reachable from the root through "properties" alone`;
  }
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    return `x-mcp-header ${JSON.stringify(name)} at ${where(path)} is not a non-empty HTTP token (RFC 9110)`;
  }
  const type = schema.type;
  if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
    return `x-mcp-header "${name}" at ${where(path)} is on a property of type ${JSON.stringify(type ?? null)}; only string, integer and boolean are allowed`;
  }
  const lower = name.toLowerCase();
  const earlier = seen.get(lower);
  if (earlier !== undefined) {
    return `x-mcp-header "${name}" at ${where(path)} repeats "${earlier}" (names must be unique ignoring case)`;
  }
  seen.set(lower, name);
  return undefined;
}

/**
 * `x-mcp-header` (2026-07-28, SEP-2243): a tool's inputSchema may mark arguments to be mirrored into
 * `Mcp-Param-{Name}` request headers. An HTTP client must send those headers, and must drop from the
 * `tools/list` it exposes every tool whose annotations break the rules (so one bad tool cannot make
 * its calls fail at the server's header check, or smuggle a header past an intermediary).
 *
 * The rules: the value is a non-empty RFC 9110 token, unique ignoring case within the schema; the
 * annotated property is typed `string`, `integer` or `boolean`; and it is reachable from the root
 * through `properties` keys alone. An annotation anywhere else (under `items`, a composition or
 * conditional keyword, a definition, on the root itself) invalidates the tool.
 */
import { isObject, type Json } from './frame-info.js';
import { headerValueOf } from './header-encoding.js';

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
  readonly header: string;
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
    if (!isObject(schema)) return undefined;
    if (ANNOTATION in schema) {
      const fault = annotationFault(schema, path, reachable, seen);
      if (fault) return fault;
      params.push({ path, header: HEADER_PREFIX + (schema[ANNOTATION] as string).toLowerCase() });
    }
    const properties = schema.properties;
    if (isObject(properties)) {
      for (const key of Object.keys(properties)) {
        const fault = visit(properties[key], [...path, key], reachable);
        if (fault) return fault;
      }
    }
    // Everything below is off the `properties` chain: an annotation found there is a fault.
    for (const keyword of SCHEMA_KEYWORDS) {
      if (isObject(schema[keyword])) {
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
      if (!isObject(map)) continue;
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

/**
 * The mirrored arguments of the tools this connection has listed, learned from `tools/list` results
 * as they pass, and the filter that drops invalid tools from those results.
 */
export class ToolHeaderIndex {
  readonly #byTool = new Map<string, readonly HeaderParam[]>();

  /**
   * Learns from one `tools/list` result and removes the tools that break the rules from it, in
   * place. Returns one message per removed tool.
   */
  learn(result: Json): string[] {
    const tools = result.tools;
    if (!Array.isArray(tools)) return [];
    const warnings: string[] = [];
    const kept: unknown[] = [];
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') {
        kept.push(tool);
        continue;
      }
      const scan = scanToolHeaders(tool.inputSchema);
      if (!scan.ok) {
        this.#byTool.delete(tool.name);
        warnings.push(`Tool "${tool.name}" was dropped from tools/list: ${scan.reason}.`);
        continue;
      }
      if (scan.params.length > 0) this.#byTool.set(tool.name, scan.params);
      else this.#byTool.delete(tool.name);
      kept.push(tool);
    }
    if (warnings.length > 0) result.tools = kept;
    return warnings;
  }

  /** Whether the tool's mirrored arguments are known (it was listed and has some). */
  has(tool: string): boolean {
    return this.#byTool.has(tool);
  }

  /** Adds the `Mcp-Param-*` headers for a call of `tool` with `args`; absent and null values add none. */
  addHeaders(tool: string, args: unknown, headers: Record<string, string>): void {
    const params = this.#byTool.get(tool);
    if (!params) return;
    for (const { path, header } of params) {
      let value: unknown = args;
      for (const key of path) value = isObject(value) ? value[key] : undefined;
      const encoded = headerValueOf(value);
      if (encoded !== undefined) headers[header] = encoded;
    }
  }
}

/**
 * The 2026-07-28 request headers that mirror the body (SEP-2243): `MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name` and `Mcp-Param-{Name}` for tool arguments whose schema property carries
 * `x-mcp-header`. Intermediaries route on these headers while the server executes the body, so every
 * one must agree with the body: a missing, malformed or mismatched header is 400 + -32020.
 */
import { ErrorCode, ProtocolError } from '../../../protocol/errors.js';
import type { Params } from '../../../protocol/jsonrpc.js';
import { decodeHeaderValue, type HeaderParam, scanToolHeaders } from '../../../protocol/mcp-headers.js';
import { META } from '../../../protocol/meta.js';
import { methodSpec } from '../../../protocol/methods.js';
import type { Tool } from '../../../protocol/types.js';
import { clip } from '../../../util/clip.js';
import { isPlainObject } from '../../../util/guards.js';
import type { HttpExchange } from './exchange.js';

const mismatch = (message: string) =>
  new ProtocolError(ErrorCode.HeaderMismatch, `Header mismatch: ${message}`);

/**
 * The mirrored arguments per tool descriptor (descriptors are frozen and replaced when a tool
 * changes). Registration already refused tools whose annotations break the rules.
 */
const declarationCache = new WeakMap<Tool, readonly HeaderParam[]>();

function declarationsOf(tool: Tool): readonly HeaderParam[] {
  let declarations = declarationCache.get(tool);
  if (!declarations) {
    const scan = scanToolHeaders(tool.inputSchema);
    declarations = scan.ok ? scan.params : [];
    declarationCache.set(tool, declarations);
  }
  return declarations;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Whether a decoded header value stands for the body's primitive value (integers compared as numbers). */
function headerMatches(decoded: string, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return decoded === value;
    case 'boolean':
      return decoded === (value ? 'true' : 'false');
    case 'number':
      return decoded.trim() !== '' && Number(decoded) === value;
    default:
      return false;
  }
}

/** `key` is the lower-case form of `name`. */
function requireHeader(exchange: HttpExchange, key: string, name: string, body: unknown): string {
  const raw = exchange.header(key);
  if (raw === undefined) {
    throw mismatch(
      `the ${name} header is missing; 2026-07-28 requests must send ${name}: ${String(body)} (mirroring the body).`,
    );
  }
  return raw;
}

/**
 * Checks the mirrored headers of a 2026-07-28 request against its body. Throws ProtocolError
 * -32020 naming the header and both values. `tool` is the called tool (for `Mcp-Param-*`), when
 * the request is a `tools/call` of a tool this caller can see.
 */
export function checkMirroredHeaders(
  exchange: HttpExchange,
  method: string,
  params: Params,
  tool: Tool | undefined,
): void {
  const bodyVersion = (params._meta as Record<string, unknown>)[META.protocolVersion];
  const version = requireHeader(exchange, 'mcp-protocol-version', 'MCP-Protocol-Version', bodyVersion);
  if (version !== bodyVersion) {
    throw mismatch(
      `MCP-Protocol-Version header ${JSON.stringify(version)} does not match _meta["${META.protocolVersion}"] ${JSON.stringify(bodyVersion)} in the body; send the same version in both.`,
    );
  }
  const methodHeader = requireHeader(exchange, 'mcp-method', 'Mcp-Method', method);
  if (methodHeader !== method) {
    throw mismatch(
      `Mcp-Method header ${JSON.stringify(clip(methodHeader))} does not match the body's method ${JSON.stringify(clip(method))}; send the same method in both.`,
    );
  }
  const nameParam = methodSpec(method)?.nameParam;
  if (nameParam !== undefined) {
    const bodyName = params[nameParam];
    const raw = exchange.header('mcp-name');
    // Without a name in the body the params check answers -32602; a header alone is still a mismatch.
    if (raw === undefined) {
      if (typeof bodyName === 'string') {
        throw mismatch(
          `the Mcp-Name header is missing; '${method}' requests must send Mcp-Name mirroring params.${nameParam} (base64-sentinel encoded when not plain ASCII).`,
        );
      }
    } else {
      const name = decodeHeaderValue(raw);
      if (name === undefined) {
        throw mismatch(
          `Mcp-Name header ${JSON.stringify(raw)} is malformed; send plain visible ASCII or =?base64?<UTF-8 as base64>?=.`,
        );
      }
      if (name !== bodyName) {
        throw mismatch(
          `Mcp-Name header value ${JSON.stringify(name)} does not match params.${nameParam} ${JSON.stringify(bodyName)} in the body.`,
        );
      }
    }
  }
  if (tool) checkParamHeaders(exchange, tool, params.arguments);
}

function checkParamHeaders(exchange: HttpExchange, tool: Tool, args: unknown): void {
  for (const declaration of declarationsOf(tool)) {
    const value = valueAt(args, declaration.path);
    const raw = exchange.header(declaration.header);
    const header = declaration.name;
    const where = `arguments.${declaration.path.join('.')}`;
    if (raw === undefined) {
      if (value === undefined || value === null || typeof value === 'object') continue;
      throw mismatch(
        `the ${header} header is missing although ${where} is in the body; tool "${tool.name}" mirrors it (x-mcp-header). Call tools/list for the current schema and send the header.`,
      );
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) {
      throw mismatch(
        `${header} header ${JSON.stringify(raw)} is malformed; send plain visible ASCII or =?base64?<UTF-8 as base64>?=.`,
      );
    }
    if (!headerMatches(decoded, value)) {
      throw mismatch(
        `${header} header value ${JSON.stringify(decoded)} does not match ${where} ${value === undefined ? '(absent)' : JSON.stringify(value)} in the body of tool "${tool.name}".`,
      );
    }
  }
}

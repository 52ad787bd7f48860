/**
 * Header values mirrored from the JSON-RPC body (2026-07-28 Streamable HTTP, "Value Encoding"):
 * a value that is not plain visible ASCII (non-ASCII, control characters, leading or trailing
 * whitespace), or that already looks like the sentinel, travels as `=?base64?<base64 of UTF-8>?=`.
 */
import { bytesToBase64 } from '../../../util/base64.js';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** Space and visible ASCII only; tabs and every other control character need the encoding. */
const PLAIN = /^[\x20-\x7e]*$/;
const encoder = new TextEncoder();

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

/** The body field `Mcp-Name` mirrors, per method (the Tasks extension names its task). */
export function nameFieldOf(method: string): 'name' | 'uri' | 'taskId' | undefined {
  switch (method) {
    case 'tools/call':
    case 'prompts/get':
      return 'name';
    case 'resources/read':
      return 'uri';
    default:
      return method.startsWith('tasks/') ? 'taskId' : undefined;
  }
}
